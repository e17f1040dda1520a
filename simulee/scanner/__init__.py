"""Scanning a repository: discover its CUDA sources and the host code that launches
their kernels, cut the work into files and kernels, check them in isolated worker
processes (or on a Dask cluster) with time and memory limits, and keep a resumable ledger
and the reports in an output folder.

- repository: the scan, its ledger and its reports
- discover: which files are CUDA, which host files launch their kernels
- tasks: the work units a worker runs (list a file's kernels, check one kernel)
- workers: the worker processes and their limits

May import: simulee.errors, simulee.prover, simulee.checker, simulee.report, simulee.detect, simulee.model,
simulee.frontend, interpreter, evolve.
"""
