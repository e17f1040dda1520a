"""Simulee: find CUDA synchronization bugs (data races, barrier divergence, redundant
barriers) by interpreting every thread of a kernel on the CPU.

The Python API (simulee.api) is this package's face: `simulee.check`, `simulee.kernels`,
`simulee.run`, `simulee.prove`, `simulee.scan`. It is loaded on first use, so that the
subsystems below it, which read `__version__` from here, import nothing above them.
"""

__version__ = "0.1.0"

API = ("check", "equiv", "kernels", "run", "prove", "scan", "Report", "Record", "Run", "Scan", "SimuleeError")
__all__ = ["__version__", *API]


def __getattr__(name: str):
    if name in API:
        from simulee import api

        return getattr(api, name)
    raise AttributeError(f"module 'simulee' has no attribute '{name}'")
