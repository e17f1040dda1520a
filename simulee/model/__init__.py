"""What a launch did, in the terms detectors judge it by: the memory-access model (every
access to global and shared memory, grouped by memory unit and ordered by barrier epoch),
the happens-before order that fences, atomics and volatile accesses add to it, and the
findings detectors make of it (a finding, its program points, the launch that shows it).

- access: the memory-access model built from a trace
- ordering: what fences, atomics and volatile flags order
- findings: Finding, Place and how paths and launches are shown
- sort: the stable orders of a launch's rows, as one vectorized sort where they fit

May import: simulee.errors, simulee.frontend, interpreter.
"""
