// perfcalc corpus: every integer atomic family on global memory (add, sub, exch, min, max, inc,
// dec, cas, and, or, xor), with 32- and 64-bit adds.
#include <cuda_runtime.h>

__global__ void atomicsInt(const int* in, int* acc, unsigned* uacc, unsigned long long* wide) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    atomicAdd(&acc[0], v);
    atomicSub(&acc[1], v & 7);
    atomicMax(&acc[2], v);
    atomicMin(&acc[3], v);
    atomicAnd(&acc[4], ~(1 << (i & 15)));
    atomicOr(&acc[5], 1 << (i & 31));
    atomicXor(&acc[6], v);
    atomicCAS(&acc[7], 0, 1);
    atomicExch(&acc[8 + (i & 3)], 5 + (i & 3));
    atomicInc(&uacc[0], 100u);
    atomicDec(&uacc[1], 1000u);
    atomicAdd(&uacc[2], 3u);
    atomicAdd(&wide[0], (unsigned long long)(v + 200));
}

int main() { int *a, *b; unsigned* u; unsigned long long* w;
             cudaMalloc(&a, 4096); cudaMalloc(&b, 64); cudaMalloc(&u, 12); cudaMalloc(&w, 8);
             atomicsInt<<<2, 256>>>(a, b, u, w); return 0; }
