"""The evolutionary search for a launch on which two versions of a kernel differ.

The same (mu + lambda) scheme and mutation operators as the search for conflicts
(search.py), over the same search space, with the caller's score instead of conflict
density: `score(genome)` returns (differing output bytes, tie-breaker), both maximized;
the conflict density of the old version's run is the natural tie-breaker (races and
differences both live where threads meet). The search stops at the first genome that
scores a difference, after `generations`, or at `deadline` (time.perf_counter()).
"""

from __future__ import annotations

import time

import numpy as np

from evolve.mutation import cauchy_child, dictionary_child, gaussian_child, initial_steps
from evolve.space import InvalidGenome, SearchSpace


def search_difference(space: SearchSpace, score, population: int = 8, generations: int = 6, seed: int = 0,
                      deadline: float = float("inf")) -> list | None:
    """The first genome `score` finds a difference on (its first value > 0), or None. The
    sites' launches and the base launch come first, then random genomes and, each
    generation, a Gaussian, a Cauchy and a dictionary child of every survivor."""
    rng = np.random.default_rng(seed)
    scores: dict[tuple, tuple[float, float]] = {}

    def judged(values: list) -> tuple[float, float]:
        key = tuple(values)
        if key not in scores:
            scores[key] = score(list(values))
        return scores[key]

    starts = [space.initial(site) for site in range(max(len(space.plans), 1))]
    people = [(values, initial_steps(space.genes, values))
              for values in starts + [space.random_genome(rng) for _ in range(max(population - len(starts), 0))]]
    for generation in range(generations + 1):
        if generation:
            children = []
            for values, steps in people:
                for make in (gaussian_child, cauchy_child):
                    made = make(space.genes, list(values), steps, rng)
                    if made is not None:
                        children.append((space.repair(made[0]), made[1]))
                made = dictionary_child(space.genes, list(values), steps, space.dictionary, rng)
                if made is not None:
                    children.append((space.repair(made[0]), made[1]))
            people = people + children
        for values, _ in people:
            if time.perf_counter() >= deadline:
                return None
            try:
                if judged(values)[0] > 0:
                    return values
            except InvalidGenome:
                scores[tuple(values)] = (-1.0, -1.0)
        people = sorted(people, key=lambda person: judged(person[0]), reverse=True)[:population]
    return None
