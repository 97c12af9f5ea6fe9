// perfcalc corpus: kernels inside a namespace and with extern "C" linkage, a static device
// helper and a file-scope constexpr.
#include <cuda_runtime.h>

constexpr int kScale = 3;

namespace kernels {
static __device__ int twice(int v) { return 2 * v; }
__global__ void scaleInts(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(in[i]) * kScale;
}
}  // namespace kernels

extern "C" __global__ void negate(int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = -v[i];
}

int main() { int *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096);
             kernels::scaleInts<<<4, 256>>>(a, b, 1000); negate<<<4, 256>>>(b, 1000); return 0; }
