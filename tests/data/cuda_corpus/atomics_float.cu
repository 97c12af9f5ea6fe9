// perfcalc corpus: floating-point atomics -- float and double atomicAdd, float atomicExch, and a
// float max built from atomicCAS on the bit pattern.
#include <cuda_runtime.h>

__device__ float atomicMaxFloat(float* addr, float value) {
    int* p = (int*)addr;
    int old = *p, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(p, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void atomicsFloat(const float* in, float* facc, double* dacc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    atomicAdd(&facc[0], v);
    atomicAdd(&dacc[0], (double)v * 0.5);
    atomicMaxFloat(&facc[1], v);
    if (i == 77) atomicExch(&facc[2], v);
}

int main() { float *a, *f; double* d; cudaMalloc(&a, 4096); cudaMalloc(&f, 12); cudaMalloc(&d, 8);
             atomicsFloat<<<2, 128>>>(a, f, d); return 0; }
