// perfcalc corpus: per-block double partial sums in shared memory, merged with a double atomicAdd.
#include <cuda_runtime.h>

__global__ void sumDouble(const double* in, double* total, int n) {
    __shared__ double part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : 0.0;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

int main() { double *a, *b; cudaMalloc(&a, 8192); cudaMalloc(&b, 8); sumDouble<<<4, 256>>>(a, b, 1000); return 0; }
