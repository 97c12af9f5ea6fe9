// perfcalc corpus: the naive transpose (coalesced reads, strided writes) with 2-D blocks.
#include <cuda_runtime.h>

__global__ void transposeNaive(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

int main() { float *a, *b; cudaMalloc(&a, 48 * 80 * 4); cudaMalloc(&b, 48 * 80 * 4);
             transposeNaive<<<dim3(3, 10), dim3(16, 8)>>>(a, b, 48, 80); return 0; }
