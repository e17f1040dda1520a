"""The mutation operators of the paper's Algorithm 2 (fast evolutionary programming,
Yao et al. 1999). Each parent makes two children: one takes Gaussian steps on its
arguments and +-1 steps on its dimensions, the other Cauchy steps on its arguments (long
jumps) and doubling or halving steps on its dimensions. Step sizes (one per argument)
adapt themselves: each child first scales its parent's by a log-normal factor. A third
child, when the kernel compares against constants, takes one of them (a fuzzer's
dictionary)."""

from __future__ import annotations

import math

import numpy as np

from evolve.space import Gene

DIMENSION_RATE = 0.5  # chance that a child changes a given dimension


def adapted_steps(steps: list[float], rng: np.random.Generator) -> list[float]:
    """Yao's self-adaptation: sigma' = sigma * exp(tau' N(0,1) + tau N_i(0,1))."""
    if not steps:
        return []
    n = len(steps)
    tau, tau_prime = 1 / math.sqrt(2 * math.sqrt(n)), 1 / math.sqrt(2 * n)
    common = rng.standard_normal()
    return [max(s * math.exp(tau_prime * common + tau * rng.standard_normal()), 1e-3) for s in steps]


def gaussian_child(genes: tuple[Gene, ...], values: list, steps: list[float], rng: np.random.Generator):
    """Arguments x + sigma * N(0,1); each dimension, with DIMENSION_RATE, +1 or -1."""
    return _child(genes, values, steps, rng, rng.standard_normal, _unit_step)


def cauchy_child(genes: tuple[Gene, ...], values: list, steps: list[float], rng: np.random.Generator):
    """Arguments x + sigma * C(0,1); each dimension, with DIMENSION_RATE, doubled or halved."""
    return _child(genes, values, steps, rng, rng.standard_cauchy, _doubling_step)


def _unit_step(value: int, rng: np.random.Generator) -> int:
    return value + (1 if rng.random() < 0.5 else -1)


def _doubling_step(value: int, rng: np.random.Generator) -> int:
    return value * 2 if rng.random() < 0.5 else value // 2


def _child(genes, values, steps, rng, noise, dimension_step):
    """(values, steps) of a child; at least one gene differs from the parent's (before
    the space repairs it)."""
    steps = adapted_steps(steps, rng)
    child = list(values)
    arguments = [i for i, g in enumerate(genes) if not g.dimension]
    for step, i in zip(steps, arguments):
        child[i] = values[i] + step * noise()
    dimensions = [i for i, g in enumerate(genes) if g.dimension]
    chosen = [i for i in dimensions if rng.random() < DIMENSION_RATE]
    if not chosen and not arguments and dimensions:
        chosen = [dimensions[int(rng.integers(len(dimensions)))]]
    for i in chosen:
        child[i] = dimension_step(values[i], rng)
    return child, steps


def initial_steps(genes: tuple[Gene, ...], values: list) -> list[float]:
    """One step size per argument: a third of its value (at least 1), so that a size of
    1,000 moves by hundreds and a stride of 2 by ones."""
    return [max(1.0, abs(v) / 3) for g, v in zip(genes, values) if not g.dimension]


def dictionary_child(genes: tuple[Gene, ...], values: list, steps: list[float], dictionary: tuple[int, ...],
                     rng: np.random.Generator):
    """One integer argument set to a value of the kernel's dictionary (a constant its code
    compares against); None when no argument is an integer or the dictionary is empty."""
    integers = [i for i, g in enumerate(genes) if not g.dimension and g.integer and not g.choices]
    if not integers or not dictionary:
        return None
    child = list(values)
    child[integers[int(rng.integers(len(integers)))]] = dictionary[int(rng.integers(len(dictionary)))]
    return child, list(steps)
