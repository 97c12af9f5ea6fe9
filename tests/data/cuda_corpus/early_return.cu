// perfcalc corpus: divergent early returns at different depths.
#include <cuda_runtime.h>

__global__ void earlyExit(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    if (v < 0) { out[i] = -1; return; }
    for (int k = 0; k < 4; ++k) {
        if (v % 7 == k) { out[i] = k; return; }
        v /= 2;
    }
    out[i] = v;
}

int main() { int *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); earlyExit<<<4, 256>>>(a, b, 1000); return 0; }
