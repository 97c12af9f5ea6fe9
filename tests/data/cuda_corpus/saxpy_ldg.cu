// perfcalc corpus: saxpy reading x through the read-only path (__ldg), a float scalar argument.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float alpha, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * __ldg(&x[i]) + y[i];
}

int main() {
    int n = 4096; float *x, *y;
    cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
    saxpy<<<n / 128, 128>>>(n, 2.5f, x, y);
    return cudaDeviceSynchronize() != cudaSuccess;
}
