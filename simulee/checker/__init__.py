"""Checking one kernel: which launches and arguments to run (given, found at the host's
launch sites, stated in simulee.toml, or searched by evolve), running them, letting every
detector judge each, and merging what they find into one verdict per kernel.

- kernel: KernelCheck, check_kernel, the launches a check runs
- launchspec: launch dimensions and argument values as the command line states them
- sites: the host code's launch sites (dims and argument relations) as seeds for the search
- config: simulee.toml, the contracts a user states
- annotations: GPUVerify's annotations (__requires, __assume) as launch constraints
- equivalence: two versions of a kernel on the same launches and inputs (`simulee equiv`)
- repair: edits that fix races and remove redundant barriers, each proven (`simulee fix`)

May import: simulee.errors, simulee.detect, simulee.model, simulee.frontend, interpreter, evolve.
"""
