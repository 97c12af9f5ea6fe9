// perfcalc corpus: 16-bit integers with saturating arithmetic written out by hand.
#include <cuda_runtime.h>

__global__ void addSat16(const short* a, const short* b, short* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int s = (int)a[i] + (int)b[i];
        out[i] = (short)(s > 32767 ? 32767 : (s < -32768 ? -32768 : s));
    }
}

int main() { short *a, *b, *c; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&c, 4096);
             addSat16<<<8, 256>>>(a, b, c, 2000); return 0; }
