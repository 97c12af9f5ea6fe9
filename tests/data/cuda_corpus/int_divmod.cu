// perfcalc corpus: signed and unsigned integer division and remainder by runtime values.
#include <cuda_runtime.h>

__global__ void divmod(const int* a, const int* b, int* q, int* r, unsigned* uq, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i] | 1;
    q[i] = x / y;
    r[i] = x % y;
    uq[i] = (unsigned)x / (unsigned)(y & 0x7fff | 1);
}

int main() { int *a, *b, *q, *r; unsigned* u; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&q, 4096);
             cudaMalloc(&r, 4096); cudaMalloc(&u, 4096); divmod<<<4, 256>>>(a, b, q, r, u, 1000); return 0; }
