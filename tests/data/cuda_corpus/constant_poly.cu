// perfcalc corpus: polynomial coefficients in a __constant__ array (uniform reads) and a
// __constant__ scalar.
#include <cuda_runtime.h>

__constant__ float coeffs[8];
__constant__ float shift;

__global__ void poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i] - shift, acc = coeffs[7];
    for (int k = 6; k >= 0; --k) acc = acc * v + coeffs[k];
    y[i] = acc;
}

int main() {
    float h[8] = {1, 0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f, 0.015625f, 0.0078125f};
    cudaMemcpyToSymbol(coeffs, h, sizeof(h));
    float *x, *y; cudaMalloc(&x, 4096); cudaMalloc(&y, 4096);
    poly<<<4, 256>>>(x, y, 1000);
    return 0;
}
