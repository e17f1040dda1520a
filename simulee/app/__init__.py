"""The application layer: what each command does, as functions that take its typed
arguments (`args`: the command's frozen dataclass) and return results. simulee.cli parses a
command line into them and prints what they return; the Python API (simulee.api), the
server and an editor integration call the same functions.

- args: the typed arguments of each command and how a value is read
- sources: the files a path names, compiled and loaded; the kernels listed
- launches: the launches `run` makes, and what a launch's events show
- check: `check`: a file's or folder's kernels checked, with their launch sites
- prove, equiv, scan: `prove`, `equiv`, `scan`
- progress: a progress bar drawn only on a terminal

May import: simulee.scanner, simulee.exec, simulee.prover, simulee.checker, simulee.report,
simulee.detect, simulee.model, simulee.frontend, evolve, interpreter.
"""
