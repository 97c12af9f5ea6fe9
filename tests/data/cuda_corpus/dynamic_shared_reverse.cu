// perfcalc corpus: extern __shared__ sized at launch -- reverse each block's slice.
#include <cuda_runtime.h>

__global__ void reverseBlock(int* d, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x, tr = blockDim.x - t - 1;
    int base = blockIdx.x * blockDim.x;
    s[t] = d[base + t];
    __syncthreads();
    d[base + t] = s[tr];
}

int main() { int* d; cudaMalloc(&d, 4096); reverseBlock<<<4, 256, 256 * sizeof(int)>>>(d, 1024); return 0; }
