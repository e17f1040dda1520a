"""`prove`: the kernels of a file or folder proved race-free for every launch (or not),
their races run to confirm them."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from simulee.app.check import launch_sites
from simulee.app.sources import each_program, named, source_files
from simulee.errors import SimuleeError
from simulee.frontend.compiler import own_kernels
from simulee.model.findings import display


def prove_sources(args, proved=None) -> tuple[list, list[dict]]:
    """The proofs (prove.solve.Proof, races confirmed or not by a run) of args.path's
    kernels, each passed to `proved` as it is made, and the files that did not compile."""
    from simulee.checker.config import config_for
    from simulee.checker.launchspec import parse_block, parse_dims
    from simulee.prover.proof import Fixed
    from simulee.prover.solve import prove_kernel
    from simulee.prover.verdicts import confirm

    given = Fixed(parse_dims(args.grid, "grid") if args.grid else None,
                  parse_block(args.block, "block") if args.block else None, integer_args(args.arg))
    path = Path(args.path)
    files, options = source_files(path, args.compile_options())
    sites, _ = launch_sites(args, files, options)
    config = config_for(path, args.config)
    proofs, errors = [], []
    for file, program, error in each_program(path, files, options, args.verbose):
        if error:
            errors.append({"file": display(str(file)), "error": error})
            continue
        if args.kernel and path.is_dir():  # the folder's files that have them
            kernels = [kernel for name in args.kernel for kernel in named(program, name, file)]
        else:
            kernels = [program.kernel(name) for name in args.kernel] if args.kernel else own_kernels(program)
        if not kernels and not path.is_dir():
            raise SimuleeError(f"{file}: no __global__ kernel found")
        for kernel in kernels:
            contract = config.for_kernel(kernel.file or args.path, kernel).without(set(given.args))
            stated = {name: value for name, value in contract.args.items() if type(value) is int}
            fixed = replace(given, args={**stated, **given.args}, sites=sites.get((file, kernel.symbol), ()),
                            ranges=dict(contract.ranges), choices=dict(contract.choices),
                            relations=tuple(contract.relations))
            if not (given.grid or given.block or contract.launches):  # the simulee.toml's launch, else the sites'
                fixed = replace(fixed, grid=parse_dims(contract.grid, "grid") if contract.grid else None,
                                block=parse_block(contract.block, "block") if contract.block else None,
                                sites=() if contract.grid or contract.block else fixed.sites)
            deadline = time.perf_counter() + args.kernel_seconds
            proof = prove_kernel(program, kernel, int(args.query_seconds * 1000), fixed, deadline,
                                 warp_model=args.warp_model)
            confirm(program, kernel, proof, args.warp_model, deadline)
            proofs.append(proof)
            if proved is not None:
                proved(proof)
    if args.kernel and path.is_dir() and not proofs and not errors:
        raise SimuleeError(f"{path}: no file has a kernel named {', '.join(args.kernel)} ({len(files)} files)")
    return proofs, errors


def integer_args(texts: list[str]) -> dict:
    values = {}
    for text in texts:
        name, equals, value = text.partition("=")
        try:
            values[name.strip()] = int(value, 0)
        except ValueError:
            raise SimuleeError(f"--arg {text}: expected NAME=INTEGER") from None
        if not equals or not name.strip():
            raise SimuleeError(f"--arg {text}: expected NAME=INTEGER")
    return values
