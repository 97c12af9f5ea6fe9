// perfcalc corpus: selects the compiler predicates instead of branching.
#include <cuda_runtime.h>

__global__ void relu6(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
    }
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); relu6<<<4, 256>>>(a, b, 1000); return 0; }
