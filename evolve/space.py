"""What the search may change about a launch: a genome is one number per gene. Genes are
the grid and block dimensions the kernel reads (a kernel that reads only threadIdx.x gets
1-D blocks and one block), the scalar parameters that flow into addresses or branches,
what the buffers hold when their content flows there (FILL_GENE: small, wide, distinct or
sorted values, interpreter.contents), and, with no launch site to say which buffers are
which, whether two pointer parameters of the same type are one buffer (ALIAS_GENE: an
in-place call); everything else keeps the value of the base launch. Members of structs passed by value keep
theirs: varied freely, the search sets a matrix's stride below its width and every row
overlaps the next (kaldi's MatrixDim), which the code never does."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from evolve.launchsite import (Site, Unknown, argument_sizes, arguments_written, evaluate, input_bounds, inputs_of,
                              kernel_arguments, packed_inputs)
from evolve.taint import ADDRESS, DIVISOR
from interpreter.launch import (BLOCK_LIMITS, GRID_LIMITS, MAX_THREADS_PER_BLOCK, Alias, Allocated, Launch,
                               launch_problem)
from interpreter.limits import MAX_SHARED_BYTES
from interpreter.loader import KernelInfo, ParamInfo

INTEGER_CEILING = 1 << 16  # the largest integer argument the search tries
INITIAL_INTEGER_CEILING = 4096  # initial integers are drawn log-uniformly up to this
FLOAT_RANGE = (-64.0, 64.0)
INITIAL_FLOAT_RANGE = (0.0, 4.0)
SITE_GENE, FILL_GENE, ALIAS_GENE = "@site", "@fill", "@alias"  # genes that are no parameter (@ is in no C name)
SEARCHED_FILLS = ("small", "wide", "distinct", "sorted")  # FILL_GENE's choices, the first the default
STRIDE_NAME = re.compile(r"stride|pitch|area|^ld[a-z]?$|_ld[a-z]?$", re.I)  # a row's (plane's) length, by convention


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

    @property
    def argument(self) -> bool:
        """Whether the gene is a kernel argument (a scalar or a member of a struct)."""
        return not self.dimension and not self.name.startswith("@")


class InvalidGenome(ValueError):
    """A genome that stands for no launch CUDA would run (a launch site's grid of 0 blocks)."""


@dataclass(frozen=True)
class SitePlan:
    """How a genome becomes the launch of one site: per input of the site, the index of
    the gene that gives it (None: it keeps its default); the kernel scalars the site
    computes; the pointer parameters that are another one (the same buffer passed twice)."""

    site: Site
    genes: tuple[int | None, ...]
    defaults: tuple
    scalars: tuple[tuple[str, list], ...]
    aliases: tuple[tuple[str, str], ...]
    bounds: tuple[tuple[int, int | None, int | None], ...] = ()  # (input, lowest, highest) the host code tests
    packed: frozenset[int] = frozenset()  # inputs that pack two 32-bit values: both halves take the value
    known: frozenset[str] = frozenset()  # kernel scalars the site passes as constants, or the user gives
    nulls: tuple[str, ...] = ()  # pointer parameters the site passes NULL
    sizes: tuple[tuple[str, list], ...] = ()  # pointer parameters whose buffers' sizes the host allocates

    def inputs(self, values: list[float] | None = None) -> list:
        """The site's inputs for a genome (None: at their defaults): each its gene's value
        (or its default), within the bounds the host code's conditions set (`Bl.x == 32`
        makes it 32)."""
        inputs = self.bounded([values[g] if g is not None and values is not None else d
                               for g, d in zip(self.genes, self.defaults)])
        for index in self.packed:
            inputs[index] = _packed(inputs[index])
        return inputs

    def bounded(self, inputs: list) -> list:
        """`inputs` within the bounds the host code's conditions set (`Bl.x == 32` makes it 32)."""
        for index, low, high in self.bounds:
            inputs[index] = min(max(inputs[index], low if low is not None else inputs[index]),
                                high if high is not None else inputs[index])
        return inputs


@dataclass
class SearchSpace:
    """Genes and how a genome becomes a launch. `base` supplies every value that is not a
    gene; `relevant` says, per scalar parameter that matters, where it flows. With launch
    `plans` (one per launch site) a genome is a site (SITE_GENE when there are several)
    and the site's inputs: every launch is one the host code can make. `aliases` are the
    pairs of pointer parameters ALIAS_GENE chooses from (choice i > 0: pair i - 1)."""

    kernel: KernelInfo
    base: Launch
    genes: tuple[Gene, ...]
    relevant: dict[str, list[str]]
    max_blocks: int
    dictionary: tuple[int, ...] = ()  # constants the kernel compares against (evolve.constants)
    plans: tuple[SitePlan, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    fill: str = SEARCHED_FILLS[0]  # what buffers hold when no gene chooses it
    strides: frozenset[str] = frozenset()  # integer parameters used as row strides (evolve.taint.stride_parameters)
    row_span: int = 2  # how many times a size a row spans at least (evolve.taint.row_span)
    stated: object = None  # what the user states (stating)
    derived: dict = field(default_factory=dict)  # arguments a stated relation computes: name -> expression

    @classmethod
    def of(cls, kernel: KernelInfo, base: Launch, relevant: dict[str, list[str]], fixed: set[str],
           max_blocks: int = 32, reads: tuple[str, ...] | None = None, dictionary: tuple[int, ...] = (),
           aliases: tuple[tuple[str, str], ...] = ()) -> "SearchSpace":
        """The space around `base`: dimensions the kernel reads (`reads`, default all its
        index registers), relevant scalar parameters and the content of buffers, less
        those named in `fixed` ("grid", "block", "fill" or a parameter name), and which of
        the pairs `aliases` (alias_pairs) is one buffer, unless a pointer is fixed."""
        reads = set(kernel.builtins if reads is None else reads)
        genes = []
        for what in ("grid", "block"):
            if what not in fixed:
                genes += [Gene(f"{what}.{axis}", 1, min(max_blocks, ceiling) if what == "grid" else ceiling)
                          for axis, ceiling in zip("xyz", _LIMITS[what]) if _reads_axis(reads, what, axis)]
        for param in kernel.params:
            if param.name in relevant and param.name not in fixed and param.kind in ("integer", "float"):
                genes.append(_scalar_gene(param, relevant[param.name]))
        genes += _fill_genes(kernel, relevant, fixed)
        aliases = () if fixed & _pointers(kernel) else aliases  # the user said what the buffers are
        if aliases:
            genes.append(Gene(ALIAS_GENE, 0, len(aliases), choices=tuple(range(len(aliases) + 1))))
        return cls(kernel, base, tuple(genes), relevant, max_blocks, dictionary, aliases=aliases,
                   fill=_fixed_fill(base, fixed))

    @classmethod
    def of_sites(cls, kernel: KernelInfo, base: Launch, relevant: dict[str, list[str]], fixed: set[str],
                 sites: list[Site], reads: tuple[str, ...] | None = None, dictionary: tuple[int, ...] = ()
                 ) -> "SearchSpace":
        """The launches of `sites`: genes for the inputs that reach a dimension, the
        shared memory size or a relevant scalar (named after the scalar or dimension they
        are, else after the site), and for the relevant scalars the sites do not give; a
        dimension of an axis the kernel does not read stays 1. Names in `fixed` keep the
        value of `base`."""
        reads = set(kernel.builtins if reads is None else reads)
        scalars = {p.name: p for p in kernel.scalars()}
        genes: list[Gene] = [Gene(SITE_GENE, 0, len(sites) - 1,
                                  choices=tuple(range(len(sites))))] if len(sites) > 1 else []
        names: dict[str, int] = {}

        def gene(name: str, make) -> int:
            if name not in names:
                names[name] = len(genes)
                genes.append(make())
            return names[name]

        plans = []
        for site in sites:
            arguments = kernel_arguments(kernel.params, site) or {}
            given = {name: e for name, e in arguments.items() if name in scalars and name not in fixed}
            aliases = aliased_pointers(kernel, arguments)
            defaults = [_input_default(i, base) for i in site.inputs]
            chosen: list[int | None] = [None] * len(site.inputs)
            tabled = {i for i, site_input in enumerate(site.inputs) if site_input.choices}  # searched as such
            for what in ("grid", "block"):
                for axis, expression in zip("xyz", getattr(site, what)):
                    if expression[0] == "input" and expression[1] not in tabled:
                        ceiling = _LIMITS[what]["xyz".index(axis)]
                        read = _reads_axis(reads, what, axis)
                        defaults[expression[1]] = getattr(base, what)["xyz".index(axis)] if read else 1
                        if read and what not in fixed:
                            chosen[expression[1]] = gene(f"{what}.{axis}",
                                                         lambda c=ceiling, n=f"{what}.{axis}": Gene(n, 1, c))
            for name, expression in given.items():
                if expression[0] == "input" and site.inputs[expression[1]].kind != "pointer" and \
                        expression[1] not in tabled:
                    if site.inputs[expression[1]].start is None:  # else the value the host's loop starts at
                        defaults[expression[1]] = base.args.get(name, defaults[expression[1]])
                    if name.partition(".")[0] in relevant and chosen[expression[1]] is None:
                        chosen[expression[1]] = gene(name, lambda p=scalars[name]: _scalar_gene(
                            p, relevant[p.name.partition(".")[0]]))
            computed_dims = [e for e in site.grid + site.block if e[0] != "input" or e[1] in tabled]  # others: above
            needed = inputs_of(site.shared).union(
                *(inputs_of(e) for e in computed_dims),
                *(inputs_of(e) for n, e in given.items() if n.partition(".")[0] in relevant))
            for index in sorted(needed):
                if chosen[index] is None and site.inputs[index].kind != "pointer":
                    chosen[index] = gene(f"{site.label}#{index}",
                                         lambda i=site.inputs[index], n=f"{site.label}#{index}": _input_gene(n, i))
            # a table's values are each the host's: one outside a bound is no launch, not clamped to another
            bounds = tuple(b for b in map(input_bounds, site.conditions) if b is not None and b[0] not in tabled)
            known = {name for name, e in arguments.items() if name in scalars and e[0] == "const"} | \
                {name for name in scalars if name in fixed or name.partition(".")[0] in fixed}
            nulls = tuple(p.name for p in kernel.params if p.kind == "pointer" and p.name not in fixed
                          and arguments.get(p.name) == ["const", 0])
            sizes = tuple((name, size) for name, size in argument_sizes(kernel.params, site).items()
                          if name not in fixed and name not in nulls)
            plans.append(SitePlan(site, tuple(chosen), tuple(defaults), tuple(given.items()), aliases, bounds,
                                  packed_inputs(site, arguments), frozenset(known), nulls, sizes))
        for param in kernel.params:  # relevant scalars no site gives
            if param.name in relevant and param.name not in fixed and param.kind in ("integer", "float") and \
                    any(param.name not in dict(plan.scalars) for plan in plans):
                gene(param.name, lambda p=param: _scalar_gene(p, relevant[p.name]))
        genes += _fill_genes(kernel, relevant, fixed)
        return cls(kernel, base, tuple(genes), relevant, 0, dictionary, tuple(plans), fill=_fixed_fill(base, fixed))

    def stating(self, stated) -> "SearchSpace":
        """This space within what the user states (simulee.checker.config.KernelContract): its
        `ranges` and `choices` narrow the genes of those arguments (or make genes of them:
        a struct's member, kept otherwise, is searched within a range), arguments a relation
        fixes (`derivations`) are computed (`derive`) instead of searched, every launch
        keeps its relations (`admits(launch)`: '' or the one broken) and gets the buffers
        it makes (`make_buffers(launch, params)`)."""
        derived = stated.derivations({g.name for g in self.genes if g.argument})
        genes = []
        for gene in self.genes:
            if gene.name in derived:
                continue
            if gene.name in stated.choices:
                choices = tuple(sorted(stated.choices[gene.name]))
                gene = Gene(gene.name, choices[0], choices[-1], gene.integer, choices)
            elif gene.name in stated.ranges:
                gene = Gene(gene.name, *stated.ranges[gene.name], gene.integer)
            genes.append(gene)
        named = {g.name for g in genes}
        for scalar in self.kernel.scalars():  # a member or unsearched argument the user gives a range is searched
            integer = scalar.kind == "integer"
            if scalar.name in stated.choices and scalar.name not in named:
                choices = tuple(sorted(stated.choices[scalar.name]))
                genes.append(Gene(scalar.name, choices[0], choices[-1], integer, choices))
            elif scalar.name in stated.ranges and scalar.name not in named:
                genes.append(Gene(scalar.name, *stated.ranges[scalar.name], integer))
        return replace(self, genes=tuple(genes), stated=stated, derived=derived)

    def open_scalars(self) -> set[str]:
        """The scalar parameters whose value the search chooses: its argument genes, and
        those a launch site computes from what the host code leaves open."""
        names = {g.name for g in self.genes if g.argument}
        for plan in self.plans:
            names |= {name for name, expression in plan.scalars if inputs_of(expression)}
        return names & {p.name for p in self.kernel.scalars()}

    def site_launches(self, seed: int) -> list[Launch]:
        """Each site's own launch, its inputs at their defaults, on seeded content (as searched
        launches); a site whose defaults make no launch is left to the search."""
        launches = []
        for number, plan in enumerate(self.plans):
            try:
                launches.append(self.launch(self.initial(number), origin=f"site {plan.site.label}", seed=seed))
            except InvalidGenome:
                continue
        return launches

    def initial(self, site: int = 0) -> list[float]:
        """The genome of a site's launch with its inputs at their defaults (the base
        launch's values), or without sites the genome of `base`."""
        if not self.plans:
            return self.genome(self.base)
        values = self._base_values()
        if self.genes and self.genes[0].name == SITE_GENE:
            values[0] = site
        for gene_index, default in zip(self.plans[site].genes, self.plans[site].defaults):
            if gene_index is not None:
                values[gene_index] = default
        return self.repair(values)

    def _base_values(self) -> list[float]:
        """Each gene's value in `base` (its lowest value when base has none: a site's
        input, the first fill, no alias)."""
        return [getattr(self.base, g.name[:-2])["xyz".index(g.name[-1])] if g.dimension else
                self.base.args.get(g.name, g.low) if g.argument else g.low for g in self.genes]

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
        if self.plans:
            return values  # a site's dimensions follow from its inputs: launch() refuses the impossible
        for what, limit in (("block", MAX_THREADS_PER_BLOCK), ("grid", self.max_blocks)):
            searched = [i for i, g in enumerate(self.genes) if g.name.startswith(what + ".")]
            while searched and math.prod(self._dims(values, what)) > limit:
                largest = max(searched, key=lambda i: values[i])
                if values[largest] == 1:
                    break  # the axes not searched alone exceed the limit
                values[largest] = max(1, values[largest] // 2)
        return values

    def launch(self, values: list[float], **options) -> Launch:
        """The launch a genome stands for; `options` override Launch fields. InvalidGenome
        when a site's inputs give no launch CUDA would run."""
        options = {**self._contents(values), **options}
        launch = self.site_launch(values, **options) if self.plans else self._searched_launch(values, **options)
        launch = self.padded(launch)
        return launch if self.stated is None else self.within_statement(launch)

    def padded(self, launch: Launch) -> Launch:
        """`launch` with every row stride the search chooses (a parameter named for one,
        STRIDE_NAME, or used as one: `strides`; not one the user gives a range) at least
        `row_span` times every other integer argument the kernel uses: rows padded apart, never
        overlapping for any width the launch passes (the search would otherwise lower a
        stride below the width, which no allocation does, to make rows collide)."""
        stated = set(self.stated.ranges) | set(self.stated.choices) if self.stated is not None else set()
        strides = [name for name in self._chosen_scalars() - stated
                   if STRIDE_NAME.search(name.rpartition(".")[2]) or name in self.strides]
        if not strides:
            return launch
        sizes = [v for name, v in launch.args.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                 and name not in strides and name.partition(".")[0] in self.relevant]
        least = self.row_span * max(sizes, default=0)
        if all(launch.args.get(name, least) >= least for name in strides):
            return launch
        integers = {p.name: p for p in self.kernel.scalars() if p.kind == "integer"}
        args = dict(launch.args)
        for name in strides:
            if name in integers and args.get(name, least) < least:
                param = integers[name]
                args[name] = min(least, (1 << ((param.bits or 32) - (param.signed is not False))) - 1)
        return replace(launch, args=args)

    def _chosen_scalars(self) -> set[str]:
        """The scalars the search sets: its argument genes, those a site passes a bare
        open value as that nothing else of the site uses (a value the site computes, or one
        its grid, block or other arguments are computed from too, keeps what the host code
        makes of it: CUDA-CNN's grid of kernelSize * kernelSize blocks and kernelSize; one of
        the values a host table or loop gives, `choices`, is the host's), and those a site
        does not pass at all (a by-value struct's member the host loads with the struct:
        kaldi's MatrixDim stride), which keep what Simulee gave them."""
        names, related = {g.name for g in self.genes if g.argument}, set()
        for plan in self.plans:
            passed = {name for name, _ in plan.scalars} | plan.known | set(self.derived)
            names |= {p.name for p in self.kernel.scalars() if p.name not in passed}
            site = plan.site
            for name, expression in plan.scalars:
                if expression[0] != "input" or site.inputs[expression[1]].choices:
                    continue
                elsewhere = [*site.grid, *site.block, site.shared, *site.conditions] + \
                    [e for other, e in plan.scalars if other != name]
                if any(expression[1] in inputs_of(e) for e in elsewhere):
                    related.add(name)
                else:
                    names.add(name)
        return names - related

    def within_statement(self, launch: Launch) -> Launch:
        """`launch` with the buffers the user states, InvalidGenome when it breaks a
        relation the user states."""
        try:
            launch = self.stated.derive(launch, self.derived) if self.derived else launch
        except (ValueError, KeyError, ArithmeticError, TypeError) as error:
            raise InvalidGenome(f"no value for a stated relation: {error}") from None
        broken = self.stated.admits(launch)
        if broken:
            raise InvalidGenome(f"breaks the stated relation {broken}")
        try:
            return self.stated.stating(launch, self.kernel.params)
        except (ValueError, KeyError, ArithmeticError, TypeError) as error:
            raise InvalidGenome(f"no stated buffer: {error}") from None

    def _searched_launch(self, values: list[float], **options) -> Launch:
        args = dict(self.base.args)
        args.update({g.name: v for g, v in zip(self.genes, values) if g.argument})
        alias = self._chosen(values, ALIAS_GENE)
        if alias:
            name, target = self.aliases[int(alias) - 1]
            args[name] = Alias(target)
        return replace(self.base, grid=self._dims(values, "grid"), block=self._dims(values, "block"), args=args,
                       **options)

    def _chosen(self, values: list[float], name: str):
        """The value of the gene `name`, None when there is no such gene."""
        return next((v for g, v in zip(self.genes, values) if g.name == name), None)

    def _contents(self, values: list[float]) -> dict:
        """What buffers hold in a searched launch: seeded content (SEARCHED_FILLS, as the
        fill gene chooses), with the kernel's compared constants for a wide fill."""
        chosen = self._chosen(values, FILL_GENE)
        return {"fill": self.fill if chosen is None else SEARCHED_FILLS[int(chosen)], "dictionary": self.dictionary}

    def site_launch(self, values: list[float], **options) -> Launch:
        number = int(values[0]) if self.genes and self.genes[0].name == SITE_GENE else 0
        plan = self.plans[number]
        inputs = plan.inputs(values)
        grid, block, shared, computed = self._computed(plan, inputs)
        scalars = {p.name: p for p in self.kernel.scalars()}
        args = dict(self.base.args)
        args.update({name: _as_parameter(scalars[name], value) for name, value in computed.items()})
        args.update({g.name: v for g, v in zip(self.genes, values) if g.argument and g.name in scalars
                     and g.name not in computed})
        args.update({name: Alias(target) for name, target in plan.aliases})
        args.update({name: 0 for name in plan.nulls})
        if self.kernel.dynamic_shared:
            options.setdefault("shared_bytes", shared)
        searched = inputs != plan.inputs()
        options.setdefault("origin", f"site {plan.site.label}" + (", inputs searched" if searched else ""))
        stated = set(self.stated.ranges) | set(self.stated.choices) if self.stated is not None else set()
        given, site = dict(plan.scalars), plan.site
        open_inputs = {i for i, site_input in enumerate(site.inputs) if not site_input.choices}  # not the host's
        guessed = tuple((name, frozenset(inputs_of(given[name])) if name in given else frozenset())
                        for name in scalars if name not in plan.known | stated | set(self.derived)
                        and (name not in given or inputs_of(given[name]) & open_inputs))
        guessed += tuple((f"{what}.{axis}", frozenset(inputs_of(expression)))  # dimensions from open host values
                         for what, dims in (("gridDim", site.grid), ("blockDim", site.block))
                         for axis, expression in zip("xyz", dims) if inputs_of(expression) & open_inputs)
        if not guessed:  # the host's launch: its buffers as large as it allocates them
            args.update(_allocated(plan, inputs, args, open_inputs))
        return replace(self.base, grid=grid, block=block, args=args, guessed=guessed,
                       unread=tuple(plan.site.unread_axes().items()), site_inputs=(number, tuple(inputs)),
                       **options)

    def _computed(self, plan: SitePlan, inputs: list) -> tuple[tuple, tuple, int, dict]:
        """The grid, block, dynamic shared bytes and kernel scalars a site computes from
        its `inputs`; InvalidGenome when they give no launch the host code makes."""
        try:
            if not all(int(evaluate(condition, inputs)) & 1 for condition in plan.site.conditions):
                raise Unknown("the host code does not launch it with those values")
            grid = tuple(int(evaluate(e, inputs)) for e in plan.site.grid)
            block = tuple(int(evaluate(e, inputs)) for e in plan.site.block)
            shared = int(evaluate(plan.site.shared, inputs))
            computed = {name: evaluate(e, inputs) for name, e in plan.scalars}
        except (Unknown, TypeError, ValueError) as error:
            raise InvalidGenome(f"no launch at {plan.site.label}: {error}") from None
        for name, expression in plan.scalars:  # searched inputs never make a divisor 0 (the host code would not)
            if computed[name] == 0 and DIVISOR in self.relevant.get(name, ()) and expression[0] != "const":
                raise InvalidGenome(f"no launch at {plan.site.label}: the kernel divides by {name}, which would be 0")
        problem = launch_problem(grid, block) or (min(grid + block) < 1 and "a dimension of 0") or \
            (self.kernel.dynamic_shared and not 0 <= shared <= MAX_SHARED_BYTES and
             f"{shared:,} bytes of dynamic shared memory, more than a CUDA block has")
        if problem:
            raise InvalidGenome(f"no launch at {plan.site.label}: {problem}")
        return grid, block, shared, computed

    def variants(self, launch: Launch, names: list[str], changes: tuple = (), joint: tuple = (), alone: bool = True
                 ) -> list[tuple[str, Launch]]:
        """Launches like `launch` (a site's) with one host value at a time (with `alone`) that
        the guessed scalars and dimensions `names` are computed from set to other values
        (`changes`, or VARIED: off the witness's alignment, near and far, and for an integer
        ALIGNED too: the sizes hosts pass are most often multiples of 128 or powers of two, and
        a kernel written for them may misbehave only off them), and with every one of them
        changed together by each of `joint` (all of them ALIGNED), each with what it changes
        ("n=2"; a launch two changes make alike, once): a finding
        every one of them shows holds whatever the host passes there. Values the host code's
        conditions fix, and changes that make no launch, are left out, and so is ALIGNED alone
        for a single value: that is the joint variant, which callers run with `joint=ALIGNED`."""
        if not launch.site_inputs:
            return []
        number, inputs = launch.site_inputs
        plan = self.plans[number]
        given, site = dict(plan.scalars), plan.site
        dims = {f"{what}.{axis}": e for what, es in (("gridDim", site.grid), ("blockDim", site.block))
                for axis, e in zip("xyz", es)}
        indices, direct = set(), []
        for name in names:
            expression = dims.get(name, given.get(name))
            if expression is not None:
                indices |= {i for i in inputs_of(expression)  # a host table's values are each the host's
                            if site.inputs[i].kind != "pointer" and not site.inputs[i].choices}
            elif isinstance(launch.args.get(name), (int, float)):
                direct.append(name)
        scalars = {p.name: p for p in self.kernel.scalars()}
        found = []
        several = len(indices) + len(direct) > 1  # else ALIGNED alone is the joint variant the caller runs
        each = [((index,), change, ()) for index in sorted(indices) if alone
                for change in changes or VARIED + (ALIGNED if several and site.inputs[index].kind != "float" else ())]
        for changed_inputs, change, also in each + [(tuple(sorted(indices)), change, direct) for change in joint]:
            made = self._varied(plan, inputs, changed_inputs, change)
            if made is None or made[0] == list(inputs) and not also:
                continue
            varied, (grid, block, shared, computed) = made
            args = {**launch.args, **{name: _as_parameter(scalars[name], value) for name, value in
                                      computed.items() if name in scalars}}
            args.update({name: self._direct(launch, name, change) for name in also})
            before, after = dict(zip(dims, launch.grid + launch.block)), dict(zip(dims, grid + block))
            before.update(launch.args)
            after.update(args)
            changed = [name for name in names if after.get(name) != before.get(name)] or \
                [name for name in after if after[name] != before.get(name)]  # what the site computes otherwise
            what = ", ".join(f"{name}={after[name]}" for name in changed)
            if what in {made for made, _ in found}:  # the next multiple of 128 is often the next power of two
                continue
            found.append((what, self.padded(replace(
                launch, grid=grid, block=block, args=args, site_inputs=(number, tuple(varied)),
                shared_bytes=shared if self.kernel.dynamic_shared else launch.shared_bytes))))
        for name in direct if alone else ():  # a scalar the site does not pass (a by-value struct's member)
            for change in changes or VARIED + (ALIGNED if several and isinstance(launch.args[name], int) else ()):
                value = self._direct(launch, name, change)
                found.append((f"{name}={value}", replace(launch, args={**launch.args, name: value})))
        return found

    def _varied(self, plan: SitePlan, inputs: tuple, indices: tuple[int, ...], change) -> tuple[list, tuple] | None:
        """The site's `inputs` with those at `indices` changed by `change` within what the
        host code tests, and the launch they make (SearchSpace._computed); None when they
        make none. An ALIGNED change the host's conditions rule out is to the next multiple
        of the largest power of two below ALIGNMENT they allow (a 64-wide tile's launch, made
        for sizes below 128)."""
        for alignment in (ALIGNMENT >> shift for shift in range(5)) if change is _aligned else (None,):
            step = change if alignment is None else lambda v, a=alignment: _aligned(v, a)
            varied = list(inputs)
            for index in indices:
                site_input = plan.site.inputs[index]
                if index in plan.packed:  # two 32-bit values (a struct's), both the gene's: both change
                    varied[index] = _packed(_changed(int(inputs[index]) & 0xFFFFFFFF, step, "integer", 32))
                else:
                    varied[index] = _changed(inputs[index], step, site_input.kind, site_input.bits)
                    varied[index] = plan.bounded(list(varied))[index]  # within what the host code tests
            try:
                return varied, self._computed(plan, varied)
            except InvalidGenome:
                continue
        return None

    def _direct(self, launch: Launch, name: str, change):
        """`change` of the launch's value of a scalar the site does not pass."""
        param = next((p for p in self.kernel.scalars() if p.name == name), None)
        value = _changed(launch.args[name], change, param.kind if param else "integer", 32)
        return _as_parameter(param, value) if param else value

    def host_expressions(self, launch: Launch, names: list[str]) -> dict[str, str]:
        """What the host code passes for each scalar or dimension of `names` at the site
        `launch` was made at, as written there ("`net->hidden_n` at net.cu:20"); those the
        source does not say (no `<<<` launch) left out."""
        written = self.plans[launch.site_inputs[0]].site.written() if launch.site_inputs else None
        if written is None:
            return {}
        site, (config, args) = self.plans[launch.site_inputs[0]].site, written
        found = {}
        for name in names:
            what, _, member = name.partition(".")
            if what in ("gridDim", "blockDim"):
                part = config[0 if what == "gridDim" else 1] if len(config) > (what == "blockDim") else ""
                axis = "xyz".index(member)
                inner = arguments_written(part[part.index("(") + 1:], ")") if part.startswith("dim3(") else None
                text = inner[axis] if inner and axis < len(inner) else \
                    part if axis == 0 or not part else f"{part}.{member}"
            else:
                index = next((i for i, p in enumerate(self.kernel.params) if p.name == what), None)
                text = args[index] + (f".{member}" if member else "") if index is not None and index < len(args) else ""
            if text:
                found[name] = f"`{text}` at {Path(site.file).name}:{site.line}"
        return found

    def genome(self, launch: Launch) -> list[float]:
        """The genome of `launch` (its values for the genes; base's for arguments it lacks)."""
        dims = {f"{what}.{axis}": size for what in ("grid", "block")
                for axis, size in zip("xyz", getattr(launch, what))}
        aliased = [index + 1 for index, (name, target) in enumerate(self.aliases)
                   if launch.args.get(name) == Alias(target)]
        special = {FILL_GENE: SEARCHED_FILLS.index(launch.fill) if launch.fill in SEARCHED_FILLS else 0,
                   ALIAS_GENE: aliased[0] if aliased else 0}
        return self.repair([dims[g.name] if g.dimension else
                            launch.args.get(g.name, self.base.args.get(g.name, g.low)) if g.argument else
                            special[g.name] for g in self.genes])

    def _dims(self, values: list[float], what: str) -> tuple[int, int, int]:
        dims = list(getattr(self.base, what))
        for gene, value in zip(self.genes, values):
            if gene.name.startswith(what + "."):
                dims["xyz".index(gene.name[-1])] = int(value)
        return tuple(dims)


_LIMITS = {"grid": GRID_LIMITS, "block": BLOCK_LIMITS}
_REGISTERS = {"grid": ("ctaid", "nctaid"), "block": ("tid", "ntid")}  # what reads blockIdx/gridDim, threadIdx/blockDim


def _reads_axis(reads: set[str], what: str, axis: str) -> bool:
    """Whether the kernel reads the grid's or block's dimension `axis` (its index or size)."""
    return any(f"{register}.{axis}" in reads for register in _REGISTERS[what])


def _allocated(plan: SitePlan, inputs: list, args: dict, open_inputs: set[int]) -> dict:
    """The buffers a site's host code allocates (cudaMalloc) for the launch's pointer
    arguments that are neither given nor another's: each as large as the host makes it, when
    the size is the host's (no value the host leaves open: `open_inputs`). Only for a launch
    whose every dimension and scalar is the host's: an access past the end is then the
    program's, not a size Simulee chose."""
    found = {}
    for name, size in plan.sizes:
        if args.get(name) is not None or inputs_of(size) & open_inputs:
            continue
        try:
            value = int(evaluate(size, inputs))
        except (Unknown, TypeError, ValueError):
            continue
        if 0 < value < 1 << 40:
            found[name] = Allocated(value)
    return found


def aliased_pointers(kernel: KernelInfo, arguments: dict[str, list]) -> tuple[tuple[str, str], ...]:
    """Pointer parameters a site passes the same buffer as an earlier one."""
    first: dict[str, str] = {}
    aliases = []
    for param in kernel.params:
        expression = arguments.get(param.name)
        if param.kind == "pointer" and expression is not None and expression[0] == "input":
            key = repr(expression)
            if key in first:
                aliases.append((param.name, first[key]))
            else:
                first[key] = param.name
    return tuple(aliases)


def _input_default(site_input, base: Launch):
    """What an input of a site is when nothing sets it: what the loop carrying it starts it
    at (the host's first launch), else as many as the base launch has threads along x (so
    a size covers a 1-D launch), 1.0 for a float; for an element of a host table, its value
    nearest that."""
    if site_input.start is not None and (not site_input.choices or site_input.start in site_input.choices):
        return site_input.start
    value = 1.0 if site_input.kind == "float" else base.grid[0] * base.block[0]
    return min(site_input.choices, key=lambda choice: abs(choice - value)) if site_input.choices else value


def _input_gene(name: str, site_input) -> Gene:
    if site_input.choices:  # the host's table: each of its values, and no other
        choices = site_input.choices
        return Gene(name, choices[0], choices[-1], site_input.kind != "float", tuple(choices))
    if site_input.kind == "float":
        return Gene(name, *FLOAT_RANGE, integer=False)
    return Gene(name, 1, min((1 << max(site_input.bits - 1, 1)) - 1, INTEGER_CEILING))


def _as_parameter(param, value):
    """A host value (an unsigned integer of the parameter's width, or a float) as the
    parameter's value."""
    if param.kind == "float":
        return float(value)
    bits = param.bits or 64
    value = int(value) & ((1 << bits) - 1)
    return value - (1 << bits) if param.signed is not False and bits > 1 and value >> (bits - 1) else value


def _packed(value) -> int:
    """An input that packs two 32-bit values, both `value`'s low 32 bits."""
    half = int(value) & 0xFFFFFFFF
    return half << 32 | half


VARIED = (lambda v: v + 1, lambda v: 4 * v + 97)  # a host value's other values: off its alignment, near and far
ALIGNMENT = 128  # what the sizes hosts pass are most often a multiple of (tiles, blocks, warps and vectors divide it)


def _aligned(value: int, alignment: int = ALIGNMENT) -> int:
    """An integer's other value besides VARIED: the next multiple of `alignment` (a kernel
    without bounds checks, written for tiles or vectors that divide its rows, overlaps
    them only off it)."""
    return (value // alignment + 1) * alignment


def _power_of_two(value) -> int:
    """An integer's other value besides VARIED and _aligned: the next power of two (the block
    sizes and benchmark sizes hosts pass most often are; a tree reduction written for them
    strays into the next block off them)."""
    whole = int(value)
    return 1 << whole.bit_length() if whole > 0 else 1


ALIGNED = (_aligned, _power_of_two)
HALFWAY = (lambda v: 2 * v + 33,)  # about halfway to the far value: when that could not be run far enough to tell


def _changed(value, change, kind: str, bits: int):
    """`change` of a value of `kind` (float or integer: one within a signed `bits`-bit
    one), away from zero: a negative value changes as its magnitude does."""
    if kind == "float":
        return float(change(value) if value >= 0 else -change(-value))
    value = int(value)
    changed = change(value) if value >= 0 else -change(-value)
    return max(min(changed, (1 << min(bits, 32) - 1) - 1), -(1 << min(bits, 32) - 1))


def _fill_genes(kernel: KernelInfo, relevant: dict[str, list[str]], fixed: set[str]) -> list[Gene]:
    """FILL_GENE when the content of some buffer the search fills flows into addresses or
    branches (and the user did not say what buffers hold)."""
    filled = [p for p in kernel.params if p.kind == "pointer" and p.name in relevant and p.name not in fixed]
    if not filled or "fill" in fixed:
        return []
    return [FILL]


FILL = Gene(FILL_GENE, 0, len(SEARCHED_FILLS) - 1, choices=tuple(range(len(SEARCHED_FILLS))))


def _fixed_fill(base: Launch, fixed: set[str]) -> str:
    """The fill of every searched launch when the search does not choose it: the base
    launch's when the user fixed it, else small random values."""
    return base.fill if "fill" in fixed else SEARCHED_FILLS[0]


def _pointers(kernel: KernelInfo) -> set[str]:
    return {p.name for p in kernel.params if p.kind == "pointer"}


def alias_pairs(kernel: KernelInfo, accesses: dict[str, set[str]]) -> tuple[tuple[str, str], ...]:
    """Pairs (later, earlier) of pointer parameters that an in-place call could make one
    buffer: the same pointee type, neither __restrict__ nor const (a `const T *` is an
    input the kernel only reads), one read and the other written (`accesses`,
    evolve.taint.pointer_accesses: two outputs are never one buffer, nor two inputs)."""
    pointers = [p for p in kernel.params if p.kind == "pointer" and not _restricted(p)
                and not (p.pointee or "").startswith("const ")]
    return tuple((b.name, a.name) for i, a in enumerate(pointers) for b in pointers[i + 1:]
                 if _pointee(a) == _pointee(b) and _pointee(a) and _in_place(accesses, a.name, b.name))


def _in_place(accesses: dict[str, set[str]], a: str, b: str) -> bool:
    one, other = accesses.get(a, set()), accesses.get(b, set())
    return "read" in one and "write" in other or "write" in one and "read" in other


def _pointee(param: ParamInfo) -> str:
    return " ".join(w for w in (param.pointee or "").replace("*", " * ").split() if w != "volatile")


def _restricted(param: ParamInfo) -> bool:
    return "restrict" in (param.c_type or "")


def _scalar_gene(param, uses: list[str]) -> Gene:
    """Integers up to the type's maximum or INTEGER_CEILING, from 1 when the parameter
    flows into addresses (a size, stride or pitch of 0 or less puts every thread on one
    address, which the code never does) or into an integer divisor (a kernel that divides
    by it states it is never 0), and else from -1 (0 for unsigned types: an empty
    size, a negative flag); enums their enumerators; booleans 0 or 1; floats within
    FLOAT_RANGE. Random genomes start from 1 either way: 0 and -1 come from the
    dictionary and from mutation."""
    if param.kind == "float":
        return Gene(param.name, *FLOAT_RANGE, integer=False)
    if param.choices:
        choices = tuple(sorted(param.choices))
        return Gene(param.name, choices[0], choices[-1], choices=choices)
    bits = param.bits or 32
    if bits == 1:
        return Gene(param.name, 0, 1)
    signed = param.signed is not False
    maximum = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    lowest = 1 if ADDRESS in uses or DIVISOR in uses else -1 if signed else 0
    return Gene(param.name, lowest, min(maximum, INTEGER_CEILING))
