// perfcalc corpus: bool arrays as masks (1-byte loads) selecting which elements to update.
#include <cuda_runtime.h>

__global__ void maskedUpdate(const bool* mask, float* x, int n, float delta) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && mask[i]) x[i] += delta;
}

int main() { bool* m; float* x; cudaMalloc(&m, 1024); cudaMalloc(&x, 4096); maskedUpdate<<<4, 256>>>(m, x, 1000, 1.5f); return 0; }
