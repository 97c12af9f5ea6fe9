// perfcalc corpus: a __constant__ table read with divergent (per-lane) indices, and a
// __constant__ int scalar.
#include <cuda_runtime.h>

__constant__ int table[16];
__constant__ int bias;

__global__ void lookup(const int* idx, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = table[idx[i] & 15] + bias;
}

int main() { int *a, *b; cudaMalloc(&a, 2048); cudaMalloc(&b, 2048); lookup<<<2, 256>>>(a, b); return 0; }
