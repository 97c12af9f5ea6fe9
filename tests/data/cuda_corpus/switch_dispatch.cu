// perfcalc corpus: a switch over an opcode per element (the compiler may build a jump table).
#include <cuda_runtime.h>

__global__ void interpret(const int* ops, const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], r;
    switch (ops[i] & 7) {
        case 0: r = x + 1.0f; break;
        case 1: r = x * 3.0f; break;
        case 2: r = -x; break;
        case 3: r = x * x; break;
        case 4: r = x - 2.0f; break;
        case 5: r = fabsf(x); break;
        case 6: r = x * 0.5f + 4.0f; break;
        default: r = 0.0f;
    }
    out[i] = r;
}

int main() { int* o; float *a, *b; cudaMalloc(&o, 4096); cudaMalloc(&a, 4096); cudaMalloc(&b, 4096);
             interpret<<<4, 256>>>(o, a, b, 1000); return 0; }
