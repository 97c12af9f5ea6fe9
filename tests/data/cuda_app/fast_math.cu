// -use_fast_math flushes single-precision denormals to zero (nvcc's -ftz=true): 2e-38 / 4 is
// 5e-39, below FLT_MIN (1.18e-38), so the kernel's product is 0 with the option and 5e-39
// without it. Prints "flushed" or "kept" for each of 64 threads' results, once.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void quarter(const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i] * 0.25f;
}

int main() {
    const int n = 64;
    float h[n], r[n];
    for (int i = 0; i < n; i++) h[i] = 2e-38f;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    quarter<<<1, n>>>(x, y);
    cudaMemcpy(r, y, sizeof r, cudaMemcpyDeviceToHost);
    int zeros = 0;
    for (int i = 0; i < n; i++) zeros += r[i] == 0.0f;
    printf("%s\n", zeros == n ? "flushed" : zeros == 0 ? "kept" : "mixed");
    return 0;
}
