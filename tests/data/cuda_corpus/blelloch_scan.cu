// perfcalc corpus: a work-efficient (Blelloch) exclusive scan of 512 elements per block.
#include <cuda_runtime.h>
#define N 512

__global__ void blelloch(const float* in, float* out) {
    __shared__ float t[N];
    int i = threadIdx.x, base = blockIdx.x * N;
    t[2 * i] = in[base + 2 * i];
    t[2 * i + 1] = in[base + 2 * i + 1];
    int offset = 1;
    for (int d = N >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (i < d) { int a = offset * (2 * i + 1) - 1, b = offset * (2 * i + 2) - 1; t[b] += t[a]; }
        offset *= 2;
    }
    if (i == 0) t[N - 1] = 0;
    for (int d = 1; d < N; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (i < d) {
            int a = offset * (2 * i + 1) - 1, b = offset * (2 * i + 2) - 1;
            float v = t[a]; t[a] = t[b]; t[b] += v;
        }
    }
    __syncthreads();
    out[base + 2 * i] = t[2 * i];
    out[base + 2 * i + 1] = t[2 * i + 1];
}

int main() { float *a, *b; cudaMalloc(&a, 4 * N * 4); cudaMalloc(&b, 4 * N * 4); blelloch<<<4, N / 2>>>(a, b); return 0; }
