// A 7-point stencil over a 3-D volume, indexed with every component of every index
// variable, including gridDim for a grid-stride loop over z.
// kernel: stencil3d(const float *in, float *out, int nx, int ny, int nz)
//   reads: tid.x tid.y tid.z ctaid.x ctaid.y ctaid.z ntid.x ntid.y ntid.z nctaid.z
//   shared: 0

__global__ void stencil3d(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < nz; z += gridDim.z * blockDim.z) {
    if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) continue;
    int i = (z * ny + y) * nx + x;
    out[i] = in[i] * -6.0f + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - nx * ny] + in[i + nx * ny];
  }
}
