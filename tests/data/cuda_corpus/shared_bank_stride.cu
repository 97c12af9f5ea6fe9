// perfcalc corpus: shared-memory accesses with strides 1, 2 and 33 words (no, 2-way and no
// bank conflicts) and a 64-bit shared access.
#include <cuda_runtime.h>

__global__ void strides(const float* in, float* out) {
    __shared__ float s[32 * 33];
    __shared__ double d[64];
    int t = threadIdx.x;
    for (int k = t; k < 32 * 33; k += blockDim.x) s[k] = in[blockIdx.x * 32 + (k & 31)] + k;
    if (t < 64) d[t] = (double)t * 0.5;
    __syncthreads();
    float a = s[t], b = s[(2 * t) % (32 * 33)], c = s[(33 * t) % (32 * 33)];
    out[blockIdx.x * blockDim.x + t] = a + b + c + (float)d[t & 63];
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); strides<<<4, 128>>>(a, b); return 0; }
