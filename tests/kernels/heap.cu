// In-kernel malloc and free: the heap is finite, and what is freed is gone.
// kernel: scratch(int *out, int n)
//   reads: tid.x
//   shared: 0
// kernel: too_much(int *got, long long bytes)
//   reads: tid.x
//   shared: 0
// kernel: free_twice(int *out)
//   reads: tid.x
//   shared: 0
// kernel: use_after_free(int *out)
//   reads: tid.x
//   shared: 0
// kernel: free_inside(int *out)
//   reads: tid.x
//   shared: 0
// kernel: churn(int *out, int rounds)
//   reads: tid.x
//   shared: 0
// kernel: release_rows(int **rows)
//   reads: tid.x
//   shared: 0

// Each thread fills a scratch array of its own, sums it and frees it.
__global__ void scratch(int *out, int n) {
  int *mine = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) mine[i] = i + threadIdx.x;
  int sum = 0;
  for (int i = 0; i < n; i++) sum += mine[i];
  free(mine);
  out[threadIdx.x] = sum;
}

// Asks for more than the heap holds: malloc returns NULL, as on a GPU.
__global__ void too_much(int *got, long long bytes) {
  void *memory = malloc(bytes);
  got[threadIdx.x] = memory != 0;
  free(memory);
}

__global__ void free_twice(int *out) {
  int *p = (int *)malloc(16);
  p[0] = threadIdx.x;
  out[threadIdx.x] = p[0];
  free(p);
  free(p);
}

__global__ void use_after_free(int *out) {
  int *p = (int *)malloc(16);
  p[0] = threadIdx.x;
  free(p);
  out[threadIdx.x] = p[0];
}

__global__ void free_inside(int *out) {
  int *p = (int *)malloc(64);
  out[threadIdx.x] = 1;
  free(p + 4);
  free(p);
}

// Allocates and frees far more than the heap holds in all: freed space comes back.
__global__ void churn(int *out, int rounds) {
  int total = 0;
  for (int r = 0; r < rounds; r++) {
    int *p = (int *)malloc(4096);
    if (p == 0) {
      out[threadIdx.x] = -1;
      return;
    }
    p[0] = r;
    total += p[0];
    free(p);
  }
  out[threadIdx.x] = total;
}

// Frees the rows an earlier kernel allocated with malloc: what the table holds is the
// host's to give (Simulee's own rows were never allocated on the device heap).
__global__ void release_rows(int **rows) {
  free(rows[threadIdx.x]);  // frees a row the table holds
}
