"""A concrete SIMT interpreter of LLVM IR for CUDA kernels. It knows nothing of bug
classes: it executes and records what every thread did.

May import: nothing of simulee or evolve.
"""
