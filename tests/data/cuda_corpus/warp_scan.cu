// perfcalc corpus: an inclusive warp scan with __shfl_up_sync.
#include <cuda_runtime.h>

__global__ void warpScan(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = in[i];
    for (int d = 1; d < 32; d <<= 1) {
        float up = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) v += up;
    }
    out[i] = v;
}

int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096);
             warpScan<<<4, 256>>>(a, b); return 0; }
