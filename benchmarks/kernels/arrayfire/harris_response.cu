// project: arrayfire (table 2)
// bug: harris_response: each thread stores its corner response in its own shared slot and
// reads back only that slot; the barrier between the store and the read orders nothing
// another thread touches.
// expect: harris_response redundant-barrier 15
// fixed: harris_response_fixed
__global__ void harris_response(const float *ixx, const float *iyy, const float *ixy, float *response,
                                int n, float k) {
  __shared__ float r[256];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  int j = i < n ? i : n - 1;
  float det = ixx[j] * iyy[j] - ixy[j] * ixy[j], trace = ixx[j] + iyy[j];
  r[tid] = det - k * trace * trace;
  __syncthreads();
  if (i < n) response[i] = r[tid] > 0.0f ? r[tid] : 0.0f;
}

__global__ void harris_response_fixed(const float *ixx, const float *iyy, const float *ixy, float *response,
                                      int n, float k) {
  __shared__ float r[256];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  int j = i < n ? i : n - 1;
  float det = ixx[j] * iyy[j] - ixy[j] * ixy[j], trace = ixx[j] + iyy[j];
  r[tid] = det - k * trace * trace;
  if (i < n) response[i] = r[tid] > 0.0f ? r[tid] : 0.0f;
}
