// perfcalc corpus: half precision -- __half and __half2 arithmetic, conversions to and from float.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void halfMath(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = __float2half(a[i]), y = __float2half(b[i]);
    __half s = __hadd(x, y);
    __half p = __hmul(x, y);
    __half f = __hfma(x, y, s);
    __half2 v = __halves2half2(s, p);
    __half2 w = __hmul2(v, __floats2half2_rn(0.5f, 2.0f));
    out[i] = __half2float(f) + __low2float(w) + __high2float(w);
}

int main() { float *a, *b, *c; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&c, 4096);
             halfMath<<<4, 256>>>(a, b, c, 1000); return 0; }
