"""Whole programs: a CUDA program's host side built natively against Simulee's CUDA
runtime (runtime/, C++), run with its own arguments, and every launch it makes checked on a
simulated device whose memory both processes map; and the same for a project built by its
own build system through simulee-nvcc, whose tests `simulee test` runs.

- hostbuild: compiling and linking the host side with the bundled clang
- device: the simulated device that serves the runtime's requests
- runner: `simulee exec`: run the program, check every launch
- replay: a recorded launch run again (`simulee run --replay`)
- nvcc: simulee-nvcc, simulee-cc and simulee-c++, the drop-in compilers
- standalone: the device a program built by simulee-nvcc starts itself
- collect: `simulee test` and `simulee report`: the programs' reports merged

May import: simulee.errors, simulee.scanner, simulee.checker, simulee.report, simulee.detect, simulee.model,
simulee.frontend, interpreter, evolve.
"""
