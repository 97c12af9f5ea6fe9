// perfcalc corpus: __ballot_sync and __popc count the warp's positive values.
#include <cuda_runtime.h>

__global__ void countPositive(const float* in, unsigned* masks, int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = __ballot_sync(0xffffffff, i < n && in[i] > 0.0f);
    if ((threadIdx.x & 31) == 0) {
        masks[i / 32] = m;
        counts[i / 32] = __popc(m);
    }
}

int main() { float* a; unsigned* m; int* c; cudaMalloc(&a, 4096); cudaMalloc(&m, 128); cudaMalloc(&c, 128);
             countPositive<<<4, 256>>>(a, m, c, 1000); return 0; }
