// perfcalc corpus: __mulhi, __umulhi, __umul24, __mul64hi and 64-bit wide products.
#include <cuda_runtime.h>

__global__ void hiProducts(const int* a, const int* b, long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = a[i], y = b[i];
    long long w = (long long)x * y;
    out[4 * i + 0] = __mulhi(x, y);
    out[4 * i + 1] = __umulhi((unsigned)x, (unsigned)y);
    out[4 * i + 2] = __umul24((unsigned)x, (unsigned)y) + w;
    out[4 * i + 3] = __mul64hi(w, (long long)x * 977);
}

int main() { int *a, *b; long long* o; cudaMalloc(&a, 2048); cudaMalloc(&b, 2048); cudaMalloc(&o, 16384);
             hiProducts<<<2, 256>>>(a, b, o); return 0; }
