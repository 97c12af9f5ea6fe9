// perfcalc corpus: a bitonic sort of 256 keys per block in shared memory.
#include <cuda_runtime.h>
#define N 256

__global__ void bitonic(int* keys) {
    __shared__ int s[N];
    int t = threadIdx.x, base = blockIdx.x * N;
    s[t] = keys[base + t];
    __syncthreads();
    for (int k = 2; k <= N; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int partner = t ^ j;
            if (partner > t) {
                bool up = (t & k) == 0;
                int a = s[t], b = s[partner];
                if ((a > b) == up) { s[t] = b; s[partner] = a; }
            }
            __syncthreads();
        }
    }
    keys[base + t] = s[t];
}

int main() { int* k; cudaMalloc(&k, 4 * N * 4); bitonic<<<4, N>>>(k); return 0; }
