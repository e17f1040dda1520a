"""The CUDA front end: a .cu source (or an .ll/.bc file) becomes the LLVM IR text the
interpreter runs, compiled by the bundled clang against NVIDIA's headers from the toolkit's
wheels and Simulee's own (include/).

- compiler: the clang command, the IR cache, loading a program; the public face
- toolkit: NVIDIA's wheels (headers, libdevice) and the toolkit's version
- salvage: missing headers stood in for, failing host code left out, retried
- ptx: inline PTX lifted to LLVM IR
- device_library: libdevice's functions the interpreter cannot run natively, linked in
- passes: LLVM's inlining, promotion and -O1 pipeline through llvmlite
- compile_commands: a repository's compile_commands.json
- cmake: a project's CMakeLists.txt, read for its targets' sources and flags
- cache: where compiled IR and builds are kept, and the digests that key them

May import: simulee.errors, simulee.folders (the cache folder), interpreter.
"""
