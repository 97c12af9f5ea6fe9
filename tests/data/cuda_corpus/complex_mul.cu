// perfcalc corpus: float2 complex numbers, a __device__ helper, 64-bit loads.
#include <cuda_runtime.h>

__device__ float2 cmul(float2 p, float2 q) {
    return make_float2(p.x * q.x - p.y * q.y, p.x * q.y + p.y * q.x);
}

__global__ void complexMul(const float2* a, const float2* b, float2* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = cmul(a[i], b[i]);
}

int main() {
    float2 *a, *b, *c; cudaMalloc(&a, 2048 * 8); cudaMalloc(&b, 2048 * 8); cudaMalloc(&c, 2048 * 8);
    complexMul<<<16, 128>>>(a, b, c, 2048);
    return 0;
}
