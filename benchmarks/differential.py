"""Random well-defined kernels run three ways: Simulee's NumPy interpreter, its native engine,
and a third executor that shares neither, the same program written as plain C++ (a loop over
the threads of each block between barriers, the warp collectives as loops over a warp) and
compiled by clang for the host CPU. Every output byte must agree.

    python -m benchmarks.differential [--kernels N] [--batch B] [--seed S] [--keep DIR]

A kernel mixes unsigned integer arithmetic (wrapping, shifts, division by an odd number,
popcount, clz, bit reversal), float arithmetic rounded once per operation (__fadd_rn,
__fmul_rn, __fdiv_rn, __fmaf_rn, sqrtf, floorf, fminf and fmaxf), conversions between
integers, float, half and bfloat16 (and half and bfloat16 products), branches and loops a
thread's values decide, shared memory written by its owner and read by others after a
barrier, warp shuffles and votes over full warps, and atomics whose updates commute. B
kernels go to one file (each file compiled once per executor). Prints the kernels and the
disagreements (each with the kernel's source and the first differing output), with the
seconds; exit status 1 on any disagreement. `Generator(choose)` makes kernels from a chooser
(`choose(options)` returns one of them); tests/test_differential.py runs eight files of 25.
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import batches

GRID, BLOCK = 2, 64  # two blocks of two warps
THREADS = GRID * BLOCK
INPUTS = 256  # elements of each input array
LOCALS = 4  # unsigned u0..u3 and float f0..f3 per thread
ACCUMULATORS = 8
ATOMICS = {"Add": (0, 2), "Or": (2, 2), "Xor": (4, 2), "Max": (6, 1), "Min": (7, 1)}  # op: (first slot, slots)
ACC_START = [0] * 7 + [0xFFFFFFFF]  # what the accumulators hold before (the minimum's the largest word)


@dataclass
class Kernel:
    """One random kernel: its phases (lists of segments: ("thread", statements) or
    ("collective", statement)), rendered as CUDA and as C++."""

    name: str
    phases: list = field(default_factory=list)


class Generator:
    """Random kernels from `choose(options)`."""

    def __init__(self, choose):
        self.choose = choose

    # --- expressions: each as (CUDA text, C++ text)
    def unsigned(self, depth: int = 0) -> tuple[str, str]:
        c = self.choose
        kind = c(("local", "local", "constant", "index", "input") + (("binary",) * 3 + ("unary", "convert")
                                                                     if depth < 3 else ()))
        if kind == "local":
            name = f"u{c(range(LOCALS))}"
            return name, f"u{name[1:]}[t]"
        if kind == "constant":
            value = str(c((0, 1, 3, 7, 31, 255, 65535, 0x80000000, 0xFFFFFFFF, 12345))) + "u"
            return value, value
        if kind == "index":
            return c((("threadIdx.x", "tid"), ("blockIdx.x", "bid"), ("(threadIdx.x & 31u)", "(tid & 31u)")))
        if kind == "input":
            index_cuda, index_cpp = self.unsigned(depth + 1)
            return f"in_u[({index_cuda}) % {INPUTS}u]", f"in_u[({index_cpp}) % {INPUTS}u]"
        if kind == "unary":
            (a, b), op = self.unsigned(depth + 1), c(("popc", "clz", "brev", "neg", "not"))
            return {"popc": (f"(unsigned)__popc({a})", f"popc({b})"), "clz": (f"(unsigned)__clz({a})", f"clz({b})"),
                    "brev": (f"__brev({a})", f"brev({b})"), "neg": (f"(0u - ({a}))", f"(0u - ({b}))"),
                    "not": (f"(~({a}))", f"(~({b}))")}[op]
        if kind == "convert":
            f_cuda, f_cpp = self.floating(depth + 1)
            return (f"(unsigned)fminf(fmaxf({f_cuda}, 0.0f), 4.0e9f)",
                    f"(unsigned)gpu_fmin(gpu_fmax({f_cpp}, 0.0f), 4.0e9f)")
        (a, b), (x, y) = self.unsigned(depth + 1), self.unsigned(depth + 1)
        op = c(("+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%", "min", "max"))
        if op in ("<<", ">>"):
            return f"(({a}) {op} (({x}) & 31u))", f"(({b}) {op} (({y}) & 31u))"
        if op in ("/", "%"):
            return f"(({a}) {op} (({x}) | 1u))", f"(({b}) {op} (({y}) | 1u))"
        if op in ("min", "max"):
            return f"{op}({a}, {x})", f"std::{op}<unsigned>({b}, {y})"
        return f"(({a}) {op} ({x}))", f"(({b}) {op} ({y}))"

    def floating(self, depth: int = 0) -> tuple[str, str]:
        c = self.choose
        kind = c(("local", "local", "constant", "input") + (("binary",) * 3 + ("unary", "convert", "narrow")
                                                             if depth < 3 else ()))
        if kind == "local":
            name = f"f{c(range(LOCALS))}"
            return name, f"f{name[1:]}[t]"
        if kind == "constant":
            value = c(("0.0f", "1.0f", "-2.5f", "0.1f", "3.0e10f", "1.0e-30f", "-0.0f", "65504.0f"))
            return value, value
        if kind == "input":
            index_cuda, index_cpp = self.unsigned(depth + 1)
            return f"in_f[({index_cuda}) % {INPUTS}u]", f"in_f[({index_cpp}) % {INPUTS}u]"
        if kind == "unary":
            (a, b), op = self.floating(depth + 1), c(("sqrt", "floor", "abs", "neg"))
            return {"sqrt": (f"sqrtf(fabsf({a}))", f"std::sqrt(std::fabs({b}))"),
                    "floor": (f"floorf({a})", f"std::floor({b})"), "abs": (f"fabsf({a})", f"std::fabs({b})"),
                    "neg": (f"(-({a}))", f"(-({b}))")}[op]
        if kind == "convert":
            a, b = self.unsigned(depth + 1)
            return f"(float)({a})", f"(float)({b})"
        if kind == "narrow":  # through half or bfloat16, or their product
            (a, b), (x, y) = self.floating(depth + 1), self.floating(depth + 1)
            op = c(("half", "bfloat16", "half product", "bfloat16 product"))
            return {"half": (f"__half2float(__float2half({a}))", f"(float)(_Float16)({b})"),
                    "bfloat16": (f"__bfloat162float(__float2bfloat16({a}))", f"to_bf16({b})"),
                    "half product": (f"__half2float(__hmul(__float2half({a}), __float2half({x})))",
                                     f"(float)(_Float16)((float)(_Float16)({b}) * (float)(_Float16)({y}))"),
                    "bfloat16 product": (
                        f"__bfloat162float(__hmul(__float2bfloat16({a}), __float2bfloat16({x})))",
                        f"to_bf16(to_bf16({b}) * to_bf16({y}))")}[op]
        (a, b), (x, y) = self.floating(depth + 1), self.floating(depth + 1)
        op = c(("add", "sub", "mul", "div", "fma", "min", "max"))
        if op == "fma":
            p, q = self.floating(depth + 1)
            return f"__fmaf_rn({a}, {x}, {p})", f"std::fma({b}, {y}, {q})"
        cuda = {"add": f"__fadd_rn({a}, {x})", "sub": f"__fsub_rn({a}, {x})", "mul": f"__fmul_rn({a}, {x})",
                "div": f"__fdiv_rn({a}, {x})", "min": f"fminf({a}, {x})", "max": f"fmaxf({a}, {x})"}[op]
        cpp = {"add": f"(({b}) + ({y}))", "sub": f"(({b}) - ({y}))", "mul": f"(({b}) * ({y}))",
               "div": f"(({b}) / ({y}))", "min": f"gpu_fmin({b}, {y})", "max": f"gpu_fmax({b}, {y})"}[op]
        return cuda, cpp

    # --- statements: (CUDA lines, C++ lines)
    def statements(self, depth: int, shared: dict) -> tuple[list[str], list[str]]:
        cuda, cpp = [], []
        for _ in range(self.choose(range(1, 4))):
            a, b = self.statement(depth, shared)
            cuda += a
            cpp += b
        return cuda, cpp

    def statement(self, depth: int, shared: dict) -> tuple[list[str], list[str]]:
        c = self.choose
        kinds = ["unsigned", "float", "unsigned", "float", "atomic"]
        kinds += [f"{mode} {array}" for array, mode in shared.items() if mode in ("read", "write")]
        if depth < 2:
            kinds += ["if", "for"]
        kind = c(kinds)
        if kind == "unsigned":
            k, (a, b) = c(range(LOCALS)), self.unsigned()
            return [f"u{k} = {a};"], [f"u{k}[t] = {b};"]
        if kind == "float":
            k, (a, b) = c(range(LOCALS)), self.floating()
            return [f"f{k} = {a};"], [f"f{k}[t] = {b};"]
        if kind == "atomic":  # each accumulator has one operation: updates of one commute
            (slot_a, slot_b), (a, b) = self.unsigned(1), self.unsigned(1)
            op = c(tuple(ATOMICS))
            first, count = ATOMICS[op]
            cpp_op = {"Add": "+=", "Or": "|=", "Xor": "^="}.get(op)
            target = f"acc[{first}u + ({slot_b}) % {count}u]"
            update = f"{target} {cpp_op} ({b});" if cpp_op else \
                f"{target} = std::{op.lower()}<unsigned>({target}, {b});"
            return [f"atomic{op}(&acc[{first}u + ({slot_a}) % {count}u], {a});"], [update]
        if kind.startswith("write"):  # a thread writes its own element: none reads the array before a barrier
            array = kind.split()[1]
            a, b = self.unsigned() if array == "su" else self.floating()
            return [f"{array}[threadIdx.x] = {a};"], [f"{array}[tid] = {b};"]
        if kind.startswith("read"):  # what other threads wrote before the last barrier
            array, k, offset = kind.split()[1], c(range(LOCALS)), c((1, 7, 31, 33))
            local = "u" if array == "su" else "f"
            return [f"{local}{k} = {array}[(threadIdx.x + {offset}u) % {BLOCK}u];"], \
                [f"{local}{k}[t] = {array}[(tid + {offset}u) % {BLOCK}u];"]
        condition_a, condition_b = self.unsigned(1)
        inner_a, inner_b = self.statements(depth + 1, shared)
        if kind == "if":
            else_a, else_b = self.statements(depth + 1, shared)
            return ([f"if ((({condition_a}) & 3u) == 0u) {{", *inner_a, "} else {", *else_a, "}"],
                    [f"if ((({condition_b}) & 3u) == 0u) {{", *inner_b, "} else {", *else_b, "}"])
        counter = f"j{depth}"
        return ([f"for (unsigned {counter} = 0; {counter} < (({condition_a}) & 3u); ++{counter}) {{", *inner_a, "}"],
                [f"for (unsigned {counter} = 0; {counter} < (({condition_b}) & 3u); ++{counter}) {{", *inner_b,
                 "}"])

    def collective(self) -> tuple[str, str]:
        """A warp collective over full warps (CUDA), and its C++ over each warp's lanes
        (`lane_value(expression with t)`: the source value of lane `src`)."""
        c = self.choose
        kind, k, j = c(("shfl", "xor", "down", "ballot", "any", "all", "fshfl")), c(range(LOCALS)), c(range(LOCALS))
        if kind == "shfl":
            offset = c((1, 5, 31))
            return (f"u{k} = __shfl_sync(0xffffffffu, u{j}, (threadIdx.x + {offset}u) & 31u);",
                    f"shuffled[t] = u{j}[warp + ((t + {offset}u) & 31u)];", f"u{k}")
        if kind == "fshfl":
            offset = c((2, 16))
            return (f"f{k} = __shfl_xor_sync(0xffffffffu, f{j}, {offset});",
                    f"fshuffled[t] = f{j}[warp + ((t & 31u) ^ {offset}u)];", f"f{k}")
        if kind == "xor":
            mask = c((1, 8, 31))
            return (f"u{k} = __shfl_xor_sync(0xffffffffu, u{j}, {mask});",
                    f"shuffled[t] = u{j}[warp + ((t & 31u) ^ {mask}u)];", f"u{k}")
        if kind == "down":
            delta = c((1, 4))
            return (f"u{k} = __shfl_down_sync(0xffffffffu, u{j}, {delta});",
                    f"shuffled[t] = (t & 31u) + {delta}u < 32u ? u{j}[t + {delta}u] : u{j}[t];", f"u{k}")
        if kind == "ballot":
            return (f"u{k} = __ballot_sync(0xffffffffu, u{j} & 1u);",
                    f"shuffled[t] = ballot(u{j}, warp);", f"u{k}")
        vote = {"any": "__any_sync", "all": "__all_sync"}[kind]
        return (f"u{k} = (unsigned){vote}(0xffffffffu, u{j} & 1u);",
                f"shuffled[t] = {kind}_of(u{j}, warp);", f"u{k}")

    def kernel(self, name: str) -> Kernel:
        c = self.choose
        kernel = Kernel(name)
        shared = {"su": "unused", "sf": "unused"}
        for number in range(c(range(1, 4))):
            if number:  # a barrier: what was written is now read, what was read may be written
                shared = {array: {"write": "read", "read": "write", "unused": c(("write", "unused"))}[mode]
                          for array, mode in shared.items()}
            elif c((True, False)):
                shared = {array: c(("write", "unused")) for array in shared}
            segments = [("thread", self.statements(0, shared))]
            for _ in range(c(range(0, 3))):
                segments.append(("collective", self.collective()))
                segments.append(("thread", self.statements(0, shared)))
            kernel.phases.append(segments)
        return kernel


PRELUDE_CUDA = "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n"
PRELUDE_CPP = r"""#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
typedef unsigned U;
static U popc(U x) { return (U)__builtin_popcount(x); }
static U clz(U x) { return x ? (U)__builtin_clz(x) : 32u; }
static U brev(U x) { U r = 0; for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i); return r; }
static U ballot(const U *v, U warp) { U r = 0; for (U l = 0; l < 32; ++l) r |= (v[warp + l] & 1u) << l; return r; }
static U any_of(const U *v, U warp) { for (U l = 0; l < 32; ++l) if (v[warp + l] & 1u) return 1u; return 0u; }
static U all_of(const U *v, U warp) { for (U l = 0; l < 32; ++l) if (!(v[warp + l] & 1u)) return 0u; return 1u; }
// float to bfloat16, rounded to nearest even (a NaN stays one), as a float
static float to_bf16(float x) {
  if (x != x) return x;
  U bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
  std::memcpy(&x, &bits, 4);
  return x;
}
// fminf and fmaxf as the GPU computes them: the other operand where one is NaN, -0 below +0
static float gpu_fmin(float a, float b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
static float gpu_fmax(float a, float b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
"""


def cuda_source(kernel: Kernel) -> str:
    lines = [f"__global__ void {kernel.name}(const unsigned *in_u, const float *in_f, unsigned *out_u, float *out_f, "
             "unsigned *acc) {",
             f"  __shared__ unsigned su[{BLOCK}];", f"  __shared__ float sf[{BLOCK}];",
             "  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;",
             f"  unsigned u0 = in_u[gid % {INPUTS}u], u1 = threadIdx.x, u2 = blockIdx.x, "
             f"u3 = in_u[(gid * 7u + 3u) % {INPUTS}u];",
             f"  float f0 = in_f[gid % {INPUTS}u], f1 = (float)threadIdx.x * 0.5f, "
             f"f2 = in_f[(gid * 5u + 1u) % {INPUTS}u], f3 = 1.0f;",
             "  su[threadIdx.x] = 0u;", "  sf[threadIdx.x] = 0.0f;", "  __syncthreads();"]
    for number, segments in enumerate(kernel.phases):
        if number:
            lines.append("  __syncthreads();")
        for kind, body in segments:
            lines += [f"  {line}" for line in (body[0] if kind == "thread" else [body[0]])]
    lines += [f"  out_u[gid * 4u + {k}u] = u{k};" for k in range(LOCALS)]
    lines += [f"  out_f[gid * 4u + {k}u] = f{k};" for k in range(LOCALS)]
    return "\n".join(lines) + "\n}\n"


def cpp_source(kernel: Kernel) -> str:
    loop = f"for (U t = 0; t < {BLOCK}u; ++t)"
    lines = [f"static void {kernel.name}(const U *in_u, const float *in_f, U *out_u, float *out_f, U *acc) {{",
             f"  for (U bid = 0; bid < {GRID}u; ++bid) {{",
             f"    U su[{BLOCK}] = {{}}; float sf[{BLOCK}] = {{}};",
             f"    U u0[{BLOCK}], u1[{BLOCK}], u2[{BLOCK}], u3[{BLOCK}], shuffled[{BLOCK}];",
             f"    float f0[{BLOCK}], f1[{BLOCK}], f2[{BLOCK}], f3[{BLOCK}], fshuffled[{BLOCK}];",
             "    (void)su; (void)sf; (void)shuffled; (void)fshuffled;",
             f"    {loop} {{ U tid = t, gid = bid * {BLOCK}u + t; (void)tid;",
             f"      u0[t] = in_u[gid % {INPUTS}u]; u1[t] = t; u2[t] = bid; "
             f"u3[t] = in_u[(gid * 7u + 3u) % {INPUTS}u];",
             f"      f0[t] = in_f[gid % {INPUTS}u]; f1[t] = (float)t * 0.5f; "
             f"f2[t] = in_f[(gid * 5u + 1u) % {INPUTS}u]; f3[t] = 1.0f; }}"]
    for segments in kernel.phases:
        for kind, body in segments:
            if kind == "thread":
                lines.append(f"    {loop} {{ U tid = t; (void)tid;")
                lines += [f"      {line}" for line in body[1]]
                lines.append("    }")
            else:
                _, statement, target = body
                lines.append(f"    {loop} {{ U warp = t & ~31u; (void)warp; {statement} }}")
                source = "fshuffled" if target.startswith("f") else "shuffled"
                lines.append(f"    {loop} {target}[t] = {source}[t];")
    lines.append(f"    {loop} {{ U gid = bid * {BLOCK}u + t;")
    lines += [f"      out_u[gid * 4u + {k}u] = u{k}[t]; out_f[gid * 4u + {k}u] = f{k}[t];" for k in range(LOCALS)]
    lines += ["    }", "  }", "}"]
    return "\n".join(lines) + "\n"


def reference_program(kernels: list[Kernel]) -> str:
    """A C++ program that runs every kernel on the inputs in argv[1] and writes each one's
    outputs (out_u, out_f, acc) to argv[2], kernel after kernel."""
    body = [PRELUDE_CPP, *map(cpp_source, kernels),
            "int main(int argc, char **argv) {",
            f"  std::vector<U> in_u({INPUTS}); std::vector<float> in_f({INPUTS});",
            "  FILE *in = std::fopen(argv[1], \"rb\"); FILE *out = std::fopen(argv[2], \"wb\");",
            f"  if (!in || !out || std::fread(in_u.data(), 4, {INPUTS}, in) != {INPUTS} || "
            f"std::fread(in_f.data(), 4, {INPUTS}, in) != {INPUTS}) return 2;"]
    for kernel in kernels:
        start = ", ".join(f"{v}u" for v in ACC_START)
        body += ["  {", f"    std::vector<U> out_u({THREADS * LOCALS}), acc{{{start}}};",
                 f"    std::vector<float> out_f({THREADS * LOCALS});",
                 f"    {kernel.name}(in_u.data(), in_f.data(), out_u.data(), out_f.data(), acc.data());",
                 f"    std::fwrite(out_u.data(), 4, {THREADS * LOCALS}, out); "
                 f"std::fwrite(out_f.data(), 4, {THREADS * LOCALS}, out); "
                 f"std::fwrite(acc.data(), 4, {ACCUMULATORS}, out);", "  }"]
    body += ["  std::fclose(out);", "  return 0;", "}"]
    return "\n".join(body) + "\n"


def inputs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' input arrays: random words, and floats of every magnitude (with zeros
    of both signs; no NaN, whose payloads the executors need not agree on)."""
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 2 ** 32, INPUTS, dtype=np.uint64).astype(np.uint32)
    floats = (rng.standard_normal(INPUTS) * np.exp2(rng.integers(-20, 20, INPUTS))).astype(np.float32)
    floats[:4] = [0.0, -0.0, 1.0, 65504.0]
    return words, floats


def run_batch(kernels: list[Kernel], folder: Path, number: int, seed: int) -> list[dict]:
    """Compile the batch for each executor, run every kernel, and compare: one entry per
    kernel ({"kernel", "source", "disagreements": [what differs, ...]})."""
    from interpreter.launch import Launch
    from interpreter.simt import execute
    from simulee.frontend.compiler import load_program

    words, floats = inputs(seed)
    cuda = folder / f"batch{number}.cu"
    cuda.write_text(PRELUDE_CUDA + "".join(map(cuda_source, kernels)))
    program = load_program(cuda)
    cpp, executable, data, results = (folder / f"batch{number}{suffix}" for suffix in (".cpp", ".exe", ".in", ".out"))
    cpp.write_text(reference_program(kernels))
    # unoptimized (it runs for milliseconds), for the target `simulee exec` builds for (zig caches its C++ library)
    built = subprocess.run([sys.executable, "-m", "ziglang", "c++", "-O0", "-target", "x86_64-linux-musl", "-std=c++17",
                            "-ffp-contract=off", "-o", str(executable), str(cpp)], capture_output=True, text=True,
                           timeout=600)
    if built.returncode != 0:
        raise RuntimeError(f"the reference does not build: {built.stderr[-2000:]}")
    data.write_bytes(words.tobytes() + floats.tobytes())
    ran = subprocess.run([str(executable), str(data), str(results)], capture_output=True, timeout=600)
    if ran.returncode != 0:
        raise RuntimeError(f"the reference failed with status {ran.returncode}")
    size = (2 * THREADS * LOCALS + ACCUMULATORS) * 4
    reference = results.read_bytes()
    found = []
    for index, kernel in enumerate(kernels):
        expected = reference[index * size:(index + 1) * size]
        entry = {"kernel": kernel.name, "source": cuda_source(kernel), "disagreements": []}
        for engine in ("numpy", "native"):
            args = {"in_u": words, "in_f": floats, "out_u": np.zeros(THREADS * LOCALS, np.uint32),
                    "out_f": np.zeros(THREADS * LOCALS, np.float32), "acc": np.array(ACC_START, np.uint32)}
            with _native_at_once():
                result = execute(program, kernel.name, Launch((GRID, 1, 1), (BLOCK, 1, 1), args, engine=engine))
            if result.status != "ok":
                entry["disagreements"].append(f"{engine}: {result.status}: {result.message}")
                continue
            got = b"".join(result.buffers[name].tobytes() for name in ("out_u", "out_f", "acc"))
            if not _agree(got, expected):
                entry["disagreements"].append(f"{engine}: {_first_difference(got, expected)}")
        found.append(entry)
    return found


@contextlib.contextmanager
def _native_at_once():
    """The native engine compiles each kernel's code for its first run (a small launch would
    otherwise run on NumPy through the whole warm-up)."""
    before = os.environ.get("SIMULEE_NATIVE_WARMUP")
    os.environ["SIMULEE_NATIVE_WARMUP"] = "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["SIMULEE_NATIVE_WARMUP"]
        else:
            os.environ["SIMULEE_NATIVE_WARMUP"] = before


def _differing(got: bytes, expected: bytes) -> np.ndarray:
    """The words of two outputs that differ, a NaN of out_f agreeing with any NaN (the GPU's
    payload is its own: no executor here computes it)."""
    words = THREADS * LOCALS
    a, b = np.frombuffer(got, np.uint32), np.frombuffer(expected, np.uint32)
    floats = np.zeros(len(a), dtype=bool)
    floats[words:2 * words] = True
    nan = floats & np.isnan(a.view(np.float32)) & np.isnan(b.view(np.float32))
    return (a != b) & ~nan


def _agree(got: bytes, expected: bytes) -> bool:
    return len(got) == len(expected) and not _differing(got, expected).any()


def _first_difference(got: bytes, expected: bytes) -> str:
    words = THREADS * LOCALS
    a, b = np.frombuffer(got, np.uint32), np.frombuffer(expected, np.uint32)
    at = int(np.flatnonzero(_differing(got, expected))[0])
    if at < words:
        return f"out_u[{at}] = {a[at]} instead of {b[at]}"
    if at < 2 * words:
        x, y = a[at:at + 1].view(np.float32)[0], b[at:at + 1].view(np.float32)[0]
        return f"out_f[{at - words}] = {x!r} instead of {y!r}"
    return f"acc[{at - 2 * words}] = {a[at]} instead of {b[at]}"


def main(argv: list[str] | None = None) -> int:
    args = batches.arguments("differential", __doc__, 50, argv)
    if args is None:
        return 2
    rng = random.Random(args.seed)
    generator = Generator(lambda options: rng.choice(list(options)))
    start = time.perf_counter()
    results = batches.in_batches(args, lambda number, names, folder: run_batch(
        [generator.kernel(f"k{i}") for i in names], folder, number, args.seed + number), "run")
    wrong = [entry for entry in results if entry["disagreements"]]
    for entry in wrong:
        print(f"DISAGREEMENT: {entry['kernel']}: {'; '.join(entry['disagreements'])}\n{entry['source']}")
    print(f"{len(results)} kernels (seed {args.seed}): {len(wrong)} disagreements; "
          f"{time.perf_counter() - start:.1f} s")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
