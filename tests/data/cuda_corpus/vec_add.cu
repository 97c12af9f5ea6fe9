// perfcalc corpus: element-wise add with __restrict__ pointers and a bounds guard.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void vecAdd(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 5000;
    float *a, *b, *c;
    cudaMalloc(&a, n * sizeof(float)); cudaMalloc(&b, n * sizeof(float)); cudaMalloc(&c, n * sizeof(float));
    vecAdd<<<(n + 255) / 256, 256>>>(a, b, c, n);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
