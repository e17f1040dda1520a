"""What the search may change about a launch: a genome is one number per gene. Genes are
the grid and block dimensions the kernel reads (a kernel that reads only threadIdx.x gets
1-D blocks and one block) and the scalar parameters that flow into addresses or branches;
everything else keeps the value of the base launch. Members of structs passed by value keep
theirs: varied freely, the search sets a matrix's stride below its width and every row
overlaps the next (kaldi's MatrixDim), which the code never does."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from interpreter.launch import BLOCK_LIMITS, GRID_LIMITS, MAX_THREADS_PER_BLOCK, Launch
from interpreter.loader import KernelInfo

INTEGER_CEILING = 1 << 16  # the largest integer argument the search tries
INITIAL_INTEGER_CEILING = 4096  # initial integers are drawn log-uniformly up to this
FLOAT_RANGE = (-64.0, 64.0)
INITIAL_FLOAT_RANGE = (0.0, 4.0)


@dataclass(frozen=True)
class Gene:
    """`name` is "grid.x" ... "block.z" for a dimension, else a parameter name."""

    name: str
    low: float
    high: float
    integer: bool = True
    choices: tuple[int, ...] = ()  # the only values it takes (an enum's enumerators), sorted

    @property
    def dimension(self) -> bool:
        return self.name.startswith(("grid.", "block."))


@dataclass
class SearchSpace:
    """Genes and how a genome becomes a launch. `base` supplies every value that is not a
    gene; `relevant` says, per scalar parameter that matters, where it flows."""

    kernel: KernelInfo
    base: Launch
    genes: tuple[Gene, ...]
    relevant: dict[str, list[str]]
    max_blocks: int
    dictionary: tuple[int, ...] = ()  # constants the kernel compares against (evolve.constants)

    @classmethod
    def of(cls, kernel: KernelInfo, base: Launch, relevant: dict[str, list[str]], fixed: set[str],
           max_blocks: int = 32, reads: tuple[str, ...] | None = None, dictionary: tuple[int, ...] = ()
           ) -> "SearchSpace":
        """The space around `base`: dimensions the kernel reads (`reads`, default all its
        index registers) and relevant scalar parameters, less those named in `fixed`
        ("grid", "block" or a parameter name)."""
        reads = set(kernel.builtins if reads is None else reads)
        genes = []
        for what, registers, ceilings in (("grid", ("ctaid", "nctaid"), [min(max_blocks, g) for g in GRID_LIMITS]),
                                          ("block", ("tid", "ntid"), BLOCK_LIMITS)):
            if what not in fixed:
                genes += [Gene(f"{what}.{axis}", 1, ceiling) for axis, ceiling in zip("xyz", ceilings)
                          if any(f"{register}.{axis}" in reads for register in registers)]
        for param in kernel.params:
            if param.name in relevant and param.name not in fixed:
                genes.append(_scalar_gene(param))
        return cls(kernel, base, tuple(genes), relevant, max_blocks, dictionary)

    def random_genome(self, rng: np.random.Generator) -> list[float]:
        values = []
        for gene in self.genes:
            if gene.choices:
                values.append(gene.choices[int(rng.integers(len(gene.choices)))])
            elif gene.integer:
                ceiling = gene.high if gene.dimension else min(gene.high, INITIAL_INTEGER_CEILING)
                values.append(int(round(math.exp(rng.uniform(math.log(max(gene.low, 1)), math.log(ceiling + 1))))))
            else:
                values.append(float(rng.uniform(*INITIAL_FLOAT_RANGE)))
        return self.repair(values)

    def repair(self, values: list[float]) -> list[float]:
        """Round integers, clamp every gene to its range, and halve the largest searched
        axis of a block of over 1,024 threads or a searched grid of over max_blocks blocks
        (a grid the user gave keeps its size)."""
        values = [min(max(int(round(v)) if g.integer else float(v), g.low), g.high) if math.isfinite(v) else g.low
                  for g, v in zip(self.genes, values)]
        values = [min(g.choices, key=lambda c: abs(c - v)) if g.choices else v for g, v in zip(self.genes, values)]
        for what, limit in (("block", MAX_THREADS_PER_BLOCK), ("grid", self.max_blocks)):
            searched = [i for i, g in enumerate(self.genes) if g.name.startswith(what + ".")]
            while searched and math.prod(self._dims(values, what)) > limit:
                largest = max(searched, key=lambda i: values[i])
                if values[largest] == 1:
                    break  # the axes not searched alone exceed the limit
                values[largest] = max(1, values[largest] // 2)
        return values

    def launch(self, values: list[float], **options) -> Launch:
        """The launch a genome stands for; `options` override Launch fields."""
        args = dict(self.base.args)
        args.update({g.name: v for g, v in zip(self.genes, values) if not g.dimension})
        return replace(self.base, grid=self._dims(values, "grid"), block=self._dims(values, "block"), args=args,
                       **options)

    def genome(self, launch: Launch) -> list[float]:
        """The genome of `launch` (its values for the genes)."""
        dims = {f"{what}.{axis}": size for what in ("grid", "block")
                for axis, size in zip("xyz", getattr(launch, what))}
        return self.repair([dims[g.name] if g.dimension else launch.args[g.name] for g in self.genes])

    def _dims(self, values: list[float], what: str) -> tuple[int, int, int]:
        dims = list(getattr(self.base, what))
        for gene, value in zip(self.genes, values):
            if gene.name.startswith(what + "."):
                dims["xyz".index(gene.name[-1])] = int(value)
        return tuple(dims)


def _scalar_gene(param) -> Gene:
    """Integers from 1 (a size, count or stride of 0 makes no launch) up to the type's
    maximum or INTEGER_CEILING; enums their enumerators; booleans 0 or 1; floats within
    FLOAT_RANGE."""
    if param.kind == "float":
        return Gene(param.name, *FLOAT_RANGE, integer=False)
    if param.choices:
        choices = tuple(sorted(param.choices))
        return Gene(param.name, choices[0], choices[-1], choices=choices)
    bits = param.bits or 32
    if bits == 1:
        return Gene(param.name, 0, 1)
    maximum = (1 << (bits - 1)) - 1 if param.signed is not False else (1 << bits) - 1
    return Gene(param.name, 1, min(maximum, INTEGER_CEILING))
