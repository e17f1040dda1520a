"""Defaults and limits of a launch that the command line offers before anything runs:
here, away from the interpreter's modules, so that reading them imports no NumPy."""

import os

DEFAULT_STEP_LIMIT = 200_000  # scheduler steps per wave beyond what the kernel's loop bounds need (steps.py)
MAX_SHARED_BYTES = 227 * 1024  # shared memory per block, the most any CUDA GPU gives (with opt-in)
DEFAULT_HEAP_BYTES = 8 << 20  # the device heap in-kernel malloc allocates from, as on CUDA
DETECTION_THREADS = 1 << 20  # a detection run of a larger launch runs sampled blocks, this many threads
TRACE_LIMIT = 1 << 22  # accesses a checked launch keeps in its trace (each costs about 300 bytes to check)


def trace_part() -> int:
    """Accesses a launch judged in parts (Launch.flush) traces before a part is judged,
    memory against speed: $SIMULEE_TRACE_PART, read as each launch is made, else 1,048,576."""
    part = os.environ.get("SIMULEE_TRACE_PART", "")
    return int(part) if part.isdigit() and int(part) > 0 else 1 << 20


FILLS = ("zeros", "small", "wide", "distinct", "sorted", "identity")  # what paged buffers may hold (contents.py)
