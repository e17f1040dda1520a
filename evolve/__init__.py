"""Evolutionary input generation: searches launch dimensions and scalar arguments for
launches in which threads collide on memory. Knows nothing of bug classes.

May import: interpreter.
"""
