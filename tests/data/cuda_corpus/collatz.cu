// perfcalc corpus: a data-dependent while loop (Collatz steps), heavily divergent.
#include <cuda_runtime.h>

__global__ void collatz(const unsigned* start, unsigned* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = start[i], s = 0;
    while (v != 1 && s < 1000) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        ++s;
    }
    steps[i] = s;
}

int main() { unsigned *a, *b; cudaMalloc(&a, 2048); cudaMalloc(&b, 2048); collatz<<<2, 256>>>(a, b, 500); return 0; }
