// perfcalc corpus: expf, logf, sinf, cosf, powf and tanhf (long instruction sequences).
#include <cuda_runtime.h>

__global__ void transcend(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = expf(v * 0.5f) + logf(1.0f + v * v) + sinf(v) * cosf(2.0f * v)
             + powf(1.5f, v) + tanhf(v);
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); transcend<<<2, 256>>>(a, b, 500); return 0; }
