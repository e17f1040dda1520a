// Two errors: simulee reports clang's first one and counts the rest.

__global__ void broken(int *data) {
  int i = threadIdx.x;
  data[i] = i * 2;
  int doubled = data[i]
}

__global__ void also_broken(int *data) { data[0] = undefined_name; }
