// perfcalc corpus: __any_sync and __all_sync inside a divergent region.
#include <cuda_runtime.h>

__global__ void votes(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int r = 0;
    if (__any_sync(0xffffffff, v > 90)) r |= 1;
    if (__all_sync(0xffffffff, v > -95)) r |= 2;
    unsigned active = __activemask();
    r |= (__popc(active) == 32) << 2;
    out[i] = r;
}

int main() { int *a, *b; cudaMalloc(&a, 2048); cudaMalloc(&b, 2048); votes<<<4, 128>>>(a, b); return 0; }
