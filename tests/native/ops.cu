// Instructions the native engine compiles, each with values at its edges; the
// differential tests (tests/test_native.py) run them under both engines.

__device__ int sink_index(int i) { return i; }

__global__ void arithmetic(const int *a, const float *f, const double *d, long long *out, float *fout,
                           double *dout, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = a[i];
    long long wide = (long long)x * 2654435761LL;
    out[8 * i + 0] = wide ^ (wide >> 7);
    out[8 * i + 1] = (unsigned)x >> (shift + (i & 3) * 11);  // shifts by the width and past it
    out[8 * i + 2] = x << (i & 63);
    out[8 * i + 3] = (short)x * (signed char)(x >> 3) + (unsigned short)x;
    out[8 * i + 4] = min(x, 7 - i) + max(x, i) + abs(x - 1000) + umin((unsigned)x, 12345u);
    out[8 * i + 5] = (int)f[i] + (unsigned)f[i] + (long long)d[i];  // saturating, NaN to 0
    out[8 * i + 6] = x > 3 ? (x & 1) : -x;
    out[8 * i + 7] = (f[i] < 1.0f) + (f[i] != f[i]) + ((double)f[i] >= d[i]) * 4 + __popc(x) * 8 + __popcll(wide) * 512;
    fout[i] = fmaf(f[i], 3.0f, -f[i] / 7.0f) + (float)x + (float)(unsigned)x;
    dout[i] = d[i] * 1.5 - (double)wide + (double)f[i];
}

__global__ void narrow(unsigned char *bytes, short *halves, bool *flags, int n) {
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    if (i < n) {
        bytes[i] = (unsigned char)(bytes[i] * 3 + i);
        halves[i] = (short)(halves[i] - 7 * i);
        flags[i] = flags[i] != (i % 3 == 0);
    }
}

__global__ void indices(int *out) {
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int i = t + b * blockDim.x * blockDim.y * blockDim.z;
    out[4 * i] = threadIdx.z * 10000 + threadIdx.y * 100 + threadIdx.x;
    out[4 * i + 1] = blockIdx.z * 10000 + blockIdx.y * 100 + blockIdx.x;
    out[4 * i + 2] = (threadIdx.x & 31) + gridDim.x * gridDim.y + blockDim.z;
    out[4 * i + 3] = warpSize;
}

// shared staging with a divergent branch and a barrier: groups of some rows of a frame
__global__ void staged(const float *in, float *out, int n) {
    __shared__ float tile[64];
    __shared__ float rows[4][16];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : -1.0f;
    if (t % 3 == 1) {
        rows[t / 16][t % 16] = tile[t] * 2.0f;
    } else {
        rows[t / 16][t % 16] = tile[t] + 1.0f;
    }
    __syncthreads();
    out[i] = tile[63 - t] + rows[(t + 1) % 4][t % 16];
}

// faults in the middle of native runs: out of bounds, a bad array index, misaligned, null
__global__ void faulty(int *data, int n, int which) {
    __shared__ int table[4][8];
    int t = threadIdx.x;
    table[t % 4][t % 8] = t;
    int j = t + 1;
    int k = j * 3 + n;
    if (which == 0)
        data[k] = j;  // past the end for the last threads
    else if (which == 1)
        data[t] = table[t % 4][t + 4 - which];  // index past its row
    else if (which == 2)
        data[t] = *(int *)((char *)data + (t % 4 == 3 ? 2 : 0));  // misaligned for some lanes
    else
        data[t] = *(t == 5 ? (int *)0 : data + t);  // a null pointer for one lane
    data[t] += k;
}

// atomics lane after lane: shared and global, integer and float, monotone or not, and lanes
// that undo each other (+1 and -1 on one counter: the counter ends as it began)
__device__ int device_counter;

__global__ void atomics(unsigned *bins, float *total, int *extremes, int *undone, const unsigned char *data, int n) {
    __shared__ unsigned local[16];
    __shared__ int block_counter;
    int t = threadIdx.x;
    if (t < 16) local[t] = 0;
    if (t == 0) block_counter = 0;
    __syncthreads();
    atomicAdd(&block_counter, t % 2 ? 1 : -1);  // at a variable's own address: +1 and -1 undo each other
    atomicAdd(&device_counter, t);
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) {
        atomicAdd(&local[data[i] % 16], 1u);
        atomicAdd(total, data[i] * 0.25f);
        atomicMax(&extremes[0], data[i] * (i % 7) - 300);
        atomicMin(&extremes[1], data[i] - i);
        atomicExch(&extremes[2], i);
        atomicSub(&undone[1], t);
        atomicXor(&undone[2], i * 2654435761u);
    }
    atomicAdd(&undone[0], t % 2 ? 1 : -1);
    __syncthreads();
    if (t < 16) atomicAdd(&bins[t], local[t] + block_counter);
}

// a compare-and-swap, which the native engine leaves to the NumPy interpreter
__global__ void claim(int *owner, int *out) {
    int t = threadIdx.x;
    int seen = atomicCAS(owner, -1, t);
    out[t] = seen + t * 2;
}

// division and remainder at their edges: by -1 (INT_MIN wraps), by 0 (a fault, for one lane)
__global__ void divide(const int *a, const int *b, long long *out, unsigned *uout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        out[2 * i] = x / y + (long long)x * 3 / (y | 1);
        out[2 * i + 1] = x % y - (short)x % (short)(y | 1);
        uout[i] = (unsigned)x / (unsigned)y + (unsigned)x % (unsigned)y + i / 7 + i % 5;
    }
}
