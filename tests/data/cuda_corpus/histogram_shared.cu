// perfcalc corpus: a 64-bin histogram privatised in shared memory (shared atomics), merged with
// global atomics.
#include <cuda_runtime.h>
#define BINS 64

__global__ void histogram(const unsigned char* data, unsigned* bins, int n) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main() { unsigned char* d; unsigned* b; cudaMalloc(&d, 8192); cudaMalloc(&b, BINS * 4);
             histogram<<<8, 128>>>(d, b, 8192); return 0; }
