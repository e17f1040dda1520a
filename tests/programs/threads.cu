// Four host threads, each with its own stream, memory and launches, at once; each adds a
// callback that runs when its stream's work is done.
#include <cstdio>
#include <thread>
#include <vector>

__global__ void offset(int *data, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i + by;
}

void CUDART_CB finished(cudaStream_t, cudaError_t status, void *flag) { *(int *)flag = status == cudaSuccess; }

int main() {
  const int workers = 4, n = 1000;
  long totals[workers];
  int done[workers] = {0};
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      cudaStream_t stream;
      cudaStreamCreate(&stream);
      int *device, host[n];
      cudaMalloc(&device, sizeof host);
      offset<<<(n + 255) / 256, 256, 0, stream>>>(device, n, w * 1000);
      cudaMemcpyAsync(host, device, sizeof host, cudaMemcpyDeviceToHost, stream);
      cudaStreamAddCallback(stream, finished, &done[w], 0);
      cudaStreamSynchronize(stream);
      totals[w] = 0;
      for (int i = 0; i < n; ++i) totals[w] += host[i];
      cudaFree(device);
    });
  for (auto &thread : threads) thread.join();
  for (int w = 0; w < workers; ++w) printf("worker %d: %ld%s\n", w, totals[w], done[w] ? " (callback ran)" : "");
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
