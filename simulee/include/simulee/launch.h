/* What clang needs for kernel<<<grid, block, shared, stream>>>(...) in device compilation:
   the launch is host code, never run, so a declaration is enough. */
#ifndef SIMULEE_LAUNCH_H
#define SIMULEE_LAUNCH_H

extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

#endif
