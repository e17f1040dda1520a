"""Evolutionary input generation: proposes launch configurations and arguments that make
threads collide, scored by the fitness of their memory-access traces."""
