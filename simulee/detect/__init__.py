"""Detectors: each turns what a launch did (its memory-access model or the interpreter's
events) into findings of one kind. None of them touches the interpreter."""
