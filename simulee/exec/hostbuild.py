"""Build a CUDA program's host side into a native executable for `simulee exec`.

Each .cu file is compiled for the host by the same clang and headers as its device side
(frontend.clang_arguments) to an object file, with a stand-in GPU binary so that clang
registers its kernels and device variables as nvcc's code does; other C and C++ files are
compiled as they are. They are linked, statically against ziglang's musl and libc++, with
Simulee's CUDA runtime (simulee/exec/runtime) instead of NVIDIA's libcudart: no system compiler,
linker or CUDA is used. The runtime itself is built once per toolkit and compiler, with a
weak stub returning cudaErrorNotSupported (CUDA_ERROR_NOT_SUPPORTED) for every other
function the toolkit's runtime and driver API headers declare.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from elftools.elf.elffile import ELFFile

from simulee.frontend import toolkit
from simulee.errors import CompileError, SimuleeError
from simulee.frontend.cache import code_digest, digest, file_digest, write_atomically
from simulee.frontend.compiler import (CompileOptions, _bundled_library_arguments, _read_depfile, clang_arguments,
                                      find_clang, host_arguments, stood_in)
from simulee.frontend.salvage import _CURAND_BUILTINS, _DEVICE_LAUNCH, Salvage, unspaced_launches

RUNTIME_DIR = Path(__file__).parent / "runtime"
RUNTIME_SOURCES = ("cudart.cpp", "device.cpp", "textures.cpp", "graphs.cpp")
HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c")
CUDA_SUFFIXES = (".cu",)
BUILD_TIMEOUT = 600.0


def build(sources: list[Path], options: CompileOptions, folder: Path, say=None) -> tuple[Path, list[str]]:
    """The executable of `sources` (.cu and C/C++ files) in `folder`, and what each source
    was built without ("file: stand-ins for omp.h (...)"); SimuleeError with the compiler's
    first error when one does not compile or the program does not link. `say(text)` hears
    of the runtime's build, the first time."""
    clang = find_clang(options.clang)
    if not clang.bundled:
        raise SimuleeError("simulee exec builds programs with ziglang's clang only (drop --clang / SIMULEE_CLANG)")
    folder.mkdir(parents=True, exist_ok=True)
    key = _build_key(clang, sources, options)
    kept = _kept_build(key, folder)
    if kept is not None:
        return kept
    executable, degraded = _build(clang, sources, options, folder, say)
    _keep_build(key, executable, degraded, sources, folder)
    return executable, degraded


def _build(clang, sources: list[Path], options: CompileOptions, folder: Path, say) -> tuple[Path, list[str]]:
    stand_in = folder / "gpu-binary.stand-in"
    stand_in.write_bytes(b"\0" * 16)
    compiled = [compile_object(clang, source, options, folder / f"{index}-{source.stem}.o", stand_in)
                for index, source in enumerate(sources)]
    objects = [path for path, _ in compiled]
    standing_in = [stood_in(_read_depfile(path.with_suffix(".d"))) for path, _ in compiled]
    degraded = [f"{source}: {'; '.join(filter(None, (without, stand_ins)))}"
                for source, (_, without), stand_ins in zip(sources, compiled, standing_in) if without or stand_ins]
    objects += linked_binaries(clang, objects, folder)
    executable = folder / "program"
    runtime = runtime_objects(clang, say)
    if say and not (_cache_folder() / "linked-once").exists():
        say("linking: the first link builds musl and libc++ for the program into ziglang's cache (a few minutes)")
    run_tool([*clang.command[:-1], "c++", *target(), "-g", "-o", str(executable), *map(str, objects),
              *map(str, runtime)], "link")
    (_cache_folder() / "linked-once").touch()
    return executable, degraded


def _build_key(clang, sources: list[Path], options: CompileOptions) -> str:
    """What a build is found by before it runs (what it read is checked after: _kept_build):
    Simulee's code, the runtime's key (its sources, the compiler, the toolkit), the options
    and the sources' paths."""
    described = [code_digest(), runtime_key(clang), repr(options), [os.path.abspath(source) for source in sources]]
    return digest(json.dumps(described).encode())


def _kept_build(key: str, folder: Path) -> tuple[Path, list[str]] | None:
    """The kept build of `key` copied into `folder` as its executable, and what its sources
    were built without; None when there is none (see `kept`)."""
    found = kept(key)
    if found is None:
        return None
    program, manifest = found
    executable = folder / "program"
    executable.write_bytes(program)
    executable.chmod(0o755)
    return executable, list(manifest.get("degraded", []))


def _keep_build(key: str, executable: Path, degraded: list[str], sources: list[Path], folder: Path) -> None:
    """Keep a build with the digests of every file it read (its sources and what their
    depfiles list, less what the build made in `folder`)."""
    made = os.path.realpath(folder)
    read = {os.path.abspath(source) for source in sources}
    for depfile in folder.glob("*.d"):
        read |= {os.path.abspath(path) for path in _read_depfile(depfile)
                 if not os.path.realpath(path).startswith(made + os.sep)}
    try:
        keep(key, executable.read_bytes(), read, degraded=degraded)
    except OSError:
        pass


def object_key(clang, source: Path, language: str, options: CompileOptions) -> str:
    """What simulee-nvcc's object of `source` is found by before it compiles (what it read
    is checked after: `kept`): Simulee's code, the runtime's key, the language, the
    options and the source's path."""
    described = [code_digest(), runtime_key(clang), "object", language, repr(options), os.path.abspath(source)]
    return digest(json.dumps(described).encode())


def kept(key: str) -> tuple[bytes, dict] | None:
    """What was kept under `key` (a build's executable, an object) and its manifest, while
    every file it read is unchanged; None when there is none, a file it read changed
    since, or it is damaged."""
    folder = _cache_folder() / "builds" / key
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        data = (folder / "kept").read_bytes()
        if digest(data) != manifest["digest"] or any(file_digest(path) != value
                                                     for path, value in manifest["read"].items()):
            return None
        return data, manifest
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def keep(key: str, data: bytes, read: set[str], **facts) -> None:
    """Keep `data` under `key` with the digests of the files it was made from (`read`) and
    `facts` (JSON) for who takes it; an unwritable cache keeps nothing."""
    folder = _cache_folder() / "builds" / key
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(folder / "kept", data)
        write_atomically(folder / "manifest.json", json.dumps(
            {**facts, "digest": digest(data), "read": {path: file_digest(path) for path in sorted(read)}}).encode())
    except OSError:
        pass


def compile_object(clang, source: Path, options: CompileOptions, output: Path, stand_in: Path) -> tuple[Path, str]:
    """The object file of `source` and what it was compiled without ('' when nothing)."""
    suffix = source.suffix.lower()
    salvage = _as_nvcc_reads(source, output.with_suffix(".salvage"))
    if suffix in CUDA_SUFFIXES:
        arguments = clang_arguments(clang, source, replace(options, clang_args=()), host=True)
        arguments = _object_arguments(arguments)
        arguments[-1:-1] = ["-Xclang", "-fcuda-include-gpubinary", "-Xclang", str(stand_in), *options.clang_args]
    elif suffix in HOST_SUFFIXES:
        language = "c" if suffix == ".c" else "c++"
        arguments = ["-x", language, "-O1", "-g", *host_arguments(clang, source, options)]
    else:
        raise SimuleeError(f"{source}: not a source simulee exec builds (.cu, .cpp, .cc, .cxx, .c)")
    arguments[-1:-1] = ["-fwrapv"]  # signed overflow wraps, as the programs' own checks tend to expect
    arguments[-1:-1] = ["-MD", "-MF", str(output.with_suffix(".d"))]  # what it read: the stand-ins it took
    first = None  # the error the source gave before salvage changed it: the one to report
    while True:  # each retry adds what one kind of error asks, once
        try:
            run_tool([*clang.command, *target(), "-c", "-o", str(output), *arguments[:-1], *salvage.arguments(),
                      arguments[-1]], str(source))
            return output, salvage.describe(source.parent)
        except CompileError as error:
            first = first or error
            if _CURAND_BUILTINS.search(str(error)) and "-D__SIMULEE_CURAND_BUILTINS" not in arguments:
                # curand_mtgp32_kernel.h redeclares blockDim and threadIdx: included first, as the prelude can
                arguments[-1:-1] = ["-D__SIMULEE_CURAND_BUILTINS"]
            elif _DEVICE_LAUNCH in str(error) and "-fgpu-rdc" not in arguments:
                # dynamic parallelism: relocatable device code, registered as nvcc's linked binaries are
                arguments[-1:-1] = ["-fgpu-rdc", "--no-offload-new-driver"]
            elif not _salvaged(salvage, error.diagnostics):
                raise first from None


def _salvaged(salvage: Salvage, diagnostics: str) -> bool:
    """Whether `salvage` changed what the compiler sees to get past `diagnostics` as a scan
    does (a missing header stood in for, what it declared made opaque or doing nothing,
    host functions that then fail left out: a program that only draws optionally), but
    never by leaving out `main`: a program without it would do nothing."""
    return salvage.answer(diagnostics) and not any(name == "main" for _, name, _ in salvage.left_out)


# OpenMP: a program runs on one thread (the omp.h stand-in), so its flags and libraries go
OPENMP_FLAGS = re.compile(r"^(-f(no-)?openmp(=.*)?|-fopenmp-simd|-qopenmp|-openmp|-l(gomp|omp|iomp5))$")

def _as_nvcc_reads(source: Path, scratch: Path) -> Salvage:
    """What makes clang read `source` as nvcc does, from edited copies under their own names
    (salvage.unspaced_launches: `k << < grid, block >> > (...)`), and then compile it as a
    scan would (_salvaged): the source's folder is the program's, which it may edit."""
    scratch.mkdir(parents=True, exist_ok=True)
    salvage = Salvage(scratch, (os.path.realpath(source.parent),), host=True)
    text = source.read_text(errors="replace")
    if source.suffix.lower() in CUDA_SUFFIXES and unspaced_launches(text) != text:
        salvage.texts[os.path.abspath(source)] = unspaced_launches(text)
    return salvage


def linked_binaries(clang, objects: list[Path], folder: Path) -> list[Path]:
    """An object defining the registration each relocatable-device-code object calls
    (__cudaRegisterLinkedBinary_<module>, which nvcc's device link generates): it calls the
    module's registration of its kernels and variables."""
    defined = {name for path in objects for name in _symbols(path, defined=True)}  # by a device link's object
    names = sorted({name for path in objects for name in _symbols(path)
                    if name.startswith("__cudaRegisterLinkedBinary_") and name not in defined})
    if not names:
        return []
    source = folder / "linked-binaries.c"
    source.write_text("".join(
        f"void {name}(void (*registration)(void **), void *binary, void *prelinked, void (*dummy)(void *)) {{\n"
        f"  static void *handle;\n  registration(&handle);\n}}\n" for name in names))
    output = folder / "linked-binaries.o"
    run_tool([*clang.command, *target(), "-x", "c", "-c", "-o", str(output), str(source)], "linked binaries")
    return [output]


def _symbols(path: Path, defined: bool = False) -> list[str]:
    """The names of the symbols an object file uses but does not define (with `defined`,
    those it defines)."""
    with path.open("rb") as handle:
        symbols = ELFFile(handle).get_section_by_name(".symtab")
        return [symbol.name for symbol in symbols.iter_symbols() if (symbol["st_shndx"] == "SHN_UNDEF") != defined] \
            if symbols else []


def _object_arguments(arguments: list[str]) -> list[str]:
    """Driver arguments that emit IR (frontend.clang_arguments) made to emit an object with
    line tables, optimized, and C++ exceptions on (host code may throw)."""
    out, skip = [], False
    for index, argument in enumerate(arguments):
        if skip:
            skip = False
            continue
        if argument in ("-S", "-emit-llvm", "-fno-exceptions"):
            continue
        if argument == "-Xclang" and arguments[index + 1] == "-disable-llvm-passes":
            skip = True
            continue
        out.append(argument)
    return out


def target() -> list[str]:
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    return ["-target", f"{arch}-linux-musl"]


def run_tool(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SimuleeError(f"{what}: the compiler took more than {BUILD_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        lines = done.stderr.splitlines()
        # the compiler's first diagnosed error (a fatal one first), not a source line that says "error"
        errors = [line for line in lines if ": fatal error: " in line] or \
            [line for line in lines if re.search(r": error: |^error: |^ld\.lld: error", line)] or \
            [line for line in lines if "error" in line]
        raise CompileError(f"{what}: {errors[0] if errors else done.stderr.strip()[-400:] or 'failed'}", done.stderr)


# ---------------------------------------------------------------------- the runtime


def runtime_objects(clang, say=None) -> list[Path]:
    """Simulee's CUDA runtime as object files, built on first use into the cache folder
    (`say(text)` hears of each step then)."""
    folder = _cache_folder() / f"runtime-{runtime_key(clang)}"
    names = [*(Path(name).with_suffix(".o").name for name in RUNTIME_SOURCES), "stubs.o", "errors.o"]
    if all((folder / name).is_file() for name in names):
        return [folder / name for name in names]
    scratch = Path(tempfile.mkdtemp(prefix="runtime-", dir=_cache_folder()))
    steps = len(RUNTIME_SOURCES) + 2
    say = say or (lambda text: None)
    try:
        headers = ["-isystem", *_interleave("-isystem", toolkit.include_dirs()), "-I", str(RUNTIME_DIR)]
        cxx = ["-x", "c++", "-std=c++17", "-O1", "-fno-exceptions", *_bundled_library_arguments(clang), *headers]
        for step, name in enumerate(RUNTIME_SOURCES, 1):
            say(f"building Simulee's CUDA runtime, once for this toolkit and compiler ({step}/{steps}: {name})")
            run_tool([*clang.command, *target(), "-c", "-o", str(scratch / Path(name).with_suffix(".o").name),
                      *cxx, str(RUNTIME_DIR / name)], f"simulee's runtime ({name})")
        (scratch / "stubs.c").write_text(_stubs(clang))
        (scratch / "errors.c").write_text(_error_names())
        for step, name in enumerate(("stubs", "errors"), len(RUNTIME_SOURCES) + 1):
            say(f"building Simulee's CUDA runtime ({step}/{steps}: {name}.c)")
            run_tool([*clang.command, *target(), "-x", "c", "-O1", "-c", "-o", str(scratch / f"{name}.o"),
                      str(scratch / f"{name}.c")], f"simulee's runtime ({name}.c)")
        try:
            scratch.rename(folder)
        except OSError:  # another process built it first
            shutil.rmtree(scratch, ignore_errors=True)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)
    return [folder / name for name in names]


def runtime_key(clang) -> str:
    """What the built runtime depends on: its sources, the compiler and the toolkit."""
    key = hashlib.sha256()
    for name in (*RUNTIME_SOURCES, "protocol.h", "runtime.h"):
        key.update((RUNTIME_DIR / name).read_bytes())
    key.update(clang.version.encode())
    key.update(toolkit.version().encode())
    return key.hexdigest()[:16]


def _interleave(flag: str, folders) -> list[str]:
    out = []
    for index, folder in enumerate(folders):
        out += [folder] if index == 0 else [flag, folder]
    return out


def _stubs(clang) -> str:
    """C source of a weak stub for every function the runtime (cudaError_t) and driver
    (CUresult) API headers declare, under the names their macros give them."""
    declared = _preprocessed(clang, "#include <cuda_runtime_api.h>\n#include <cuda.h>\n")
    runtime = sorted(set(re.findall(r"\bcudaError_t\s+(cuda\w+)\s*\(", declared)))
    driver = sorted(set(re.findall(r"\bCUresult\s+(cu\w+)\s*\(", declared)))
    lines = ["int __simulee_unsupported(const char *name);"]
    for name in runtime:
        shown = re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", name)
        lines.append(f'__attribute__((weak)) int {name}(void) {{ return __simulee_unsupported("{shown}"); }}')
    for name in driver:
        shown = re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", name)
        lines.append(f'__attribute__((weak)) int {name}(void) {{ __simulee_unsupported("{shown}"); return 801; }}')
    return "\n".join(lines) + "\n"


def _preprocessed(clang, text: str) -> str:
    command = [*clang.command, *target(), "-x", "c++", "-E", *_bundled_library_arguments(clang),
               *[arg for folder in toolkit.include_dirs() for arg in ("-isystem", folder)], "-"]
    done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    if done.returncode != 0:
        raise SimuleeError(f"cannot read the CUDA runtime's header: {done.stderr.strip()[:300]}")
    return done.stdout


def _error_names() -> str:
    """C source of simulee_error_name: each cudaError_t's name, from driver_types.h."""
    header = (toolkit.toolkit_root() / "cuda_runtime" / "include" / "driver_types.h").read_text(errors="replace")
    names: dict[int, str] = {}
    for name, value in re.findall(r"^\s*(cuda(?:Success|Error\w+))\s*=\s*(\d+)", header, re.M):
        names.setdefault(int(value), name)
    cases = "".join(f'    case {value}: return "{name}";\n' for value, name in sorted(names.items()))
    return (f"const char *simulee_error_name(int error) {{\n  switch (error) {{\n{cases}"
            '    default: return "unrecognized error code";\n  }\n}\n')


def _cache_folder() -> Path:
    from simulee.frontend.cache import cache_root

    folder = cache_root() / "exec"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
