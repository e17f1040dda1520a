"""Simulee: find CUDA synchronization bugs (data races, barrier divergence, redundant
barriers) by interpreting every thread of a kernel on the CPU."""

__version__ = "0.1.0"
