// project: kaldi (table 3)
// bug: _copy_from_tp: unpacks a packed lower-triangular matrix through a shared tile that is
// read mirrored (each thread stores one element and reads its mirror partner's) with no
// barrier between the stores and the read, and the diagonal threads add into one shared
// trace with a plain +=: three races.
// expect: _copy_from_tp data-race 20/24
// expect: _copy_from_tp warp-synchronous-race 21/24
// expect: _copy_from_tp data-race 25/25
// fixed: _copy_from_tp_fixed
#define TILE 16

__global__ void _copy_from_tp(float *out, const float *tp, float *trace, int dim) {
  __shared__ float tile[TILE][TILE];
  __shared__ float diag;
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > TILE || blockDim.y > TILE) return;
  int i = blockIdx.y * blockDim.y + ty, j = blockIdx.x * blockDim.x + tx;
  if (tx == 0 && ty == 0) diag = 0.0f;
  __syncthreads();
  if (j <= i && i < dim) tile[ty][tx] = tp[i * (i + 1) / 2 + j];
  else tile[ty][tx] = 0.0f;
  int mirror = blockDim.x - 1 - tx;
  int col = blockIdx.x * blockDim.x + mirror;
  if (i < dim && col < dim) out[i * dim + col] = tile[ty][mirror];
  if (i == j && i < dim) diag += tile[ty][tx];
  __syncthreads();
  if (tx == 0 && ty == 0) atomicAdd(trace, diag);
}

__global__ void _copy_from_tp_fixed(float *out, const float *tp, float *trace, int dim) {
  __shared__ float tile[TILE][TILE];
  __shared__ float diag;
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > TILE || blockDim.y > TILE) return;
  int i = blockIdx.y * blockDim.y + ty, j = blockIdx.x * blockDim.x + tx;
  if (tx == 0 && ty == 0) diag = 0.0f;
  if (j <= i && i < dim) tile[ty][tx] = tp[i * (i + 1) / 2 + j];
  else tile[ty][tx] = 0.0f;
  __syncthreads();
  int mirror = blockDim.x - 1 - tx;
  int col = blockIdx.x * blockDim.x + mirror;
  if (i < dim && col < dim) out[i * dim + col] = tile[ty][mirror];
  if (i == j && i < dim) atomicAdd(&diag, tile[ty][tx]);
  __syncthreads();
  if (tx == 0 && ty == 0) atomicAdd(trace, diag);
}
