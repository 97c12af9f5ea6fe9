// perfcalc corpus: bit intrinsics -- __clz, __popc, __brev, __ffs, __byte_perm, funnel shift.
#include <cuda_runtime.h>

__global__ void bits(const unsigned* in, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    out[5 * i + 0] = __clz(v);
    out[5 * i + 1] = __popc(v);
    out[5 * i + 2] = __brev(v);
    out[5 * i + 3] = __ffs(v);
    out[5 * i + 4] = __byte_perm(v, ~v, 0x5140) ^ __funnelshift_l(v, ~v, i & 31);
}

int main() { unsigned *a, *b; cudaMalloc(&a, 2048); cudaMalloc(&b, 10240); bits<<<2, 256>>>(a, b); return 0; }
