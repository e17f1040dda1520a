// Stream compaction writes each kept element to the slot an exclusive scan of the flags
// gives it: the slots never repeat, but Simulee cannot see that the host code computed
// them so. With made-up slots that repeat, the writes meet.
#include <cuda_runtime.h>

__global__ void compact(const int *flags, const int *slots, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) out[slots[i]] = in[i];  // kept elements with the same slot race
}

void compact_all(const int *flags, const int *slots, const float *in, float *out, int n) {
  compact<<<(n + 127) / 128, 128>>>(flags, slots, in, out, n);
}

// Each thread writes its CSR row, row_ptr[r] up to row_ptr[r + 1]: rows in order never
// overlap, but made-up offsets out of order (even all distinct) make rows overlap.
__global__ void scale_rows(const int *row_ptr, float *values, float factor, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) values[k] *= factor;  // rows out of order overlap
}

void scale_all(const int *row_ptr, float *values, int rows) {
  scale_rows<<<(rows + 63) / 64, 64>>>(row_ptr, values, 0.5f, rows);
}

// The same with a row written one past its end: rows in order meet too.
__global__ void scale_rows_past(const int *row_ptr, float *values, float factor, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int k = row_ptr[r]; k <= row_ptr[r + 1]; k++) values[k] *= factor;  // one past the row's end
}

void scale_all_past(const int *row_ptr, float *values, int rows) {
  scale_rows_past<<<(rows + 63) / 64, 64>>>(row_ptr, values, 0.5f, rows);
}

// Output row i is input row rows[i], copied to out_ptr[i]: right when the host built out_ptr
// from the selected rows' lengths, which made-up tables of distinct or sorted values break.
__global__ void select_rows(const int *out_ptr, float *out, const int *rows, int count,
                            const int *in_ptr, const float *in) {
  int i = blockIdx.x * blockDim.y + threadIdx.y;
  if (i < count) {
    int start = in_ptr[rows[i]], length = in_ptr[rows[i] + 1] - start;
    for (int k = threadIdx.x; k < length; k += 32) out[out_ptr[i] + k] = in[start + k];  // selected row
  }
}

void select_all(const int *out_ptr, float *out, const int *rows, int count, const int *in_ptr, const float *in) {
  select_rows<<<(count + 7) / 8, dim3(32, 8)>>>(out_ptr, out, rows, count, in_ptr, in);
}

// The same copying one element too many: consecutive rows meet whatever the tables hold.
__global__ void select_rows_past(const int *out_ptr, float *out, const int *rows, int count,
                                 const int *in_ptr, const float *in) {
  int i = blockIdx.x * blockDim.y + threadIdx.y;
  if (i < count) {
    int start = in_ptr[rows[i]], length = in_ptr[rows[i] + 1] - start;
    for (int k = threadIdx.x; k <= length; k += 32) out[out_ptr[i] + k] = in[start + k];  // one too many
  }
}

void select_all_past(const int *out_ptr, float *out, const int *rows, int count, const int *in_ptr, const float *in) {
  select_rows_past<<<(count + 7) / 8, dim3(32, 8)>>>(out_ptr, out, rows, count, in_ptr, in);
}
