// perfcalc corpus: a gather through an index array, read-only data through __ldg.
#include <cuda_runtime.h>

__global__ void gather(const int* __restrict__ idx, const float* __restrict__ src, float* dst, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = __ldg(src + (__ldg(idx + i) % m));
}

int main() { int* idx; float *s, *d; cudaMalloc(&idx, 4096); cudaMalloc(&s, 4096); cudaMalloc(&d, 4096);
             gather<<<4, 256>>>(idx, s, d, 1000, 1000); return 0; }
