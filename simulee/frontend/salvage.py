"""What lets a source whose build is incomplete still have its kernels checked.

Two failures do not touch device code, and each is answered by changing only what the
compiler sees, never the user's files:

- a header that is not there (generated at build time by CMake, a library not installed:
  `config.h`, OpenCV, MPI) is given an empty stand-in in a scratch folder searched last;
- a type the missing header declared is declared as an opaque pointer (most such types,
  cublasHandle_t, cudnnHandle_t, are), a function it declared (or a function-like macro,
  checkCudaErrors) as a host function taking anything and doing nothing, and a constant
  it declared (CUBLAS_OP_N) as a value of any type, so that the host code using them, and
  the kernel launches in it, stay; what such a function returns and such a constant holds
  is unknown (a volatile read), never a value the optimizer could fold into a launch;
- host code that then fails (it uses what the missing header declared, or what clang
  rejects and nvcc accepts) has the bodies of those host functions left out, in copies of
  the source and of the repository's headers that clang sees in their place (a virtual
  file system overlay), under their own names and line numbers.

Device code is never changed: an error in a `__global__` or `__device__` function still
fails the file. A file compiled either way is `degraded`, and says what was left out."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_STAND_INS = 24  # missing headers stood in for at most, per file
# missing headers whose content Simulee knows: the CUDA samples' vector arithmetic, which
# projects copy from the samples' Common/ folder and include without shipping
KNOWN_HEADERS = {"helper_math.h": "#include <simulee/vector_math.h>\n"}
MAX_STUB_ROUNDS = 6  # rounds of leaving host functions out
# what a missing header's functions return and its constants are: a value of any type (it
# converts to any pointer, arithmetic or enum type, and compares and combines with anything)
# read from a volatile, so that the optimizer reading the host program never folds it
_ANY_TYPE = """static volatile long long __simulee_unknown;
struct __simulee_any {
  template <class T> operator T() const {
    if constexpr (__is_pointer(T)) return (T)(__INTPTR_TYPE__)__simulee_unknown;
    else if constexpr (__is_arithmetic(T) || __is_enum(T)) return (T)__simulee_unknown;
    else return T();
  }
};
"""


def _any_operators(operators: str | tuple, result: str, body: str) -> str:
    """Each of `operators` between a value of any type and anything, giving `result`."""
    sides = ("const __simulee_any &, const __simulee_any &", "const T &, const __simulee_any &",
             "const __simulee_any &, const T &")
    return "".join(f"{'template <class T> ' if number else ''}static inline {result} operator{op}({side}) "
                   f"{{ {body} }}\n" for op in operators for number, side in enumerate(sides))


_ANY = _ANY_TYPE + _any_operators(("==", "!=", "<", ">", "<=", ">="), "bool", "return __simulee_unknown;") + \
    _any_operators("+-*/%|&^", "__simulee_any", "return {};")

_MISSING = re.compile(r"^(.*?):\d+:\d+: fatal error: '([^']+)' file not found", re.M)
_ERROR_LINE = re.compile(r"^(.*?):(\d+):\d+: (?:fatal )?error: ", re.M)
# a type a missing header declared: used as one, or named by `using ::uint64;` (kaldi without OpenFst)
_UNKNOWN_TYPE = re.compile(r": error: (?:unknown type name|no member named) '(\w+)'(?! in '| in namespace)")
_UNDECLARED = re.compile(r"^(.*?):(\d+):(\d+): error: use of undeclared identifier '(\w+)'", re.M)
_UNKNOWN_NAMESPACE = re.compile(r"^(.*?):(\d+):\d+: error: (expected namespace name)", re.M)
_NAMESPACE_ALIAS = re.compile(r"\bnamespace\s+(\w+)\s*=\s*(\w+)\s*;")
# a library header's template instantiated from a repository's line (thrust called with a lambda)
_INSTANTIATED_FROM = re.compile(r"^(.*?):(\d+):\d+: note: in instantiation of [^\n]* requested here$", re.M)
# a statement a macro begins (gtest's TEST(suite, name) {...}, nvbench's NVBENCH_BENCH(f).set_name(...);)
_MACRO_STATEMENT = re.compile(r"^[ \t]*([A-Z][A-Z0-9_]*[A-Z0-9])\s*\(", re.M)
_ASM_ESCAPE = re.compile(r"^(.*?):(\d+):\d+: error: (invalid % escape) in inline assembly string", re.M)
_EXTERN_SHARED = re.compile(r"^(.*?):(\d+):\d+: error: __shared__ variable '(\w+)' cannot be 'extern'", re.M)
# a definition of a function CUDA provides only from a later GPU (atomicAdd on double, sm_60)
_OLD_GPU_CODE = re.compile(r"error: redefinition of 'atomicAdd'[^\n]*\n(?:[^\n]*\n)*?[^\n]*simulee/atomics\.h:\d+:\d+: "
                           r"note: previous definition")
OLD_ARCH = "sm_52"  # the architecture such code was written for
NEWER_ARCH = "sm_90"  # tried last, for code that needs a newer GPU than the one asked for
# a launch written with spaces in its chevrons, `k << < grid, block >> > (...)`, which nvcc accepts
_PRAGMA_MACRO = re.compile(r'^([ \t]*#[ \t]*define[ \t]+\w+[ \t]+)#[ \t]*pragma[ \t]+([^\n"\\]*?)[ \t]*$', re.M)
_SPACED_LAUNCH = re.compile(r"<<\s*<(?!<)([^;{}<]*?)>>\s*>(?=\s*\()")
_TEMPLATE_LAUNCH = re.compile(r"(\b[A-Za-z_][\w:]*\s*<[^;{}()]*?>)\s*<<<")
# a typedef of a name the C library also defines (GPUVerify's samples: `typedef unsigned int clock_t;`)
_LIBC_TYPEDEF = re.compile(r"^(.*?):(\d+):\d+()?: error: typedef redefinition with different types[^\n]*\n"
                           r"(?:[^\n]*\n)*?[^\n]*/(?:ziglang|simulee/frontend/include)/[^\n]*: "
                           r"note: previous definition", re.M)
# a prototype of a math function the CUDA headers define for host and device (`__device__ float max(float, float);`)
_DEVICE_PROTOTYPE = re.compile(r"^(.*?):(\d+):\d+: error: __device__ function '(\w+)' cannot overload "
                               r"__host__ __device__ function", re.M)
_DEVICE_LAUNCH = "kernel launch from __device__ or __global__ function requires relocatable device code"
INSTANCE_TYPES = ("float", "int", "double")
_CURAND_BUILTINS = re.compile(r"curand_mtgp32_kernel\.h:\d+:\d+: (?:error: )?redeclaration of '(?:blockDim|threadIdx)'")
_KERNEL_TEMPLATE = re.compile(r"template\s*<\s*(?:typename|class)\s+\w+\s*>\s*(?:static\s+)?__global__\s+"
                              r"(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?"
                              r"(\w+)\s*\(")
CUDA_BUILD_MACROS = ("HAVE_CUDA", "USE_CUDA", "WITH_CUDA", "GOOGLE_CUDA", "ENABLE_CUDA", "CUDA_ENABLED")
_CUDA_BUILD_TEST = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b[^\n]*\b(%s)\b" % "|".join(CUDA_BUILD_MACROS), re.M)
_DEVICE_SPECIFIERS = re.compile(r"\b(__global__|__device__)\b|__attribute__\s*\(\(\s*(global|device)\b")


@dataclass
class Salvage:
    """What was done to compile one source: the arguments that make clang see it."""

    scratch: Path
    editable: tuple[str, ...]  # the folders whose files host code may be left out of (the repository)
    missing: list[str] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)  # unknown type names declared as opaque pointers
    namespaces: dict[str, str] = field(default_factory=dict)  # a missing header's namespace -> its stand-in
    functions: list[str] = field(default_factory=list)  # undeclared functions declared as host functions doing nothing
    values: list[str] = field(default_factory=list)  # undeclared constants declared as unknown values of any type
    left_out: list[tuple[str, str, int]] = field(default_factory=list)  # host functions: (file, name, line)
    texts: dict[str, str] = field(default_factory=dict)  # file -> its text with host code left out
    left_out_keys: set = field(default_factory=set)  # (file, line) of the functions left out
    plain: set = field(default_factory=set)  # (file, line) of those left out without the instances they launch
    rounds: int = 0
    arch: str | None = None  # the GPU architecture to compile for instead of the user's
    requested_arch: str = ""  # the user's
    assumed: list[str] = field(default_factory=list)  # macros a CUDA build of the repository defines
    instances: list[tuple[str, str]] = field(default_factory=list)  # kernel templates instantiated: (name, type)
    relocatable: bool = False  # compiled as relocatable device code (kernels that launch kernels)
    instantiated: str = ""  # the header they are instantiated in
    curand_builtins: bool = False  # curand_mtgp32_kernel.h redeclares blockDim and threadIdx: included as clang does
    host: bool = False  # a program's host side (simulee exec): no other GPU architecture is tried
    pragma_macros: bool = False  # macros whose body is a #pragma were rewritten (or looked for)

    def arguments(self) -> list[str]:
        """What to add to clang's arguments (before the source)."""
        arguments = []
        arguments += [f"-D{macro}" for macro in self.assumed] + (["-fgpu-rdc"] if self.relocatable else [])
        arguments += ["-D__SIMULEE_CURAND_BUILTINS"] if self.curand_builtins else []
        if self.missing:
            arguments += ["-idirafter", str(self.scratch / "missing")]
        if self.opaque or self.functions or self.values or self.namespaces:
            declarations = self.scratch / "opaque.h"
            declarations.write_text(
                "".join(self.namespaces.values())
                + "".join(f"typedef {_stand_in_type(name)} {name};\n" for name in self.opaque)
                + (_ANY if self.functions or self.values else "")
                + "".join(f"template <class... T> static inline __simulee_any {name}(T &&...) {{ return {{}}; }}\n"
                          for name in self.functions)
                + "".join(f"static constexpr __simulee_any {name}{{}};\n" for name in self.values))
            arguments += ["-include", str(declarations)]
        texts = dict(self.texts)
        if self.instantiated:
            original = texts.get(self.instantiated) or Path(self.instantiated).read_text(errors="replace")
            texts[self.instantiated] = original + "\nstatic void *__simulee_instances[] = {" + ", ".join(
                f"(void *)&{name}<{ty}>" for name, ty in self.instances) + "};\n"
        if texts:
            roots = []
            for number, (file, text) in enumerate(sorted(texts.items())):
                copy = self.scratch / f"edited{number}{Path(file).suffix}"
                copy.write_text(text)
                roots.append({"type": "file", "name": file, "external-contents": str(copy)})
            overlay = self.scratch / "overlay.json"
            overlay.write_text(json.dumps({"version": 0, "use-external-names": False, "roots": roots}))
            arguments += ["-ivfsoverlay", str(overlay)]
        return arguments

    def describe(self, relative_to: Path | None = None) -> str:
        """One line: what the file was compiled without ('' when nothing)."""
        parts = []
        if self.arch:
            parts.append(f"compiled for {self.arch}, not {self.requested_arch or 'the architecture asked for'}")
        if self.assumed:
            parts.append("assumed a CUDA build: " + ", ".join(self.assumed))
        if self.missing:
            parts.append("missing: " + ", ".join(self.missing))
        if self.functions:
            parts.append("functions taken to do nothing: " + ", ".join(self.functions))
        if self.values:
            parts.append("constants taken to be unknown: " + ", ".join(self.values))
        if self.left_out:
            def where(file: str) -> str:
                path = Path(file)
                return str(path.relative_to(relative_to)) if relative_to and path.is_relative_to(relative_to) \
                    else path.name
            parts.append("host code left out: " + ", ".join(f"{name} ({where(file)}:{line})"
                                                              for file, name, line in self.left_out))
        return "; ".join(parts)

    def instantiate(self, source: Path, ir: str) -> bool:
        """Instantiate for float, int and double the kernel templates of a source that
        its compiled `ir` has no instance of (a header NVRTC compiles at run time, a .cu
        whose templates another file launches); whether there are any."""
        if self.instantiated:
            return False
        text = self.texts.get(str(source)) or source.read_text(errors="replace")
        names = [name for name in _KERNEL_TEMPLATE.findall(_blank_comments_and_strings(text))
                 if not re.search(r"^define [^@\n]*@_Z\w*%d%sI" % (len(name), name), ir, re.M)]
        if names:
            self.instances = [(name, ty) for name in dict.fromkeys(names) for ty in INSTANCE_TYPES]
            self.instantiated = str(source)
        return bool(names)

    def answer(self, diagnostics: str, read: list[str] = ()) -> bool:
        """Change what the compiler sees to get past `diagnostics` (`read`: the files the
        compiler read); False when nothing can."""
        missing = _MISSING.search(diagnostics)
        if missing:
            return self._stand_in(missing.group(2))
        if not self.assumed and self._assume_cuda_build(read):
            return True
        if not self.curand_builtins and _CURAND_BUILTINS.search(diagnostics):
            self.curand_builtins = True
            return True
        if self.arch is None and not self.host and _OLD_GPU_CODE.search(diagnostics):
            self.arch = OLD_ARCH
            return True
        if self._fixed_size_extern_shared(diagnostics) or self._register_escapes(diagnostics):
            return True
        if self._spaced_launches(diagnostics) or self._pragma_macros(read):
            return True
        if self._edit_lines(_LIBC_TYPEDEF.findall(diagnostics), _typedef_as_macro) or \
                self._edit_lines(_DEVICE_PROTOTYPE.findall(diagnostics), _without_prototype):
            return True
        if self.missing and self._aliased_namespaces(diagnostics, read):
            return True
        if self.missing and self._edit_lines(_UNKNOWN_NAMESPACE.findall(diagnostics), _without_using_namespace):
            return True  # `using namespace cv;` of a library whose header is missing
        if not self.relocatable and _DEVICE_LAUNCH in diagnostics:  # dynamic parallelism
            self.relocatable = True
            return True
        if self.missing:
            unknown = [name for name in dict.fromkeys(_UNKNOWN_TYPE.findall(diagnostics)) if name not in self.opaque]
            if unknown:
                self.opaque += unknown
                return True
            called = [name for name in dict.fromkeys(self._called_undeclared(diagnostics))
                      if name not in self.functions]
            if called:
                self.functions += called
                return True
            constants = [name for name in dict.fromkeys(self._undeclared_values(diagnostics))
                         if name not in self.values + self.functions + self.opaque]
            if constants:
                self.values += constants
                return True
            qualified = [name for name in dict.fromkeys(self._qualified_undeclared(diagnostics))
                         if name not in self.namespaces]
            if qualified:
                texts = [t for t in map(self._repository_text, map(os.path.abspath, read)) if t is not None]
                self.namespaces.update((name, namespace_stand_in(name, texts)) for name in qualified)
                return True
        if self.missing and self._leave_out_macro_statements(diagnostics, read):
            return True
        if self._leave_out_host_code(diagnostics):
            return True
        if self.instances:  # an instance the template does not allow: fewer, then none
            kept = [(name, ty) for name, ty in self.instances if ty == INSTANCE_TYPES[0]]
            self.instances = [] if kept == self.instances else kept
            return True
        # code for a newer GPU (integer wmma, sm_80 asserts)
        if self.arch is None and not self.host and self.requested_arch != NEWER_ARCH:
            self.arch = NEWER_ARCH
            return True
        return False

    def _called_undeclared(self, diagnostics: str) -> list[str]:
        """Undeclared names that the repository's host functions call (`name(` where the
        error is): what a missing header declared as a function or a function-like macro.
        In device code an undeclared name stays an error."""
        return [name for name, text, number, _ in self._undeclared_before(diagnostics, r"\s*\(")
                if any(f.first <= number <= f.last for f in host_functions(text))]

    def _undeclared_values(self, diagnostics: str) -> list[str]:
        """Undeclared names that the repository's host functions use as values (neither
        called nor qualified where the error is): a missing header's constants and enumerators
        (CUBLAS_OP_N)."""
        return [name for name, text, _, offset in self._undeclared_before(diagnostics, r"(?!\s*(?:\(|::|<))")
                if any(f.start <= offset < f.end for f in host_functions(text))]  # in a body, not a macro's header

    def _qualified_undeclared(self, diagnostics: str) -> list[str]:
        """Undeclared names the repository's code qualifies (`nlohmann::json`): the
        namespace of a missing header."""
        return [name for name, *_ in self._undeclared_before(diagnostics, r"\s*::")]

    def _undeclared_before(self, diagnostics: str, following: str) -> list[tuple[str, str, int, int]]:
        """(name, its file's text, line number, offset in the text) of each undeclared name in
        the repository's files that `following` (a pattern) follows where the error is."""
        found = []
        for file, line, column, name in _UNDECLARED.findall(diagnostics):
            text = self._repository_text(os.path.abspath(file))
            lines = text.split("\n") if text is not None else []
            number = int(line)
            if number <= len(lines) and re.match(re.escape(name) + following, lines[number - 1][int(column) - 1:]):
                found.append((name, text, number, sum(len(each) + 1 for each in lines[:number - 1]) + int(column) - 1))
        return found

    def _aliased_namespaces(self, diagnostics: str, read: list[str]) -> bool:
        """Declare the namespace that `namespace nb = nanobind;` aliases, when its header is
        missing, with what the code names through the alias."""
        aliased = {}
        for file, line, _ in _UNKNOWN_NAMESPACE.findall(diagnostics):
            text = self._repository_text(os.path.abspath(file))
            lines = text.split("\n") if text is not None else []
            alias = _NAMESPACE_ALIAS.search(lines[int(line) - 1]) if int(line) <= len(lines) else None
            if alias and alias.group(2) not in self.namespaces:
                aliased[alias.group(2)] = alias.group(1)
        texts = [t for t in map(self._repository_text, map(os.path.abspath, read)) if t is not None]
        self.namespaces.update((name, namespace_stand_in(name, texts, alias)) for name, alias in aliased.items())
        return bool(aliased)

    def _leave_out_macro_statements(self, diagnostics: str, read: list[str]) -> bool:
        """Leave out the statements at namespace scope that begin with a macro nothing the
        compiler read defines (a missing header's: gtest's `TEST(suite, name) {...}`,
        nvbench's `NVBENCH_BENCH(f).set_name(...);`): with the header they declare
        something; without it they are not C++."""
        errors: dict[str, set[int]] = {}
        for file, line in _ERROR_LINE.findall(diagnostics):
            errors.setdefault(os.path.abspath(file), set()).add(int(line))
        defined = _Defined(read)
        edits = {}
        for file, lines in errors.items():
            text = self._repository_text(file)
            if text is None:
                continue
            code = _blank_comments_and_strings(text)
            bodies = [(start, end) for _, _, start, end in _bodies(code)]
            found = [m for m in _MACRO_STATEMENT.finditer(code) if code.count("\n", 0, m.start()) + 1 in lines
                     and not any(start <= m.start() < end for start, end in bodies) and not defined(m.group(1))]
            for macro in reversed(found):
                end = _statement_end(code, macro.end() - 1)
                text = text[:macro.start(1)] + re.sub(r"[^\n]", " ", text[macro.start(1):end]) + text[end:]
                self.left_out.append((file, f"{macro.group(1)}(...)", code.count("\n", 0, macro.start()) + 1))
            if found:
                edits[file] = text
        self.texts.update(edits)
        self.left_out.sort(key=lambda item: (item[0], item[2]))
        return bool(edits)

    def _assume_cuda_build(self, read: list[str]) -> bool:
        """Define the macros by which a repository's sources ask whether the build has CUDA
        (kaldi's HAVE_CUDA, ...) as a CUDA build does, when they test them."""
        found = []
        for file in read:
            if self._editable(os.path.realpath(file)):
                try:
                    text = Path(file).read_text(errors="replace")
                except OSError:
                    continue
                found += [m for m in _CUDA_BUILD_TEST.findall(text) if m not in found]
        self.assumed = [f"{name}=1" for name in CUDA_BUILD_MACROS if name in found]
        return bool(self.assumed)

    def _fixed_size_extern_shared(self, diagnostics: str) -> bool:
        """`extern __shared__ T a[N]...`, which nvcc accepts and clang refuses, as
        `extern __shared__ T a[]...`: the same dynamic shared memory, unsized."""
        return self._edit_lines(_EXTERN_SHARED.findall(diagnostics),
                                lambda line, name: re.sub(r"\b(%s\s*)\[[^\]]+\]" % re.escape(name), r"\1[]", line,
                                                          count=1))

    def _register_escapes(self, diagnostics: str) -> bool:
        """`asm("mov.u64 %0, %globaltimer;")`, which nvcc accepts, as clang wants it:
        `%%globaltimer`."""
        return self._edit_lines(_ASM_ESCAPE.findall(diagnostics),
                                lambda line, _: re.sub(r"(?<![%\w])%(?=[A-Za-z_])", "%%", line))

    def _spaced_launches(self, diagnostics: str) -> bool:
        """`k << < grid, block >> > (...)`, which nvcc accepts, as `k<<<grid, block>>>(...)`
        in the repository's files an error is in."""
        changed = False
        for file in dict.fromkeys(os.path.abspath(file) for file, _ in _ERROR_LINE.findall(diagnostics)):
            text = self._repository_text(file)
            if text is not None and unspaced_launches(text) != text:
                self.texts[file] = unspaced_launches(text)
                changed = True
        return changed

    def _pragma_macros(self, read: list[str]) -> bool:
        """`#define UNROLL #pragma unroll`, which nvcc expands into a pragma and clang into
        tokens it refuses, as `#define UNROLL _Pragma("unroll")` in the repository's files
        the compiler read (once)."""
        if self.pragma_macros:
            return False
        self.pragma_macros = True
        changed = False
        for file in dict.fromkeys(os.path.abspath(f) for f in read):
            text = self._repository_text(file)
            if text is not None and _PRAGMA_MACRO.search(text):
                self.texts[file] = _PRAGMA_MACRO.sub(
                    lambda m: f'{m.group(1)}_Pragma("{m.group(2).strip()}")', text)
                changed = True
        return changed

    def _edit_lines(self, places, edit) -> bool:
        """Apply edit(line, detail) to each (file, line number, detail) place of editable
        files; False when a place is not editable or its line does not change."""
        changed = False
        for file, number, detail in places:
            file = os.path.abspath(file)
            if not self._editable(os.path.realpath(file)):
                return False
            lines = self._text(file).split("\n")
            index = int(number) - 1
            if index >= len(lines) or edit(lines[index], detail) == lines[index]:
                return False
            lines[index] = edit(lines[index], detail)
            self.texts[file] = "\n".join(lines)
            changed = True
        return changed

    def _repository_text(self, file: str) -> str | None:
        """The text of a repository's file as clang sees it now; None for a file outside
        it (never edited) or one that cannot be read."""
        if not self._editable(os.path.realpath(file)):
            return None
        try:
            return self._text(file)
        except OSError:
            return None

    def _text(self, file: str) -> str:
        """The file's text as clang sees it now."""
        if file not in self.texts:
            self.texts[file] = Path(file).read_text(errors="replace")
        return self.texts[file]

    def _stand_in(self, header: str) -> bool:
        if header in self.missing or len(self.missing) >= MAX_STAND_INS or header.startswith("/") or ".." in header:
            return False
        path = self.scratch / "missing" / header
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(KNOWN_HEADERS.get(Path(header).name, f"/* Simulee: an empty stand-in for the missing header "
                                                             f"{header} */\n"))
        self.missing.append(header)
        return True

    def _leave_out_host_code(self, diagnostics: str) -> bool:
        """Leave out the host functions of the repository's files that errors are in (the
        other errors may go with them); False when there is none to leave out."""
        if self.rounds >= MAX_STUB_ROUNDS:
            return False
        errors: dict[str, set[int]] = {}
        for file, line in _ERROR_LINE.findall(diagnostics) + _INSTANTIATED_FROM.findall(diagnostics):
            errors.setdefault(os.path.abspath(file), set()).add(int(line))  # as clang opened it (links kept)
        edits = {}
        for file, lines in errors.items():
            text = self._repository_text(file)
            if text is None:
                continue
            functions = [f for f in host_functions(text) if any(f.first <= line <= f.last for line in lines)
                         and (file, f.first) not in self.plain]
            for function in sorted(functions, key=lambda f: f.start, reverse=True):
                body = text[function.start:function.end]
                # keep the kernel instances the function launches: they may be all that instantiates them
                launched = [] if (file, function.first) in self.left_out_keys else \
                    list(dict.fromkeys(_TEMPLATE_LAUNCH.findall(_blank_comments_and_strings(body))))
                kept = "".join(f"(void)&{kernel}; " for kernel in launched)
                # a void function does nothing; one whose value is needed never returns (an empty body
                # would make calling it undefined, and the optimizer would delete the caller's launches)
                ending = "__builtin_unreachable(); " if function.returns else ""
                text = text[:function.start] + f" {kept}{ending}" + "\n" * body.count("\n") + text[function.end:]
                if function.initializers >= 0:  # a constructor's member initializers go with its body
                    initializers = text[function.initializers:function.start - 1]
                    text = text[:function.initializers] + "\n" * initializers.count("\n") + \
                        text[function.start - 1:]
                if (file, function.first) in self.left_out_keys:
                    self.plain.add((file, function.first))  # its kept instances failed too: now none
                else:
                    self.left_out.append((file, function.name, function.first))
                    self.left_out_keys.add((file, function.first))
            if functions:
                edits[file] = text
        if not edits:  # every error is where nothing can be left out (device code, declarations)
            return False
        self.texts.update(edits)
        self.left_out.sort(key=lambda item: (item[0], item[2]))
        self.rounds += 1
        return True

    def _editable(self, file: str) -> bool:
        return any(file.startswith(folder.rstrip(os.sep) + os.sep) for folder in self.editable)


def unspaced_launches(text: str) -> str:
    """`text` with each launch whose chevrons hold spaces (`<< <`, `>> >`) written as
    `<<<...>>>`, its lines kept."""
    return _SPACED_LAUNCH.sub(lambda m: f"<<<{m.group(1)}>>>", text)


def namespace_stand_in(name: str, texts: list[str], alias: str = "") -> str:
    """Declarations of what `texts` name in the namespace `name` of a missing header (or
    through its `alias`): a name others are qualified by as a struct holding them, one
    followed by `<` as an alias template, any other as an opaque pointer type
    (`nlohmann::json *jsn` declares; a body that does more with it fails and is left out)."""
    tree: dict[str, list] = {}
    named = "|".join(re.escape(n) for n in filter(None, (name, alias)))
    for text in texts:
        for chain in re.finditer(r"\b(?:%s)((?:\s*::\s*\w+)+)(\s*<)?" % named, _blank_comments_and_strings(text)):
            node, parts = tree, re.findall(r"\w+", chain.group(1))
            for index, part in enumerate(parts):
                entry = node.setdefault(part, [{}, False])
                entry[1] |= index == len(parts) - 1 and chain.group(2) is not None
                node = entry[0]

    def members(node: dict) -> str:
        return " ".join(f"struct {part} {{ {members(children)} }};" if children else
                        f"template <class...> using {part} = void *;" if template else f"typedef void *{part};"
                        for part, (children, template) in node.items())
    return f"namespace {name} {{ {members(tree)} }}\n"


def _typedef_as_macro(line: str, _) -> str:
    """`typedef unsigned int clock_t;` alone on its line as `#define clock_t unsigned int`:
    the source's own type under the name, beside the C library's."""
    typedef = re.fullmatch(r"\s*typedef\s+([\w\s\*]+?)\s*\b(\w+)\s*;\s*(//.*)?", line)
    return f"#define {typedef.group(2)} {typedef.group(1)}" if typedef else line


def _without_prototype(line: str, name: str) -> str:
    """A line that only declares `name` (no body) as an empty line: the headers' own
    definition serves its calls."""
    return "" if re.search(r"\b%s\s*\([^{}]*\)\s*;\s*(//.*)?$" % re.escape(name), line) and "{" not in line else line


def _without_using_namespace(line: str, _) -> str:
    """`line` without its `using namespace X;` directive."""
    return re.sub(r"\busing\s+namespace\s+[\w:]+\s*;", "", line)


def _stand_in_type(name: str) -> str:
    """What an unknown type from a missing header is taken to be: the integer, float or
    vector its name says (int32, uint64_t, float32, BaseFloat, MatrixIndexT, XMFLOAT3), a
    library's value or enum type, else an opaque pointer (cublasHandle_t)."""
    integer = re.fullmatch(r"([uU]?)[iI]nt(8|16|32|64)(?:_t)?", name)
    if integer:
        return f"{'unsigned ' if integer.group(1) else ''}{_INTEGERS[integer.group(2)]}"
    real = re.fullmatch(r"(?:[fF]loat|real)(32|64)(?:_t)?", name)
    if real:
        return "float" if real.group(1) == "32" else "double"
    if re.search(r"(?i)(float|real|double)(_t)?$", name):  # a project's float type: BaseFloat, Real, real_t
        return "double" if "double" in name.lower() else "float"
    if re.search(r"(Index|index|Idx|idx|Size|size|Count|count|Dim|dim)(_t|T)?$", name):
        return "int"  # a project's index type: MatrixIndexT, index_t, dim_t
    if name in _LIBRARY_TYPES:
        return _LIBRARY_TYPES[name]
    vector = re.fullmatch(r"\w*?((?i:float|double|int|uint))([234])", name)
    if vector:  # a math library's vector of its name (DirectX's XMFLOAT3): x, y, z, w, packed
        element = {"uint": "unsigned int"}.get(vector.group(1).lower(), vector.group(1).lower())
        return f"struct __simulee_vector_{name} {{ {element} {', '.join('xyzw'[:int(vector.group(2))])}; }}"
    if re.search(r"(Status|Result|Mode|Operation|Op|Type|Order|Fill|Diag|Side|Algo)(_t)?$", name):
        return "int"  # the enums of library APIs: cublasStatus_t, cufftResult, cusparseOperation_t
    return f"struct __simulee_opaque_{name} *"


_INTEGERS = {"8": "char", "16": "short", "32": "int", "64": "long long"}
# the value types of CUDA's libraries whose headers are not installed (cuFFT, cuBLAS's complex)
_LIBRARY_TYPES = {"cufftComplex": "float2", "cufftDoubleComplex": "double2", "cufftReal": "float",
                  "cufftDoubleReal": "double", "cuComplex": "float2", "cuFloatComplex": "float2",
                  "cuDoubleComplex": "double2"}


@dataclass(frozen=True)
class Function:
    """A function definition: its name, the lines of its body (from a constructor's
    member initializers), the offsets of what is between its braces, and whether it
    returns a value (not void, a constructor or a destructor)."""

    name: str
    first: int
    last: int
    start: int
    end: int
    returns: bool = True
    initializers: int = -1  # a constructor's: the offset of the ':' of its member initializers


def host_functions(text: str) -> list[Function]:
    """The definitions of functions in `text` that are host code only (not __global__ or
    __device__), at namespace or class level."""
    found = []
    code = _blank_comments_and_strings(text)
    for declared, header, start, end in _bodies(code):
        if _DEVICE_SPECIFIERS.search(header) or not re.search(r"[\w>\]]\s*\(.*\)", header) or \
                re.search(r"=\s*$|\[[^\]]*\]\s*\(", header):
            continue
        named = re.search(r"(operator\s*\S+?|[~\w:]+)\s*\(", header)
        name, before = (named.group(1), header[:named.start()]) if named else ("?", "")
        first, last = text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1
        specifiers = re.sub(r"\b(inline|explicit|static|virtual|constexpr|template\s*<[^>]*>)\s*", "", before)
        # void, or no return type at all (a constructor, a destructor)
        returns = not (re.search(r"\bvoid\s*$", before) or name.rpartition("::")[2].startswith("~") or
                       not specifiers.strip())
        colon = re.search(r"\)\s*(?:noexcept\s*)?:(?!:)", code[declared:start])
        initializers = declared + colon.end() - 1 if colon else -1
        first = text.count("\n", 0, initializers) + 1 if colon else first
        found.append(Function(name, first, last, start, end, returns, initializers))
    return found


_SCOPE = re.compile(r'\b(namespace|struct|class|union|enum)\b[^()]*$|\bextern\s*(""\s*)?$')


def _bodies(code: str):
    """(offset of the declaration before the brace, that declaration, offset after '{',
    offset of its '}') of every brace block of `code` (comments and strings blanked) at
    namespace or class level that is not itself a namespace, class or linkage block (those
    are entered)."""
    position, last = 0, 0
    while position < len(code):
        char = code[position]
        if char == "{":
            header = " ".join(code[last:position].split())
            if _SCOPE.search(header):
                position += 1
                last = position
                continue
            end = _matching(code, position)
            if end < 0:
                return
            yield last, header, position + 1, end
            position = end + 1
            last = position
            continue
        if char in ";}":
            last = position + 1
        elif char == ":" and code[position - 1:position + 1] != "::" and code[position:position + 2] != "::" \
                and re.search(r"\b(public|private|protected)\s*$", code[last:position]):
            last = position + 1
        position += 1


def _statement_end(code: str, open_paren: int) -> int:
    """The offset after the statement whose macro call's `(` is at `open_paren`: its
    arguments, calls chained on it (`.set_name(...)`), then a `;` or a braced body."""
    end = _matching(code, open_paren, "()") + 1
    while end > 0:
        chained = re.compile(r"\s*(?:\.|->)\s*\w+\s*\(").match(code, end)
        if not chained:
            break
        end = _matching(code, chained.end() - 1, "()") + 1
    if end <= 0:
        return len(code)
    following = re.compile(r"\s*([;{])").match(code, end)
    if not following:
        return end
    return following.end() if following.group(1) == ";" else _matching(code, following.end() - 1) + 1 or len(code)


class _Defined:
    """Whether a macro is defined by a file the compiler read (read once, when first asked)."""

    def __init__(self, read: list[str]):
        self.read, self.text = read, None

    def __call__(self, name: str) -> bool:
        if self.text is None:
            texts = []
            for file in self.read:
                try:
                    texts.append(Path(file).read_text(errors="replace"))
                except OSError:
                    pass
            self.text = "\n".join(texts)
        return re.search(r"^[ \t]*#[ \t]*define[ \t]+%s\b" % re.escape(name), self.text, re.M) is not None


def _matching(code: str, open_brace: int, pair: str = "{}") -> int:
    depth = 0
    for position in range(open_brace, len(code)):
        if code[position] == pair[0]:
            depth += 1
        elif code[position] == pair[1]:
            depth -= 1
            if depth == 0:
                return position
    return -1


def _blank_comments_and_strings(text: str) -> str:
    """`text` with comments, string and character literals and preprocessor lines blanked
    (newlines kept), so that braces and semicolons in them do not count."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*',
                         re.S | re.M)
    return pattern.sub(lambda m: '""' + re.sub(r"[^\n]", " ", m.group(0)[2:]) if m.group(0).startswith('"')
                       else re.sub(r"[^\n]", " ", m.group(0)), text)
