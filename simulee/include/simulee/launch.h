/* What clang needs for kernel<<<grid, block, shared, stream>>>(...): the first for device
   compilation, the second for host compilation (CUDA 9.2 and later), where Simulee reads
   launch sites from the IR and never runs it, so declarations are enough. */
#ifndef SIMULEE_LAUNCH_H
#define SIMULEE_LAUNCH_H

extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

#endif
