"""simulee-nvcc, simulee-cc and simulee-c++: the compilers a CUDA project's own build runs.

simulee-nvcc reads nvcc's command line as build files write it and builds with ziglang's
clang against NVIDIA's headers, as `exec` does (hostbuild): a .cu source's object carries
its device IR as the GPU binary clang embeds (standalone.framed), and executables link
Simulee's CUDA runtime, which starts Simulee's device on the program's first CUDA call
(standalone.py). simulee-cc and simulee-c++ compile host-only sources and link, for the
same musl and libc++, so no system compiler is used. For CMake, the three answer as
NVIDIA's nvcc and clang do, with a CUDA toolkit folder (`toolkit_folder`) whose lib64
holds the runtime as libcudart_static.a. A library other than the runtime (-lcurand,
-lcublas, ...) links to stubs that say `not supported` at the call. A shared library is
made a static archive under its name (programs link statically against musl).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from simulee import __version__
from simulee.exec import hostbuild
from simulee.frontend import toolkit
from simulee.errors import CompileError, SimuleeError
from simulee.frontend.compiler import (DEFAULT_ARCH, DIALECT, GCC_C_LENIENCE, GLIBC_TRANSITIVE, STAND_INS,
                                      CompileOptions, find_clang, host_arguments)

HOST = {".c": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".c++": "c++", ".C": "c++"}
# nvcc's options with a value, by every name it accepts -> what the value is
VALUED = {
    "output": ("-o", "--output-file"), "include": ("-I", "--include-path"), "isystem": ("-isystem", "--system-include"),
    "define": ("-D", "--define-macro"), "undefine": ("-U", "--undefine-macro"),
    "preinclude": ("-include", "--pre-include"), "libdir": ("-L", "--library-path"), "library": ("-l", "--library"),
    "language": ("-x", "--x"), "std": ("-std", "--std"), "arch": ("-arch", "--gpu-architecture"),
    "code": ("-code", "--gpu-code"), "gencode": ("-gencode", "--generate-code"),
    "xcompiler": ("-Xcompiler", "--compiler-options"), "xlinker": ("-Xlinker", "--linker-options"),
    "depfile": ("-MF", "--dependency-output"), "deptarget": ("-MT", "--dependency-target-name"),
    "rdc": ("-rdc", "--relocatable-device-code"), "odir": ("-odir", "--output-directory"),
    "ccbin": ("-ccbin", "--compiler-bindir"),  # (-optf, --options-file: read in place, _expanded)
    "ignored": ("-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xarchive", "--archive-options",
                "-Xcudafe", "-Xfatbin", "--fatbin-options", "-maxrregcount", "--maxrregcount", "-keep-dir",
                "--keep-dir", "-t", "--threads", "-m", "--machine", "-ftz", "--ftz", "-prec-div", "--prec-div",
                "-prec-sqrt", "--prec-sqrt", "-fmad", "--fmad", "-default-stream", "--default-stream", "-cudart",
                "--cudart", "-cudadevrt", "--cudadevrt", "-diag-suppress", "--diag-suppress", "-diag-warn",
                "--diag-warn", "-diag-error", "--diag-error", "-Werror", "--Werror", "-split-compile",
                "--split-compile", "-time", "--time", "-Xlto", "--lto-options", "-Xnvvm", "--nvvm-options",
                "-Xptx", "-static-global-template-stub", "--static-global-template-stub", "-target-dir",
                "--target-directory", "-allow-unsupported-compiler", "-dopt", "--dopt", "-jump-table-density",
                "-ptxas-options", "-nvlink-options", "-compiler-options", "-linker-options",
                "-host-stub-linkage-explicit"),
}
NAMES = {name: key for key, names in VALUED.items() for name in names}
ATTACHED = ("-I", "-D", "-U", "-L", "-l", "-o")  # names whose value may follow with no space: -Ifolder
LISTS = ("include", "isystem", "define", "undefine", "libdir", "library", "xcompiler", "xlinker", "code")
FLAGS = {
    "compile": ("-c", "--compile"), "device_c": ("-dc", "--device-c"), "device_w": ("-dw", "--device-w"),
    "dlink": ("-dlink", "--device-link"), "lib": ("-lib", "--lib"), "preprocess": ("-E", "--preprocess"),
    "deps": ("-M", "--generate-dependencies", "-MM", "--generate-nonsystem-dependencies"),
    "deps_compile": ("-MD", "--generate-dependencies-with-compile", "-MMD",
                     "--generate-nonsystem-dependencies-with-compile"),
    "verbose": ("-v", "--verbose"), "version": ("-V", "--version"), "help": ("-h", "--help"),
    "shared": ("-shared", "--shared"), "device_ir": ("-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin"),
    "forward": ("-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", "-forward-unknown-opts",
                "--forward-unknown-opts"),
    "ignored": ("-G", "--device-debug", "-g", "--debug", "-lineinfo", "--generate-line-info", "-w",
                "--disable-warnings", "--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--expt-extended-lambda",
                "-expt-extended-lambda", "--extended-lambda", "-extended-lambda", "-use_fast_math", "--use_fast_math",
                "-keep", "--keep", "-link", "--link", "-MP", "--generate-dependency-targets", "-restrict",
                "--restrict", "-lto", "-dlto", "-pg", "--profile", "-res-usage", "--resource-usage", "-noprof",
                "--no-profile", "-src-in-ptx", "--source-in-ptx", "-Wno-deprecated-gpu-targets",
                "-Wno-deprecated-declarations", "-Wreorder", "-Wdefault-stream-launch", "-Wext-lambda-captures-this",
                "-Wmissing-launch-bounds", "--dryrun", "-dryrun", "-extra-device-vectorization",
                "--extra-device-vectorization", "-nohdinitlist", "--no-host-device-initializer-list",
                "-no-host-device-move-forward", "--display-error-number", "-err-no",
                "--no-display-error-number", "-no-compress", "--no-compress", "-Wno-unknown-pragmas",
                "--keep-device-functions", "-keep-device-functions", "-qpp-config"),
}
FLAG_NAMES = {name: key for key, names in FLAGS.items() for name in names}
# what -Xcompiler may give clang: preprocessor, warning and code-model flags (the rest is the host compiler's own)
HOST_FLAGS = re.compile(r"^(-[DUI].*|-isystem.*|-include.*|-std=.*|-W(?!error).*|-f(no-)?(PIC|pic|PIE|pie|"
                        r"exceptions|rtti|strict-aliasing|visibility.*|permissive|signed-char|unsigned-char)|-pthread)$")
RUNTIME_LIBRARIES = ("cudart", "cudart_static", "cudadevrt", "cuda", "culibos", "rt", "pthread", "dl", "m",
                     "stdc++", "gcc", "gcc_s", "gcc_eh", "c", "c++", "atomic")
# the libraries of the toolkit whose functions link to stubs, by the prefixes of their functions' names
STUBBED = {"curand": ("curand",), "cublas": ("cublas",), "cublasLt": ("cublasLt",), "cufft": ("cufft",),
           "cusparse": ("cusparse",), "cusolver": ("cusolver",), "nvToolsExt": ("nvtx",), "nvrtc": ("nvrtc",),
           "nvjpeg": ("nvjpeg",), "cudnn": ("cudnn",), "nccl": ("nccl",), "nppc": ("npp",), "npps": ("npp",),
           "nppi": ("npp",), "nvjitlink": ("nvJitLink",), "cupti": ("cupti",)}
# OpenGL and the window system's libraries, which a program links for its display (a call of one fails the link
# as an undefined symbol, which names it): a static musl program cannot link the system's
GRAPHICS_LIBRARIES = {"GL", "GLU", "glut", "GLEW", "X11", "Xi", "Xmu", "Xext", "EGL", "OpenGL"}
OLDEST_ARCH = 50  # the oldest GPU CUDA 12 compiles for (Maxwell)
# the C and C++ libraries' own files as CMake finds them on the system (glibc's): musl and libc++ are linked instead
SYSTEM_LIBRARY = re.compile(r"^lib(rt|pthread|dl|m|c|stdc\+\+|gcc_s|gcc|atomic)\.(so(\.[0-9.]+)?|a)$")
IMPLICIT_LIBRARIES = ("-lcudadevrt", "-lcudart_static", "-lrt", "-lpthread", "-ldl")  # what nvcc's link adds
NVCC_ID_SOURCE = "CMakeCUDACompilerId.cu"  # CMake's identification: it must see nvcc's macros


def main(argv: list[str] | None = None) -> int:
    """simulee-nvcc."""
    return _entry(lambda: Nvcc(sys.argv[1:] if argv is None else argv).run(), "simulee-nvcc")


def main_cc(argv: list[str] | None = None) -> int:
    """simulee-cc: ziglang's clang as a C compiler and linker for the runtime's programs."""
    return _entry(lambda: host_compiler("c", sys.argv[1:] if argv is None else argv), "simulee-cc")


def main_cxx(argv: list[str] | None = None) -> int:
    """simulee-c++: ziglang's clang as a C++ compiler and linker for the runtime's programs."""
    return _entry(lambda: host_compiler("c++", sys.argv[1:] if argv is None else argv), "simulee-c++")


def _entry(run, name: str) -> int:
    try:
        return run()
    except CompileError as error:
        sys.stderr.write(error.diagnostics if getattr(error, "diagnostics", "") else f"{name}: error: {error}\n")
        return 1
    except SimuleeError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2


def _expanded(arguments: list[str]) -> list[str]:
    """`arguments` with response files (@file, --options-file file) read in place."""
    out, index = [], 0
    while index < len(arguments):
        argument = arguments[index]
        path = None
        if argument.startswith("@") and len(argument) > 1:
            path = argument[1:]
        elif argument in ("-optf", "--options-file") and index + 1 < len(arguments):
            path, index = arguments[index + 1], index + 1
        elif argument.startswith(("-optf=", "--options-file=")):
            path = argument.split("=", 1)[1]
        if path is None:
            out.append(argument)
        else:
            try:
                out += _expanded(shlex.split(Path(path).read_text()))
            except (OSError, ValueError) as error:
                raise SimuleeError(f"cannot read the options file {path}: {error}") from None
        index += 1
    return out


def _split_list(value: str) -> list[str]:
    """nvcc's comma-separated list value, commas inside quotes or parentheses kept."""
    parts, depth, quote, current = [], 0, "", ""
    for char in value:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return [part for part in [*parts, current] if part]


@dataclass
class Command:
    """An nvcc command line, read."""

    values: dict[str, list[str]] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (path, language: cuda, c, c++, or linked)
    unknown: list[str] = field(default_factory=list)

    def value(self, key: str, default: str | None = None) -> str | None:
        return self.values[key][-1] if self.values.get(key) else default


def parse(arguments: list[str]) -> Command:
    """Read nvcc's command line; SimuleeError for a missing value."""
    command, language, index = Command(), None, 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if not argument.startswith("-") or argument == "-":
            command.inputs.append((argument, _language(argument, language)))
            continue
        name, equals, value = argument.partition("=")
        key = NAMES.get(name)
        if key is None:
            attached = next((a for a in ATTACHED if argument.startswith(a) and len(argument) > len(a)), None)
            if attached and argument not in FLAG_NAMES and not argument.startswith(("-lib", "-link", "-lineinfo")):
                key, value, equals = NAMES[attached], argument[len(attached):], "="
        if key is not None:
            if not equals:
                if index >= len(arguments):
                    raise SimuleeError(f"{name} needs a value")
                value, index = arguments[index], index + 1
            if key == "language":
                language = {"cu": "cuda", "cuda": "cuda", "c": "c", "c++": "c++", "cpp": "c++", "none": None}.get(
                    value, value)
                continue
            values = _split_list(value) if key in LISTS else [value]
            command.values.setdefault(key, []).extend(values)
            continue
        flag = FLAG_NAMES.get(argument)
        if flag is not None:
            command.flags.add(flag)
        elif not re.fullmatch(r"-O\d?|--optimize(=\d)?|-Os|-Ofast", argument):  # optimizing changes nothing here
            command.unknown.append(argument)
    return command


def _language(path: str, given: str | None) -> str:
    if given:
        return given
    suffix = Path(path).suffix
    if suffix.lower() in hostbuild.CUDA_SUFFIXES:
        return "cuda"
    if suffix in HOST or suffix.lower() in HOST:
        return HOST.get(suffix, HOST.get(suffix.lower()))
    return "linked"


class Nvcc:
    """One run of simulee-nvcc."""

    def __init__(self, arguments: list[str]):
        self.arguments = _expanded(arguments)
        self.command = parse(self.arguments)
        self.verbose = "verbose" in self.command.flags
        self.warned_arch = False

    def run(self) -> int:
        command = self.command
        if "version" in command.flags:
            print(version_text())
            return 0
        if "help" in command.flags:
            print("simulee-nvcc: nvcc's command line, building for Simulee's simulated GPU (see simulee's README)")
            return 0
        for argument in command.unknown:
            if "forward" in command.flags:
                command.values.setdefault("xcompiler", []).append(argument)
            else:
                print(f"simulee-nvcc: warning: {argument}: not an nvcc option Simulee knows; ignored", file=sys.stderr)
        if self.verbose:
            self._say_environment()
        if not command.inputs:
            if self.verbose:  # CMake's question of nvcc -v: where the toolkit is (said above)
                return 0
            raise SimuleeError("no input files")
        for path, language in command.inputs:
            if language != "linked" and not Path(path).is_file():
                raise SimuleeError(f"no such file: {path}")
        if "preprocess" in command.flags or "deps" in command.flags:
            return self._preprocess()
        if "dlink" in command.flags:
            return self._device_link()
        if {"compile", "device_c", "device_w", "device_ir"} & command.flags:
            for path, language in command.inputs:
                if language != "linked":
                    self._compile(path, language, self._output(Path(path), ".o"))
            return 0
        with tempfile.TemporaryDirectory(prefix="simulee-nvcc-") as scratch:  # the objects of what it links
            objects = [self._compile(path, language, Path(scratch) / f"{number}-{Path(path).stem}.o")
                       for number, (path, language) in enumerate(command.inputs) if language != "linked"]
            objects += [Path(path) for path, language in command.inputs if language == "linked"]
            output = Path(command.value("output", "a.out"))
            if "lib" in command.flags:
                archive(objects, output)
                return 0
            return self._link(objects, output)

    # ------------------------------------------------------------------ compiling

    def options(self, source: Path) -> CompileOptions:
        """The compile options of `source` (-I, -D, what -Xcompiler gives clang, the GPU)."""
        command = self.command
        host = [flag for flag in command.values.get("xcompiler", []) if HOST_FLAGS.match(flag)]
        args = [f"-U{name}" for name in command.values.get("undefine", [])]
        for folder in command.values.get("isystem", []):
            args += ["-isystem", str(Path(folder).resolve())]
        for header in command.values.get("preinclude", []):
            args += ["-include", str(Path(header).resolve()) if Path(header).exists() else header]
        if command.value("std"):
            args.append(f"-std={command.value('std')}")
        args += [flag for flag in host if not flag.startswith(("-D", "-I"))] + ["-Wno-unknown-warning-option"]
        if source.name == NVCC_ID_SOURCE:
            major, minor, build = nvcc_version()
            args += ["-D__NVCC__", f"-D__CUDACC_VER_MAJOR__={major}", f"-D__CUDACC_VER_MINOR__={minor}",
                     f"-D__CUDACC_VER_BUILD__={build}"]
        if self._relocatable():
            args += ["-fgpu-rdc", "--no-offload-new-driver",
                     f"-cuid={hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]}"]
        includes = [*command.values.get("include", []), *(f[2:] for f in host if f.startswith("-I") and len(f) > 2)]
        defines = [*command.values.get("define", []), *(f[2:] for f in host if f.startswith("-D") and len(f) > 2)]
        return CompileOptions(include_dirs=tuple(includes), defines=tuple(defines), clang_args=tuple(args),
                              arch=self._arch())

    def _relocatable(self) -> bool:
        return bool({"device_c", "device_w"} & self.command.flags) or \
            (self.command.value("rdc", "false").lower() in ("true", "1"))

    def _arch(self) -> str:
        """The GPU compiled for: -arch's or -gencode's first real architecture (sm_70 else)."""
        candidates = [*self.command.values.get("code", []), *self.command.values.get("arch", [])]
        for gencode in self.command.values.get("gencode", []):
            candidates += re.findall(r"(?:sm|compute)_\d+a?", gencode)
        for candidate in candidates:
            found = re.search(r"(?:sm|compute)_(\d+)", candidate)
            if found and int(found.group(1)) < OLDEST_ARCH:  # an old Makefile's sm_13: no GPU of CUDA 12 has it
                if not self.warned_arch:
                    print(f"simulee-nvcc: warning: {candidate} is older than any GPU the CUDA toolkit supports; "
                          f"compiling for sm_{OLDEST_ARCH}", file=sys.stderr)
                    self.warned_arch = True
                return f"sm_{OLDEST_ARCH}"
            if found:
                return f"sm_{found.group(1)}"
        return DEFAULT_ARCH

    def _output(self, source: Path, suffix: str) -> Path:
        given = self.command.value("output")
        if given and len([i for i in self.command.inputs if i[1] != "linked"]) == 1 and \
                {"compile", "device_c", "device_w", "device_ir"} & self.command.flags:
            return Path(given)
        folder = Path(self.command.value("odir", "."))
        return folder / (source.stem + suffix)

    def _compile(self, path: str, language: str, output: Path) -> Path:
        """`output`, the object of one source (for -ptx, -cubin and -fatbin, its device IR)."""
        from simulee.frontend.compiler import compile_cuda
        from simulee.exec.standalone import framed

        source = Path(path)
        if "device_ir" in self.command.flags:  # the device code as Simulee runs it: LLVM IR text
            output = self._output(source, ".ptx")
            output.write_text(compile_cuda(source.resolve(), self.options(source)))
            return output
        options = self.options(source)
        clang = find_clang(None)
        key = hostbuild.object_key(clang, source, language, options)
        reused = hostbuild.kept(key)
        if reused is not None:  # unchanged since an earlier build made it
            self._say(f"(Simulee: {source} unchanged since it was last compiled so; its object reused)")
            output.write_bytes(reused[0])
            if "deps_compile" in self.command.flags:
                self._write_depfile(reused[1]["deps"], source, output)
            return output
        with tempfile.TemporaryDirectory(prefix="simulee-nvcc-") as scratch:
            binary = Path(scratch) / "device.bin"
            if language == "cuda":
                self._say(f"cicc (Simulee: LLVM IR for the interpreter) -arch compute_{options.arch[3:]} {source}")
                binary.write_bytes(framed(compile_cuda(source.resolve(), options)))
            else:
                binary.write_bytes(b"\0" * 16)
            as_source = source if language == "cuda" or HOST.get(source.suffix) == language else \
                _renamed(source, Path(scratch), language)
            # made in the scratch folder, with what the compiler leaves beside it (its .d, salvage's copies)
            made, _ = hostbuild.compile_object(clang, as_source.resolve(), options, Path(scratch) / "object.o",
                                               binary)
            deps = _deps(made.with_suffix(".d"), scratch)
            if "deps_compile" in self.command.flags:
                self._write_depfile(deps, source, output)
            hostbuild.keep(key, made.read_bytes(), {os.path.abspath(dep) for dep in [source, *deps]}, deps=deps)
            shutil.move(made, output)
        return output

    def _write_depfile(self, deps: list[str], source: Path, output: Path) -> None:
        """The -MD dependency file nvcc would write (its name: -MF's, else the object's .d)
        of what compiling `source` read (`deps`)."""
        target = self.command.value("deptarget", str(output))
        path = Path(self.command.value("depfile", str(output.with_suffix(".d"))))
        deps = [str(source), *[d for d in deps if os.path.realpath(d) != os.path.realpath(source)]]
        path.write_text(f"{target}: " + " \\\n ".join(dep.replace(" ", "\\ ") for dep in deps) + "\n")

    def _preprocess(self) -> int:
        """-E (the host side, preprocessed) and -M (its dependencies), to -o or stdout."""
        clang = find_clang(None)
        outputs = []
        for path, language in self.command.inputs:
            if language == "linked":
                continue
            source = Path(path).resolve()
            options = self.options(source)
            from simulee.frontend.compiler import clang_arguments

            arguments = clang_arguments(clang, source, options, host=True) if language == "cuda" else \
                ["-x", language, *host_arguments(clang, source, options)]
            arguments = [a for a in arguments if a not in ("-S", "-emit-llvm")]
            mode = ["-M"] if "deps" in self.command.flags else ["-E"]
            if "deps" in self.command.flags and self.command.value("deptarget"):
                mode += ["-MT", self.command.value("deptarget")]
            done = subprocess.run([*clang.command, *hostbuild.target(), *mode, *arguments], capture_output=True,
                                  text=True, timeout=hostbuild.BUILD_TIMEOUT)
            if done.returncode != 0:
                raise CompileError(f"{path}: preprocessing failed", done.stderr)
            outputs.append(done.stdout)
        text = "".join(outputs)
        output = self.command.value("depfile") if "deps" in self.command.flags else None
        output = output or self.command.value("output")
        if output:
            Path(output).write_text(text)
        else:
            sys.stdout.write(text)
        return 0

    def _device_link(self) -> int:
        """-dlink: the registration of relocatable device code's modules (nvcc's device link);
        the device code itself is linked when the program starts (standalone.py)."""
        objects = [Path(path) for path, language in self.command.inputs if language == "linked"]
        objects = [path for path in objects if path.suffix in (".o", ".obj", ".lo")]
        output = Path(self.command.value("output", "a_dlink.o"))
        clang = find_clang(None)
        with tempfile.TemporaryDirectory(prefix="simulee-nvcc-") as scratch:
            made = hostbuild.linked_binaries(clang, objects, Path(scratch))
            if not made:
                (Path(scratch) / "empty.c").write_text("typedef int simulee_device_link;\n")
                hostbuild.run_tool([*clang.command, *hostbuild.target(), "-x", "c", "-c", "-o", str(output),
                                    str(Path(scratch) / "empty.c")], "device link")
            else:
                shutil.copyfile(made[0], output)
        return 0

    # ------------------------------------------------------------------ linking

    def _link(self, objects: list[Path], output: Path) -> int:
        """Link as nvcc does, through simulee-c++ (which CMake then links CUDA targets with,
        from the line -v shows)."""
        root = toolkit_folder()
        flags = [f"-L{Path(folder).resolve()}" for folder in self.command.values.get("libdir", [])]
        flags += [f"-Wl,{option}" for option in self.command.values.get("xlinker", [])]
        libraries = [f"-l{name}" for name in self.command.values.get("library", [])]
        arguments = [*(["-shared"] if "shared" in self.command.flags else []), *map(str, objects), *flags,
                     f"-L{root / 'lib64'}", *libraries, *IMPLICIT_LIBRARIES, "-o", str(output)]
        shown = [f'"{a}"' if a == f"-L{root / 'lib64'}" else shlex.quote(a) for a in arguments]
        self._say(" ".join([str(root / "bin" / "simulee-c++"), *shown]))
        return host_compiler("c++", arguments)

    # ------------------------------------------------------------------ what -v says

    def _say_environment(self) -> None:
        root = toolkit_folder()
        for line in ("_NVVM_BRANCH_=nvvm", f"_HERE_={root}/bin", f"_THERE_={root}/bin", f"TOP={root}",
                     f"NVVMIR_LIBRARY_DIR={root}/nvvm/libdevice", f"PATH={root}/bin:{os.environ.get('PATH', '')}",
                     f'INCLUDES="-I{root}/include"', f'LIBRARIES=  "-L{root}/lib64"', "CUDAFE_FLAGS=",
                     "PTXAS_FLAGS="):
            print(f"#$ {line}", file=sys.stderr)

    def _say(self, text: str) -> None:
        if self.verbose:
            print(f"#$ {text}", file=sys.stderr)


def _deps(depfile: Path, scratch: str) -> list[str]:
    """What the compiler's `depfile` lists, less the files of the `scratch` folder."""
    from simulee.frontend.compiler import _read_depfile

    scratch = os.path.realpath(scratch)
    return [dep for dep in _read_depfile(depfile) if not os.path.realpath(dep).startswith(scratch + os.sep)]


def _renamed(source: Path, folder: Path, language: str) -> Path:
    """A copy of `source` named for `language` (-x c++ on a .cu, say)."""
    copy = folder / (source.stem + {"c": ".c", "c++": ".cpp", "cuda": ".cu"}[language])
    shutil.copyfile(source, copy)
    return copy


# ---------------------------------------------------------------------- linking


def linker(command: list[str], scratch: Path, libraries: list[str]) -> None:
    """Run link `command`; when it fails only on functions of stubbed toolkit libraries it
    names, link them to stubs and run it again."""
    try:
        hostbuild.run_tool(command, "link")
        return
    except CompileError as error:
        missing = sorted(set(re.findall(r"undefined symbol: (\w+)", error.diagnostics)))
        prefixes = tuple(prefix for name in libraries for prefix in STUBBED.get(name, ()))
        if not missing or not prefixes or not all(name.startswith(prefixes) for name in missing):
            raise
    clang = find_clang(None)
    source = scratch / "library-stubs.c"
    source.write_text("void __simulee_unsupported_library(const char *name);\n" +
                      "".join(_stub(name) for name in missing))
    stubs = scratch / "library-stubs.o"
    hostbuild.run_tool([*clang.command, *hostbuild.target(), "-x", "c", "-c", "-o", str(stubs), str(source)],
                       "library stubs")
    at = command.index("-o") + 2
    hostbuild.run_tool([*command[:at], str(stubs), *command[at:]], "link")


def _stub(name: str) -> str:
    """C source of a stub for a toolkit library's function: NVTX's mark nothing and succeed;
    the others say `not supported` once and fail (1: each library's "not initialized" or
    "failure")."""
    if name.startswith("nvtx"):
        return f"int {name}(void) {{ return 0; }}\n"
    return f'int {name}(void) {{ __simulee_unsupported_library("{name}"); return 1; }}\n'


def archive(objects: list[Path], output: Path) -> None:
    clang = find_clang(None)
    if output.exists():
        output.unlink()
    hostbuild.run_tool([*clang.command[:-1], "ar", "rcs", str(output), *map(str, objects)], "archive")


def host_compiler(language: str, arguments: list[str]) -> int:
    """simulee-cc / simulee-c++: clang for musl and libc++ with the toolkit's headers; a link
    (no -c, -E, -S, -M) goes through `linker` (stubs for toolkit libraries)."""
    clang = find_clang(None)
    driver = "cc" if language == "c" else "c++"  # zig's drivers: its libc (musl) and, for C++, libc++
    root = toolkit_folder()
    arguments = _expanded(arguments)  # CMake passes objects and libraries in response files
    compiling = any(a in ("-c", "-E", "-S", "-M", "-MM", "-fsyntax-only") for a in arguments)
    if not arguments or arguments in (["--version"], ["-v"], ["-dumpversion"], ["-dumpmachine"]):
        return subprocess.run([*clang.command[:-1], driver, *hostbuild.target(), *arguments]).returncode
    headers = ["-isystem", str(root / "include"), "-idirafter", str(STAND_INS)]
    if not any(a.endswith((".s", ".S", ".sx", ".asm")) for a in arguments):
        headers += ["-include", str(GLIBC_TRANSITIVE)]
    lenience = GCC_C_LENIENCE if language == "c" else DIALECT  # what gcc and g++ accept with a warning
    arguments = [a for a in arguments if not hostbuild.OPENMP_FLAGS.match(a)]  # one thread: omp.h's stand-in
    # gcc adds no sanitizer; zig's driver adds UBSan to unoptimized objects, whose runtime an -O3 link then lacks
    command = [*clang.command[:-1], driver, *hostbuild.target(), *headers, "-fwrapv", "-fno-sanitize=undefined",
               *lenience]
    if compiling:
        return subprocess.run([*command, *arguments]).returncode
    if "-shared" in arguments:
        return _shared_as_archive(arguments)
    libraries = [a[2:] for a in arguments if a.startswith("-l") and len(a) > 2]
    dropped = set(RUNTIME_LIBRARIES) | GRAPHICS_LIBRARIES
    kept = [a for a in arguments if not (a.startswith("-l") and a[2:] in dropped) and
            not SYSTEM_LIBRARY.match(Path(a).name)]
    with tempfile.TemporaryDirectory(prefix="simulee-link-") as scratch:
        kept = _archives_as_archives(kept, Path(scratch))
        objects = [Path(a) for a in arguments if a.endswith(".o") and Path(a).is_file()]
        extra = hostbuild.linked_binaries(clang, objects, Path(scratch))
        wanted = any(a.startswith("-lcud") or Path(a).name.startswith("libcud") for a in arguments) or \
            any(_has_device_code(o) for o in objects)
        if wanted and language == "c":  # CUDA objects need the C++ library: g++'s link, as nvcc's is
            command[len(clang.command) - 1] = "c++"
        # the toolkit's folder before the user's (a real CUDA's lib64 would shadow its stand-ins), the runtime by path
        runtime = [str(root / "lib64" / "libcudart_static.a")] if wanted else []
        try:
            linker([*command, f"-L{root / 'lib64'}", *map(str, extra), *kept, *runtime], Path(scratch), libraries)
        except CompileError as error:
            sys.stderr.write(error.diagnostics)
            return 1
    return 0


def _shared_as_archive(arguments: list[str]) -> int:
    """A shared library's link, made a static archive under the library's name: programs link
    statically (musl), and the linker reads a file by its content, not its name."""
    if "-o" not in arguments or arguments.index("-o") + 1 >= len(arguments):
        raise SimuleeError("a shared library's link needs -o")
    output = Path(arguments[arguments.index("-o") + 1])
    objects = [Path(a) for a in arguments if a.endswith((".o", ".obj", ".lo")) and Path(a).is_file()]
    archive(objects, output)
    return 0


def _archives_as_archives(arguments: list[str], scratch: Path) -> list[str]:
    """`arguments` with each shared library that is an archive (_shared_as_archive), named
    or found by -l, given by a link of an archive's name: the driver would link dynamically
    on seeing a .so; and each object of another name than .o (not the output) by a link
    named .o: the driver refuses a suffix it has no language for."""
    folders = [a[2:] for a in arguments if a.startswith("-L") and len(a) > 2]
    out = []
    for previous, argument in zip(["", *arguments], arguments):
        if previous != "-o" and _object_of_another_name(argument):  # gcc links a file it has no language for
            link = scratch / f"{len(out)}-{Path(argument).name}.o"
            link.symlink_to(Path(argument).resolve())
            out.append(str(link))
            continue
        path = Path(argument) if argument.endswith(".so") else None
        if argument.startswith("-l") and len(argument) > 2:
            path = next((Path(f) / f"lib{argument[2:]}.so" for f in folders if (Path(f) / f"lib{argument[2:]}.so")
                         .is_file()), None)
        if path is not None and path.is_file() and _starts_with(path, b"!<arch>\n"):
            link = scratch / f"{len(out)}-{path.stem}.a"
            link.symlink_to(path.resolve())
            argument = str(link)
        out.append(argument)
    return out


def _object_of_another_name(argument: str) -> bool:
    """Whether a link's argument is an object file named otherwise than .o (a Makefile's
    `obj/main.cpp_o`): an ELF file of a suffix the driver has no language for."""
    path = Path(argument)
    return not argument.startswith("-") and path.suffix.lower() not in (".o", ".so", ".obj", ".lo") and \
        not re.search(r"\.so(\.\d+)*$", argument) and path.is_file() and _starts_with(path, b"\x7fELF")


def _starts_with(path: Path, magic: bytes) -> bool:
    with path.open("rb") as handle:
        return handle.read(len(magic)) == magic


def _has_device_code(path: Path) -> bool:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    from simulee.exec.standalone import FATBIN_SECTIONS

    try:
        with path.open("rb") as handle:
            elf = ELFFile(handle)
            return any(elf.get_section_by_name(name) is not None for name in FATBIN_SECTIONS)
    except (OSError, ELFError):
        return False


# ---------------------------------------------------------------------- the toolkit folder


def nvcc_version() -> tuple[int, int, int]:
    """(major, minor, build) of the nvcc this answers as: the toolkit wheels' release."""
    try:
        numbers = [int(part) for part in importlib.metadata.version("nvidia-cuda-nvcc-cu12").split(".")[:3]]
    except (importlib.metadata.PackageNotFoundError, ValueError):
        code = int(toolkit.version()) if toolkit.version().isdigit() else 12090
        numbers = [code // 1000, code % 1000 // 10, 0]
    return numbers[0], numbers[1], numbers[2]


def version_text() -> str:
    major, minor, build = nvcc_version()
    return ("nvcc: NVIDIA (R) Cuda compiler driver\n"
            f"Simulee {__version__}: NVIDIA's CUDA {major}.{minor} headers, ziglang's clang; kernels run on "
            "Simulee's simulated GPU\n"
            f"Cuda compilation tools, release {major}.{minor}, V{major}.{minor}.{build}")


def toolkit_folder() -> Path:
    """A CUDA toolkit folder as CMake and Makefiles expect one (bin/nvcc, include/,
    nvvm/libdevice/, lib64/), made once per Simulee, Python and toolkit: its libraries are
    Simulee's runtime (libcudart_static.a, libcudart.a, libcuda.a) and empty archives for
    the others (their functions link to stubs, `linker`)."""
    from simulee.frontend.cache import cache_root

    package = Path(__file__).resolve().parent
    key = hashlib.sha256(f"{__version__}|{sys.executable}|{package}|{hostbuild.runtime_key(find_clang(None))}".encode())
    root = cache_root() / f"toolkit-{key.hexdigest()[:16]}"
    if (root / "version.json").is_file():
        return root
    scratch = Path(tempfile.mkdtemp(prefix="toolkit-", dir=cache_root()))
    try:
        _assemble(scratch, package)
        try:
            scratch.rename(root)
        except OSError:  # another process made it first
            pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return root


def _assemble(root: Path, package: Path) -> None:
    clang = find_clang(None)
    for folder in ("bin", "include", "nvvm/libdevice", "lib64/stubs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for tool, entry in (("nvcc", "main"), ("simulee-cc", "main_cc"), ("simulee-c++", "main_cxx")):
        script = root / "bin" / tool
        script.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(package.parent))}${{PYTHONPATH:+:$PYTHONPATH}} "
                          f"exec {shlex.quote(sys.executable)} -c 'import sys; from simulee.exec.nvcc import {entry}; "
                          f"sys.exit({entry}())' \"$@\"\n")
        script.chmod(0o755)
    for folder in toolkit.include_dirs():
        for entry in Path(folder).iterdir():
            if not (root / "include" / entry.name).exists():
                (root / "include" / entry.name).symlink_to(entry)
    (root / "nvvm" / "libdevice" / "libdevice.10.bc").symlink_to(toolkit.libdevice())
    major, minor, build = nvcc_version()
    runtime = hostbuild.runtime_objects(clang)
    locator = root / "lib64" / "simulee-locator.c"
    locator.write_text(f"const char simulee_python[] = {_c_string(sys.executable)};\n"
                       f"const char simulee_pythonpath[] = {_c_string(str(package.parent))};\n")
    hostbuild.run_tool([*clang.command, *hostbuild.target(), "-x", "c", "-c", "-o", str(locator.with_suffix(".o")),
                        str(locator)], "the runtime's locator")
    # one object, so that a link takes all of the runtime or none (its stubs are weak: an archive of
    # them apart could satisfy a call the runtime implements in a member not yet taken)
    whole = root / "lib64" / "simulee-runtime.o"
    hostbuild.run_tool([*clang.command, *hostbuild.target(), "-r", "-nostdlib", "-o", str(whole),
                        *map(str, runtime), str(locator.with_suffix(".o"))], "the runtime's object")
    for name in ("libcudart_static.a", "libcudart.a", "libcuda.a", "stubs/libcuda.a"):
        hostbuild.run_tool([*clang.command[:-1], "ar", "rcs", str(root / "lib64" / name), str(whole)],
                           "the runtime's archive")
    for name in ("cudadevrt", "culibos", *STUBBED):
        (root / "lib64" / f"lib{name}.a").write_bytes(b"!<arch>\n")
        (root / "lib64" / f"lib{name}_static.a").write_bytes(b"!<arch>\n")
    (root / "version.json").write_text(
        '{"cuda": {"name": "CUDA SDK", "version": "%d.%d.%d"}, "cuda_nvcc": {"name": "CUDA NVCC", '
        '"version": "%d.%d.%d"}}\n' % (major, minor, build, major, minor, build))


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


if __name__ == "__main__":
    sys.exit(main())
