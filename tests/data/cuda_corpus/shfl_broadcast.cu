// perfcalc corpus: __shfl_sync broadcasts and width-limited (8-lane) shuffles.
#include <cuda_runtime.h>

__global__ void broadcast(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int lead = __shfl_sync(0xffffffff, v, 5);
    int seg = __shfl_sync(0xffffffff, v, 3, 8);
    int down = __shfl_down_sync(0xffffffff, v, 2, 8);
    out[i] = lead + 100 * seg - down;
}

int main() { int *a, *b; cudaMalloc(&a, 1024); cudaMalloc(&b, 1024); broadcast<<<2, 128>>>(a, b); return 0; }
