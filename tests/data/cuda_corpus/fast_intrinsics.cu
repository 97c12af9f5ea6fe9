// perfcalc corpus: fast intrinsics -- __expf, __logf, __sinf, __cosf, __fdividef, __saturatef.
#include <cuda_runtime.h>

__global__ void fastMath(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        out[i] = __expf(v) + __logf(2.0f + v * v) + __sinf(v) + __cosf(v)
                 + __fdividef(v, 3.0f + v * v) + __saturatef(v);
    }
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); fastMath<<<4, 256>>>(a, b, 1000); return 0; }
