// perfcalc corpus: a struct passed by value as a kernel argument.
#include <cuda_runtime.h>

struct Params {
    float scale;
    int offset;
    float clampHi;
    short mode;
};

__global__ void transform(const float* in, float* out, int n, Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[(i + p.offset) % n] * p.scale;
    out[i] = p.mode ? fminf(v, p.clampHi) : v;
}

int main() {
    Params p = {2.0f, 3, 1.5f, 1};
    float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096);
    transform<<<4, 256>>>(a, b, 1000, p);
    return 0;
}
