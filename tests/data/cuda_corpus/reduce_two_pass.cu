// perfcalc corpus: the classic shared-memory reduction with sequential addressing and the last
// warp unrolled with volatile accesses.
#include <cuda_runtime.h>

template <unsigned blockSize>
__device__ void warpReduce(volatile float* s, unsigned t) {
    if (blockSize >= 64) s[t] += s[t + 32];
    if (blockSize >= 32) s[t] += s[t + 16];
    if (blockSize >= 16) s[t] += s[t + 8];
    if (blockSize >= 8) s[t] += s[t + 4];
    if (blockSize >= 4) s[t] += s[t + 2];
    if (blockSize >= 2) s[t] += s[t + 1];
}

template <unsigned blockSize>
__global__ void reduce6(const float* in, float* out, unsigned n) {
    __shared__ float s[blockSize];
    unsigned t = threadIdx.x, i = blockIdx.x * (blockSize * 2) + t;
    s[t] = (i < n ? in[i] : 0.0f) + (i + blockSize < n ? in[i + blockSize] : 0.0f);
    __syncthreads();
    for (unsigned k = blockSize / 2; k > 32; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) warpReduce<blockSize>(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}

int main() { float *a, *b; cudaMalloc(&a, 8192); cudaMalloc(&b, 64); reduce6<256><<<4, 256>>>(a, b, 2000); return 0; }
