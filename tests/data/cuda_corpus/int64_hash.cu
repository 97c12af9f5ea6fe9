// perfcalc corpus: 64-bit integer arithmetic -- a splitmix64 hash per element.
#include <cuda_runtime.h>

__device__ unsigned long long splitmix(unsigned long long z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__global__ void hash64(const long long* in, unsigned long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = splitmix((unsigned long long)in[i] + i);
}

int main() { long long* a; unsigned long long* b; cudaMalloc(&a, 8192); cudaMalloc(&b, 8192); hash64<<<4, 256>>>(a, b, 1000); return 0; }
