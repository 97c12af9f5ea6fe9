// perfcalc corpus: butterfly all-reduce (__shfl_xor_sync) -- every lane gets the warp's max.
#include <cuda_runtime.h>

__global__ void warpMax(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, mask));
    out[i] = v;
}

int main() { float *a, *b; cudaMalloc(&a, 2048); cudaMalloc(&b, 2048); warpMax<<<2, 256>>>(a, b); return 0; }
