// perfcalc corpus: a three-way switch on threadIdx with fall-through.
#include <cuda_runtime.h>

__global__ void classify(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i], r = 0;
    switch (threadIdx.x % 3) {
        case 0: r += v;
        case 1: r += 2 * v; break;
        default: r = -v;
    }
    out[i] = r;
}

int main() { int *a, *b; cudaMalloc(&a, 1536); cudaMalloc(&b, 1536); classify<<<3, 128>>>(a, b); return 0; }
