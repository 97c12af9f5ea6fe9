// perfcalc corpus: a vectorised fill with uint4 stores and a scalar tail.
#include <cuda_runtime.h>

__global__ void fill(unsigned* p, unsigned value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) reinterpret_cast<uint4*>(p)[i] = make_uint4(value, value + 1, value + 2, value + 3);
    if (i < n - 4 * n4) p[4 * n4 + i] = value;
}

int main() { unsigned* p; cudaMalloc(&p, 4 * 1030); fill<<<2, 128>>>(p, 7u, 1030); return 0; }
