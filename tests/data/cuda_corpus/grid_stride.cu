// perfcalc corpus: a grid-stride loop (fewer threads than elements).
#include <cuda_runtime.h>

__global__ void scaleAll(float* x, int n, float s) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        x[i] = x[i] * s + 1.0f;
}

int main() { float* x; cudaMalloc(&x, 40000); scaleAll<<<4, 128>>>(x, 10000, 0.5f); return 0; }
