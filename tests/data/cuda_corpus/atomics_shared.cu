// perfcalc corpus: atomics on shared memory (add, min, max, or, cas) then written out per block.
#include <cuda_runtime.h>

__global__ void atomicsShared(const int* in, int* out) {
    __shared__ int s[5];
    if (threadIdx.x < 5) s[threadIdx.x] = threadIdx.x == 1 ? 1 << 30 : 0;
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    atomicAdd(&s[0], v);
    atomicMin(&s[1], v);
    atomicMax(&s[2], v);
    atomicOr(&s[3], 1 << (threadIdx.x & 15));
    atomicCAS(&s[4], 0, 7);
    __syncthreads();
    if (threadIdx.x < 5) out[blockIdx.x * 5 + threadIdx.x] = s[threadIdx.x];
}

int main() { int *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 80); atomicsShared<<<4, 256>>>(a, b); return 0; }
