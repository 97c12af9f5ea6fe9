// perfcalc corpus: int4 vector accesses on integer data, bitwise work per component.
#include <cuda_runtime.h>

__global__ void xor4(const int* a, const int* b, int* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    int4 x = reinterpret_cast<const int4*>(a)[i];
    int4 y = reinterpret_cast<const int4*>(b)[i];
    int4 r = make_int4(x.x ^ y.x, x.y ^ y.y, (x.z ^ y.z) >> 3, (x.w | y.w) & 0xff0f);
    reinterpret_cast<int4*>(out)[i] = r;
}

int main() {
    int *a, *b, *o; cudaMalloc(&a, 8192); cudaMalloc(&b, 8192); cudaMalloc(&o, 8192);
    xor4<<<4, 128>>>(a, b, o, 512);
    return 0;
}
