// perfcalc corpus: single-precision math library calls (full-accuracy versions).
#include <cuda_runtime.h>
#include <cmath>

__global__ void mathlib(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float a = sqrtf(fabsf(v)) + rsqrtf(1.0f + v * v);
    float b = floorf(v * 3.0f) + ceilf(v) + fminf(v, 0.25f) + fmaxf(v, -0.25f);
    float c = v / (1.0f + fabsf(v));
    out[i] = a + b + c;
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); mathlib<<<4, 256>>>(a, b, 1000); return 0; }
