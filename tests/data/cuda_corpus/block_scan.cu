// perfcalc corpus: an inclusive Hillis-Steele scan of one block in shared memory.
#include <cuda_runtime.h>
#define N 256

__global__ void blockScan(const int* in, int* out) {
    __shared__ int buf[2][N];
    int t = threadIdx.x, pout = 0, pin = 1;
    buf[pout][t] = in[blockIdx.x * N + t];
    __syncthreads();
    for (int offset = 1; offset < N; offset *= 2) {
        pout = 1 - pout; pin = 1 - pout;
        buf[pout][t] = buf[pin][t] + (t >= offset ? buf[pin][t - offset] : 0);
        __syncthreads();
    }
    out[blockIdx.x * N + t] = buf[pout][t];
}

int main() { int *a, *b; cudaMalloc(&a, 4 * N * 4); cudaMalloc(&b, 4 * N * 4);
             blockScan<<<4, N>>>(a, b); return 0; }
