// perfcalc corpus: a lambda defined and called inside a kernel, capturing by value.
#include <cuda_runtime.h>

__global__ void lambdas(const float* x, float* y, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    auto f = [k](float v) { return v > 0.0f ? k * v : v / k; };
    auto g = [&](int j) { return f(x[j]) + 1.0f; };
    if (i < n) y[i] = g(i);
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); lambdas<<<4, 256>>>(a, b, 1000, 3.0f); return 0; }
