"""NVIDIA's CUDA toolkit as its pip wheels install it: the header folders a CUDA source is
compiled against, and libdevice (CUDA's math library in LLVM bitcode).

Each wheel installs one folder under the `nvidia` namespace package (nvidia/cuda_runtime,
nvidia/cuda_nvcc, ...), each with its own include/; together they are the include/ of a
CUDA installation. cuBLAS, cuSPARSE and cuFFT are left out: their wheels carry the
libraries (hundreds of megabytes each) and their headers only declare host functions, which
a missing-header stand-in serves as well for device code."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from simulee.errors import SimuleeError

# the wheels whose include/ folders make up CUDA's, in the order a CUDA installation searches them
WHEELS = ("cuda_runtime", "cuda_nvcc", "cuda_cccl", "curand", "nvtx", "cuda_profiler_api")


@functools.cache
def toolkit_root() -> Path:
    """The folder of the `nvidia` namespace package the wheels install into."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        raise SimuleeError("NVIDIA's CUDA header packages are not installed; reinstall simulee "
                           "(pip install -e .) to get them")
    for location in spec.submodule_search_locations:
        if (Path(location) / "cuda_runtime" / "include" / "cuda_runtime.h").is_file():
            return Path(location)
    raise SimuleeError("nvidia-cuda-runtime-cu12 is not installed; reinstall simulee (pip install -e .)")


@functools.cache
def include_dirs() -> tuple[str, ...]:
    """The toolkit's include folders, in search order."""
    root = toolkit_root()
    found = tuple(str(root / wheel / "include") for wheel in WHEELS if (root / wheel / "include").is_dir())
    missing = [wheel for wheel in WHEELS if not (root / wheel / "include").is_dir()]
    if missing:
        raise SimuleeError(f"the CUDA header package{'s' if len(missing) > 1 else ''} "
                           f"{', '.join('nvidia-' + m.replace('_', '-') + '-cu12' for m in missing)} "
                           "not installed; reinstall simulee (pip install -e .)")
    return found


def libdevice() -> Path:
    """libdevice.10.bc, CUDA's math library in LLVM bitcode."""
    path = toolkit_root() / "cuda_nvcc" / "nvvm" / "libdevice" / "libdevice.10.bc"
    if not path.is_file():
        raise SimuleeError("libdevice.10.bc is missing from nvidia-cuda-nvcc-cu12; reinstall simulee")
    return path


@functools.cache
def version() -> str:
    """The toolkit's CUDA_VERSION (from cuda.h), e.g. 12090."""
    text = (toolkit_root() / "cuda_runtime" / "include" / "cuda.h").read_text(errors="replace")
    for line in text.splitlines():
        if line.startswith("#define CUDA_VERSION "):
            return line.split()[2]
    return "unknown"
