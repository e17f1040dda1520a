"""CUDA front end: turn a .cu/.cuh source (or a .ll/.bc file) into the LLVM IR text the
interpreter runs.

Sources are compiled for the device only by the clang bundled in the `ziglang` package
(or by the clang named with --clang / $SIMULEE_CLANG), against Simulee's own CUDA headers,
which are force-included. Then llvmlite runs exactly two passes: always-inline (every device
function that is neither recursive nor marked noinline gets inlined) and SROA (private
variables become SSA values). Nothing that deletes or merges memory accesses runs, so every
racy store stays in the IR even when no thread reads it.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path

from simulee import __version__
from simulee.frontend import cmake, compile_commands, passes, salvage, toolkit
from simulee.frontend.passes import binding, inline_and_promote, one_line, optimize_host
from simulee.frontend.cache import IRCache, digest, file_digest
from simulee.errors import CompileError, SimuleeError

SOURCE_SUFFIXES = (".cu", ".cuh")
IR_SUFFIXES = (".ll", ".bc")
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
BUILTIN_VARIABLES = INCLUDE_DIR / "simulee" / "builtin_vars.h"  # threadIdx, blockIdx, blockDim, gridDim
PRELUDE = INCLUDE_DIR / "simulee_runtime.h"
# headers a GPU build machine has and the bundled libraries lack (omp.h, glibc's error.h), searched last
STAND_INS = INCLUDE_DIR / "standins"
LIBC_OVERRIDES = INCLUDE_DIR / "libc"  # musl's headers as CUDA's expect them (assert.h)
GPUVERIFY_ANNOTATIONS = INCLUDE_DIR / "gpuverify_annotations.h"
DEFAULT_ARCH = "sm_70"

# libc++ reads its configuration from __config_site, which zig replaces by -D flags.
LIBCXX_CONFIG = (
    "-D_LIBCPP_ABI_VERSION=1",
    "-D_LIBCPP_ABI_NAMESPACE=__1",
    "-D_LIBCPP_HAS_THREADS=1",
    "-D_LIBCPP_HAS_MONOTONIC_CLOCK",
    "-D_LIBCPP_HAS_TERMINAL",
    "-D_LIBCPP_HAS_MUSL_LIBC=1",
    "-D_LIBCPP_DISABLE_VISIBILITY_ANNOTATIONS",
    "-D_LIBCXXABI_DISABLE_VISIBILITY_ANNOTATIONS",
    "-D_LIBCPP_HAS_VENDOR_AVAILABILITY_ANNOTATIONS=0",
    "-D_LIBCPP_HAS_FILESYSTEM=1",
    "-D_LIBCPP_HAS_RANDOM_DEVICE",
    "-D_LIBCPP_HAS_LOCALIZATION",
    "-D_LIBCPP_HAS_UNICODE",
    "-D_LIBCPP_HAS_WIDE_CHARACTERS",
    "-D_LIBCPP_HAS_NO_STD_MODULES",
    "-D_LIBCPP_PSTL_BACKEND_SERIAL",
    "-D_LIBCPP_HARDENING_MODE=_LIBCPP_HARDENING_MODE_NONE",
    "-D_LIBCPP_ASSERTION_SEMANTIC_DEFAULT=_LIBCPP_ASSERTION_SEMANTIC_IGNORE",
    # what C++17 removed and libstdc++, which nvcc's host compiler uses, still has: std::unary_function, auto_ptr,
    # random_shuffle, bind1st, ptr_fun
    "-D_LIBCPP_ENABLE_CXX17_REMOVED_UNARY_BINARY_FUNCTION",
    "-D_LIBCPP_ENABLE_CXX17_REMOVED_AUTO_PTR",
    "-D_LIBCPP_ENABLE_CXX17_REMOVED_RANDOM_SHUFFLE",
    "-D_LIBCPP_ENABLE_CXX17_REMOVED_BINDERS",
    "-D_LIBCPP_ENABLE_CXX17_REMOVED_UNEXPECTED_FUNCTIONS",
)


# what nvcc and gcc, its host compiler, accept and clang refuses by default: a string literal right before a macro
# ("%"PRId64, which C++11 reads as a user-defined literal); the `register` storage class C++17 removed (a warning
# to both, as to clang here)
DIALECT = ("-Wno-reserved-user-defined-literal", "-Wno-error=register")
# what gcc accepts in C with a warning and clang refuses: implicit int and function declarations, int and
# pointers converted into each other
GCC_C_LENIENCE = ("-Wno-error=implicit-int", "-Wno-error=implicit-function-declaration", "-Wno-error=int-conversion",
                  "-Wno-error=incompatible-pointer-types", "-Wno-error=incompatible-function-pointer-types",
                  "-Wno-error=return-type")
# what glibc's <stdlib.h> declares besides the standard and musl's does not (struct timeval)
GLIBC_TRANSITIVE = STAND_INS / "simulee_glibc_transitive.h"


@dataclass(frozen=True)
class CompileOptions:
    """What the user can change about a compilation. A scan sets `confine`: the folders
    (the repository, the user's -I folders) outside which a source may include nothing,
    and `timeout`, the seconds after which the compiler is killed."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    clang: str | None = None
    gpuverify_annotations: bool = False
    confine: tuple[str, ...] | None = None
    timeout: float | None = None
    clang_args: tuple[str, ...] = ()  # passed to clang as they are (--clang-arg)
    arch: str = DEFAULT_ARCH  # the GPU architecture compiled for (__CUDA_ARCH__)
    compile_commands: str | None = None  # a compile_commands.json whose entry for a source applies

    def for_source(self, source: Path) -> "CompileOptions":
        """These options with the compilation database's entry for `source` added, or
        where no database lists it, the include folders and macros of the CMake targets
        that hold it (cmake.flags_of)."""
        entry = database_entries(self).get(os.path.realpath(source)) if self.compile_commands else None
        if entry is None:
            includes, defines = cmake.flags_of(Path(source), self.confine)
            return replace(self, include_dirs=self.include_dirs + includes, defines=defines + self.defines) \
                if includes or defines else self
        return replace(self, include_dirs=self.include_dirs + entry.include_dirs,
                       defines=entry.defines + self.defines, clang_args=entry.clang_args + self.clang_args)


def database_entries(options: CompileOptions) -> dict:
    """The entries of the compilation database `options` names, by source (none without one)."""
    return _database(options.compile_commands, options.confine) if options.compile_commands else {}


@functools.lru_cache(maxsize=8)
def _database(path: str, allowed: tuple[str, ...] | None):
    return compile_commands.load(Path(path), None if allowed is None else
                                 tuple(os.path.realpath(folder) for folder in allowed))


@dataclass(frozen=True)
class Clang:
    """A clang driver: the command that runs it, a version string for cache keys, and for
    ziglang's clang the folder of its own builtin, C and C++ library headers."""

    command: tuple[str, ...]
    version: str
    resource_dir: str | None = None

    @property
    def bundled(self) -> bool:
        """Whether this is ziglang's clang, compiling against ziglang's libraries."""
        return self.resource_dir is not None


def user_location(location):
    """The first place along an inlining chain that is the user's code, not Simulee's or
    the toolkit's headers (an atomicAdd faults inside atomics.h, a curand_uniform inside
    curand_kernel.h; the user wants the line that called it)."""
    if location is None:
        return None
    for place in location.chain():
        if not library_file(place.file):
            return place
    return location.outermost()


def own_kernels(program) -> list:
    """The program's kernels but those the CUDA toolkit's headers define (CUB's and
    thrust's, instantiated by the code that calls them): NVIDIA's code, launched by
    library code Simulee does not read, so that a bug found there is neither the
    program's nor trustworthy."""
    return [kernel for kernel in program.kernels if not library_file(kernel.file)]


def library_file(path: str) -> bool:
    """Whether `path` is one of Simulee's or the CUDA toolkit's headers, not the user's code."""
    return path.startswith(library_folders())


@functools.cache
def library_folders() -> tuple[str, ...]:
    from simulee.frontend import toolkit

    try:
        folders = toolkit.include_dirs()
    except SimuleeError:
        folders = ()
    return (str(INCLUDE_DIR), *folders)


def load_ir(path: str | Path, options: CompileOptions = CompileOptions()) -> str:
    """The interpretable IR text of a CUDA source or an LLVM IR file (.ll/.bc, used as is)."""
    path = Path(path)
    if not path.is_file():
        raise SimuleeError(f"no such file: {path}" if not path.exists() else f"not a file: {path}")
    suffix = path.suffix.lower()
    if suffix in IR_SUFFIXES:
        return verified(read_ir_file(path), str(path))
    if suffix in SOURCE_SUFFIXES:
        return compile_cuda(path, options)
    raise SimuleeError(f"{path}: not a CUDA source (.cu, .cuh) or LLVM IR file (.ll, .bc)")


def load_program(path: str | Path, options: CompileOptions = CompileOptions(), siblings: tuple[Path, ...] = ()):
    """Compile (or read) and load one file into the interpreter's Program; SimuleeError on
    any problem with it. Device functions the file declares but does not define are linked
    from the `siblings` that define them (CUDA's separate compilation, nvcc -rdc).
    Where programs are kept loaded (`keep_loaded`), one loaded from the same IR is taken."""
    from interpreter.loader import LoadError, load_module

    text = load_ir(path, options)
    if siblings:
        text = link_across_files(text, siblings, options)
    key = (os.getcwd(), str(path), digest(text.encode()))
    if LOADED.kept is not None and key in LOADED.kept:
        return LOADED.kept.pop(key)  # this process's own from now on
    start = time.perf_counter()
    try:
        # IR the front end made (compiled, linked) is as llvmlite printed it after its passes
        program = load_module(text, str(path), printed=Path(path).suffix.lower() not in IR_SUFFIXES)
    except LoadError as error:
        raise SimuleeError(str(error)) from None
    program.degraded = degradation(text)  # what the source was compiled without, or ''
    if LOADED.kept is not None:
        LOADED.made.append(Made(str(path), options, siblings, time.perf_counter() - start, key))
    return program


@dataclass(frozen=True)
class Made:
    """A program a process loaded: from what (as given, in the folder key[0]), in how many
    seconds, and its key (the folder, the path, the IR's digest)."""

    path: str
    options: CompileOptions
    siblings: tuple[Path, ...]
    seconds: float
    key: tuple[str, str, str]


class Loaded:
    """Programs kept loaded between commands by a process that serves many (the server):
    `kept` by (folder, file, IR digest), at most `limit`, the oldest given up first; `made`, what
    this process loaded that was not kept. Off (kept None) everywhere else."""

    def __init__(self):
        self.kept: OrderedDict | None = None
        self.made: list[Made] = []
        self.limit = 0

    def keep(self, limit: int) -> None:
        self.kept, self.limit = OrderedDict(), limit

    def take(self, made: Made, program) -> None:
        """Keep `program`, loaded again here as `made` says."""
        self.kept[made.key] = program
        while len(self.kept) > self.limit:
            self.kept.popitem(last=False)


LOADED = Loaded()


# what a declaration may name without a definition in any file: intrinsics, libdevice,
# the interpreter's own hooks and the device runtime's functions
_PROVIDED = ("llvm.", "__nv_", "__simulee", "__nvvm_", "vprintf", "printf", "malloc", "free", "__assert", "memcpy",
             "memset", "memmove", "cuda", "__cuda", "abort")


def link_across_files(ir: str, siblings: tuple[Path, ...], options: CompileOptions) -> str:
    """`ir` with the definitions of the device functions it only declares linked in from
    the first of `siblings` (other sources of the repository) that define them. A sibling
    is compiled only when its text names such a function; its kernels are not linked as
    kernels. A sibling that does not compile, or whose definitions clash, is passed over."""
    from interpreter.loader import demangle

    undefined = {name for name in re.findall(r"^declare [^@\n]*@([-\w.$]+)\(", ir, re.M)
                 if not name.startswith(_PROVIDED)}
    if not undefined:
        return ir
    degraded = degradation(ir)
    for sibling in siblings:
        names = {name: demangle(name).split("(")[0].split("<")[0].rpartition("::")[2] for name in undefined}
        try:
            text = sibling.read_text(errors="replace")
        except OSError:
            continue
        if not any(re.search(r"\b%s\b" % re.escape(plain), text) for plain in names.values()):
            continue
        try:
            other = load_ir(sibling, options)
        except SimuleeError:
            continue
        defined = {name for name in undefined if re.search(r"^define [^@\n]*@%s\(" % re.escape(name), other, re.M)}
        if not defined:
            continue
        try:
            ir = _linked(ir, other, str(sibling))
        except SimuleeError:
            continue
        undefined -= defined
        if not undefined:
            break
    return f"; simulee: degraded: {degraded}\n{ir}" if degraded and not ir.startswith("; simulee: degraded") else ir


def _linked(ir: str, other: str, origin: str) -> str:
    """`ir` with the module `other` linked in, its kernels plain functions."""
    llvm = binding()
    other = re.sub(r"^(define [^@\n]*?)\bptx_kernel ", r"\1", other, flags=re.M)
    other = re.sub(r"^!nvvm\.annotations = .*$", "", other, flags=re.M)
    try:
        module = llvm.parse_assembly(ir)
        module.link_in(llvm.parse_assembly(other))
    except RuntimeError as error:
        raise SimuleeError(f"{origin}: cannot link: {one_line(str(error))}") from None
    return inline_and_promote(str(module), origin)


def verified(ir: str, origin: str) -> str:
    """`ir` when llvmlite parses and verifies it; else a one-line SimuleeError."""
    llvm = binding()
    try:
        llvm.parse_assembly(ir).verify()
    except RuntimeError as error:
        raise SimuleeError(f"{origin}: invalid LLVM IR: {one_line(str(error))}") from None
    return ir


def read_ir_file(path: Path) -> str:
    """The text of an .ll file, or of a .bc file disassembled by llvmlite."""
    if path.suffix.lower() == ".ll":
        try:
            return path.read_text()
        except (OSError, UnicodeDecodeError) as error:
            raise SimuleeError(f"{path}: cannot read: {error}") from None
    llvm = binding()
    try:
        return str(llvm.parse_bitcode(path.read_bytes()))
    except (OSError, RuntimeError, ValueError) as error:
        raise SimuleeError(f"{path}: not valid LLVM bitcode: {one_line(str(error))}") from None


def compile_cuda(path: Path, options: CompileOptions = CompileOptions(), cache: IRCache | None = None,
                 host: bool = False) -> str:
    """Compile a CUDA source for the device and return the IR after always-inline and SROA
    (with `host`, its host side, optimized as optimize_host says, for launch sites).
    A missing header is stood in for and failing host code left out (salvage.py); the IR
    then starts with a `; simulee: degraded: ...` line (see `degradation`). The result is
    cached, and so is a failure (the same CompileError again); a cached entry is reused
    only while every file the compiler read is unchanged.
    The source is named by its absolute path as given (a link inside a repository keeps
    its own name)."""
    from simulee.frontend import device_library  # it imports the interpreter's arithmetic, which only compiling needs

    clang = find_clang(options.clang)
    source = Path(os.path.abspath(path))
    options = options.for_source(source)
    arguments = clang_arguments(clang, source, options, host)
    allowed = confinement(clang, options)
    key = digest(
        json.dumps(
            [__version__, _frontend_fingerprint(), clang.version, toolkit.version(), arguments, allowed,
             file_digest(source)]
        ).encode()
    )
    cache = cache or IRCache()
    cached = cache.get(key)
    if cached is not None and cached.startswith(FAILED):
        raise CompileError(*json.loads(cached[len(FAILED):]))
    if cached is not None:
        return cached
    with tempfile.TemporaryDirectory(prefix="simulee-") as tmp:
        attempt = salvage.Salvage(Path(tmp), tuple(os.path.realpath(f) for f in options.confine or (source.parent,)),
                                  requested_arch=options.arch)
        first_failure, last_failure = "", None
        while True:
            depfile = Path(tmp) / "deps.d"
            compiled = arguments[:-1] + attempt.arguments() + arguments[-1:]
            if attempt.arch:
                compiled = [f"--cuda-gpu-arch={attempt.arch}" if argument.startswith("--cuda-gpu-arch=") else argument
                            for argument in compiled]
            result = run_compiler([*clang.command, *compiled, "-MD", "-MF", str(depfile), "-o", "-"], options.timeout,
                                  path)
            deps = [dep for dep in _read_depfile(depfile) if not dep.startswith(os.path.realpath(tmp))]
            if allowed is not None:
                _confined(deps + _diagnosed_files(result.stderr, source.parent, tmp), allowed, path)
            first_failure = first_failure or (result.returncode != 0 and result.stderr)
            if result.returncode == 0:
                # a source whose kernel templates nothing instantiates gets instances of its own
                if host or not attempt.instantiate(source, result.stdout):
                    break
                continue
            if not attempt.answer(result.stderr, deps):
                break
            last_failure = result
        if result.returncode != 0 and attempt.arch == salvage.NEWER_ARCH and last_failure is not None:
            result, attempt.arch = last_failure, None  # the newer GPU did not help: report what the asked one gave
        degraded = "; ".join(filter(None, (
            attempt.describe(Path(options.confine[0]) if options.confine else source.parent), stood_in(deps))))
    diagnostics = result.stderr.replace(str(source), str(path))
    if result.returncode != 0:
        message = _first_error(diagnostics, path)
        if attempt.missing:  # the missing header is the cause; what failed without it follows
            cause = _first_error(first_failure.replace(str(source), str(path)), path)
            message = f"{re.sub(r' [(]and [0-9]+ more errors?[)]$', '', cause)}; with empty stand-ins for " \
                      f"{', '.join(attempt.missing)}: {message}"
        elif degraded:
            message += f" [after {degraded}]"
        if result.returncode == 1:  # the compiler's errors, not a crash: kept while what it read is unchanged
            cache.put(key, FAILED + json.dumps([message, diagnostics]), _kept(deps, clang))
        raise CompileError(message, diagnostics)
    ir = optimize_host(result.stdout, str(path)) if host else \
        inline_and_promote(device_library.adapt(result.stdout), str(path))
    if degraded:
        ir = f"; simulee: degraded: {degraded}\n" + ir
    cache.put(key, ir, _kept(deps, clang))
    return ir


FAILED = "; simulee: does not compile\n"  # a cached compile that failed: its message and diagnostics follow


def _kept(deps: list[str], clang) -> list[str]:
    """The files read (`deps`) a cached compile depends on: ziglang's and the toolkit's
    headers are covered by their versions in the key."""
    return [dep for dep in deps if not (clang.bundled and dep.startswith(clang.resource_dir))
            and not dep.startswith(library_folders()[1:])]


_ANNOTATION = re.compile(r"(?<![\w.])__(requires|ensures|invariant|global_invariant|assume|axiom)\s*\(")
_DEFINES_ANNOTATION = re.compile(r"^\s*#\s*define\s+__(requires|ensures|invariant|global_invariant|assume|axiom)\b",
                                 re.M)


def uses_annotations(source: Path) -> str:
    """The first of GPUVerify's annotations (`__requires`, `__assume`, `__invariant`, ...)
    that `source` uses bare, as verification suites write kernels (it is then compiled as
    with --gpuverify-annotations); '' when none, or when it defines them itself."""
    try:
        text = Path(source).read_text(errors="replace")
    except OSError:
        return ""
    found = _ANNOTATION.search(text)
    return "" if found is None or _DEFINES_ANNOTATION.search(text) else f"__{found.group(1)}"


def stood_in(deps: list[str]) -> str:
    """What the files a compiler read (`deps`) took from Simulee's stand-ins for headers
    the bundled libraries lack (STAND_INS), or ''."""
    folder = os.path.realpath(STAND_INS) + os.sep
    names = sorted({os.path.relpath(os.path.realpath(dep), folder) for dep in deps
                    if os.path.realpath(dep).startswith(folder)})
    return "stand-ins for " + ", ".join(f"{name} ({STAND_IN_MEANING.get(name, 'declarations only')})"
                                        for name in names) if names else ""


STAND_IN_MEANING = {"omp.h": "one thread, #pragma omp ignored", "error.h": "as glibc's", "execinfo.h": "no backtraces"}


def degradation(ir: str) -> str:
    """What a source was compiled without (missing headers, host code), or ''."""
    first = ir[:ir.find("\n")] if ir.startswith("; simulee: degraded: ") else ""
    return first.removeprefix("; simulee: degraded: ")


def run_compiler(command: list[str], timeout: float | None, path: Path | None = None) -> subprocess.CompletedProcess:
    """Run the compiler in a process group of its own; past `timeout` seconds the whole
    group is killed (no compiler outlives its time), and so it is when this process dies."""
    prctl = _prctl()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True, preexec_fn=prctl and (lambda: prctl(1, signal.SIGKILL)))
    except OSError as error:
        raise SimuleeError(f"cannot run {command[0]}: {error.strerror}") from None
    _running.add(process)
    try:
        out, err = process.communicate(timeout=timeout)
    except BaseException as error:  # the timeout, or an interruption: nothing stays behind
        _kill_group(process)
        process.communicate()
        if isinstance(error, subprocess.TimeoutExpired):
            raise SimuleeError(f"{path or command[0]}: the compiler did not finish within {timeout:.3g} s") from None
        raise
    finally:
        _running.discard(process)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


_running: set[subprocess.Popen] = set()  # compilers running now


def stop_compilers() -> None:
    """Kill every compiler this process is running, with the processes they started (for a
    worker that is being stopped)."""
    for process in list(_running):
        _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@functools.cache
def _prctl():
    """Linux's prctl, looked up before any fork: the compiler calls prctl(PR_SET_PDEATHSIG,
    SIGKILL) to be killed when the process that started it dies. None elsewhere."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def confinement(clang: Clang, options: CompileOptions) -> list[str] | None:
    """The folders a confined compilation may read: the ones the options allow, Simulee's
    headers and the compiler's own (None when the compilation is not confined)."""
    if options.confine is None:
        return None
    own = [str(INCLUDE_DIR), *toolkit.include_dirs(), *compiler_folders(clang, options.timeout)]
    return sorted({os.path.realpath(folder) for folder in (*options.confine, *options.include_dirs, *own)})


@functools.cache
def compiler_folders(clang: Clang, timeout: float | None = None) -> tuple[str, ...]:
    """The compiler's own header folders: ziglang's library folder, or a system clang's
    resource folder and the system include folders it searches by default."""
    if clang.bundled:
        return (clang.resource_dir,)
    done = run_compiler([*clang.command, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                         f"--cuda-gpu-arch={DEFAULT_ARCH}", "-E", "-v", "/dev/null"], timeout)
    resource = run_compiler([*clang.command, "-print-resource-dir"], timeout).stdout.strip()
    lines = done.stderr.splitlines()
    start = next((i for i, line in enumerate(lines) if "search starts here" in line), len(lines))
    folders = [line.strip() for line in lines[start + 1:] if line.startswith(" ")]
    return tuple(folders + ([resource] if resource else []))


def _diagnosed_files(diagnostics: str, folder: Path, scratch: str) -> list[str]:
    """The files a compiler's diagnostics quote (file:line:col: ..., In file included from),
    but Simulee's own scratch files."""
    names = re.findall(r"^(?:In file included from |\s*from )?([^\s:][^:\n]*):\d+(?::\d+)?[:,]", diagnostics,
                       re.MULTILINE)
    files = [os.path.realpath(folder / name) for name in names]
    return [file for file in files if not file.startswith(os.path.realpath(scratch))]


def _confined(files: list[str], allowed: list[str], path: Path) -> None:
    """Refuse a compilation that read a file outside the allowed folders."""
    for file in files:
        real = os.path.realpath(file)
        if not any(real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in allowed):
            raise SimuleeError(f"{path}: include outside the repository: {file} (pass -I for its folder to allow it)")


def clang_arguments(clang: Clang, source: Path, options: CompileOptions, host: bool = False) -> list[str]:
    """The driver arguments that compile `source` (the last of them) to device IR text on
    stdout (with `host`, to host IR with line tables; a C source's as C, as gcc would)."""
    if host and source.suffix == ".c":
        return _c_arguments(clang, source, options)
    arguments = [
        "-x", "cuda",
        "--cuda-host-only" if host else "--cuda-device-only",
        f"--cuda-gpu-arch={options.arch}",
        "-nocudainc",
        "-nocudalib",
        "-O1",
        "-Xclang", "-disable-llvm-passes",
        # Device: full debug info (parameter names and types, not only line tables).
        *(["-gline-tables-only", "-fno-exceptions"] if host else ["-g", "-Xclang", "-debug-info-kind=constructor"]),
        "-Xclang", "-fcuda-allow-variadic-functions",
        "-Wno-unknown-cuda-version",
        *DIALECT,
        "-ferror-limit=0",  # every error: the count is true, and salvage sees them all at once
        "-S", "-emit-llvm",
    ]
    if clang.bundled:
        arguments += _bundled_library_arguments(clang)
    arguments += ["-isystem", str(INCLUDE_DIR)]
    for directory in toolkit.include_dirs():
        arguments += ["-isystem", directory]
    arguments += ["-idirafter", str(STAND_INS), "-include", str(PRELUDE)]
    if options.gpuverify_annotations or uses_annotations(source):
        arguments += ["-include", str(GPUVERIFY_ANNOTATIONS)]
    for directory in options.include_dirs:
        arguments += ["-I", str(Path(directory).resolve())]
    arguments += ["-I", str(source.parent)]
    arguments += [f"-D{define}" for define in options.defines]
    arguments += options.clang_args
    arguments.append(str(source))
    return arguments


def _c_arguments(clang: Clang, source: Path, options: CompileOptions) -> list[str]:
    """clang_arguments of a C source's host IR: C with what gcc accepts and glibc declares."""
    return ["-x", "c", "-O1", "-Xclang", "-disable-llvm-passes", "-gline-tables-only", "-ferror-limit=0", "-S",
            "-emit-llvm", *host_arguments(clang, source, options)]


def host_arguments(clang: Clang, source: Path, options: CompileOptions) -> list[str]:
    """What compiles C or C++ `source` (the last of them) for the program: musl, libc++ and
    the toolkit's headers, stand-ins for what is missing, the options' folders and macros."""
    arguments = [*_bundled_library_arguments(clang), *(GCC_C_LENIENCE if source.suffix == ".c" else DIALECT)]
    for directory in toolkit.include_dirs():
        arguments += ["-isystem", directory]
    arguments += ["-idirafter", str(STAND_INS), "-include", str(GLIBC_TRANSITIVE)]
    for directory in options.include_dirs:
        arguments += ["-I", str(Path(directory).resolve())]
    return arguments + ["-I", str(source.parent), *[f"-D{d}" for d in options.defines], *options.clang_args,
                        str(source)]


def _bundled_library_arguments(clang: Clang) -> list[str]:
    """Use ziglang's clang builtin headers, musl and libc++ instead of the host system's, so
    compilation does not depend on what is installed on the machine."""
    folders = _bundled_system_folders(clang.resource_dir)
    return ["-resource-dir", clang.resource_dir, "-nostdinc",
            *(argument for folder in folders for argument in ("-isystem", folder)), *LIBCXX_CONFIG]


def _bundled_system_folders(resource_dir: str) -> list[str]:
    """The system header folders of ziglang's library (libc++, clang's builtin headers, musl, Linux's),
    Simulee's own versions of some of musl's (LIBC_OVERRIDES) before musl's."""
    lib = Path(resource_dir)
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    libc = lib / "libc" / "include"
    family = {"x86_64": "x86", "i386": "x86", "i686": "x86"}.get(arch, arch)  # Linux's own headers (asm/...)
    return [str(folder) for folder in (lib / "libcxx" / "include", lib / "include", LIBC_OVERRIDES,
                                       libc / f"{arch}-linux-musl",
                                       libc / "generic-musl", libc / f"{family}-linux-any", libc / "any-linux-any")
            if folder.is_dir()]


@functools.cache
def system_header(name: str) -> bool:
    """Whether `name` (as an #include names it) is a header of the C and C++ libraries or of
    CUDA that every compilation finds (a repository's own file of that name must not stand
    in for it)."""
    clang = find_clang()
    folders = [str(INCLUDE_DIR), *toolkit.include_dirs()]
    folders += _bundled_system_folders(clang.resource_dir) if clang.bundled else list(compiler_folders(clang))
    return any(Path(folder, name).is_file() for folder in folders)


def find_clang(explicit: str | None = None) -> Clang:
    """The clang to compile with: `explicit`, else $SIMULEE_CLANG, else ziglang's."""
    return _clang_named(explicit or os.environ.get("SIMULEE_CLANG") or None)


@functools.cache
def _clang_named(name: str | None) -> Clang:
    if name:
        found = shutil.which(name)
        if not found:
            raise SimuleeError(f"clang not found: {name}")
        try:
            result = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SimuleeError(f"cannot run {found}: {error}") from None
        if result.returncode != 0 or "clang" not in result.stdout:
            raise SimuleeError(f"{found} is not a clang compiler")
        return Clang((found,), result.stdout.splitlines()[0])
    import importlib.util

    spec = importlib.util.find_spec("ziglang")
    if spec is None or not spec.submodule_search_locations:
        raise SimuleeError("the ziglang package is not installed; reinstall simulee or pass --clang PATH")
    root = Path(list(spec.submodule_search_locations)[0])
    zig = root / ("zig.exe" if os.name == "nt" else "zig")
    return Clang((str(zig), "clang"), f"ziglang {_installed_version(root)}", str(root / "lib"))


def _installed_version(package: Path) -> str:
    """The version of the installed package in folder `package`: from its .dist-info folder
    beside it (one listing; importlib.metadata scans every distribution), else importlib's."""
    prefix = package.name + "-"
    found = [name for name in os.listdir(package.parent) if name.startswith(prefix) and name.endswith(".dist-info")]
    if len(found) == 1:
        return found[0][len(prefix):-len(".dist-info")]
    import importlib.metadata

    return importlib.metadata.version(package.name)


@functools.cache
def _frontend_fingerprint() -> str:
    """A hash of the modules that produce IR, so that changing them invalidates the cache
    (mathlib and intrinsics: what they compute decides what libdevice links)."""
    from interpreter import intrinsics, mathlib, rounding
    from simulee.frontend import device_library, ptx

    modules = (sys.modules[__name__], device_library, passes, ptx, salvage, mathlib, intrinsics, rounding)
    return "".join(file_digest(module.__file__) or "" for module in modules)


def _read_depfile(path: Path) -> list[str]:
    """The prerequisites of a Make-style dependency file written by clang -MD."""
    try:
        text = path.read_text()
    except OSError:
        return []
    text = text.replace("\\\n", " ")
    _, _, prerequisites = text.partition(": ")
    deps, current, chars = [], [], iter(prerequisites)
    for char in chars:
        if char == "\\":
            current.append(next(chars, ""))
        elif char.isspace():
            if current:
                deps.append("".join(current))
                current = []
        else:
            current.append(char)
    if current:
        deps.append("".join(current))
    return [str(Path(dep).resolve()) for dep in deps]


def _first_error(stderr: str, path: Path) -> str:
    """The first error diagnostic of the compiler's output (`file:line:col: message`,
    without its own "error:"), with a count of the rest."""
    lines = [line for line in stderr.splitlines() if not line.startswith("zig: warning:")]
    errors = [line for line in lines if ": error: " in line or ": fatal error: " in line]
    if not errors:
        detail = next((line for line in lines if line.strip()), "the compiler failed without a message")
        return f"{path}: {detail}"
    more = len(errors) - 1
    first = re.sub(r": (?:fatal )?error: ", ": ", errors[0], count=1)
    return first + (f" (and {more} more error{'s' if more > 1 else ''})" if more else "")
