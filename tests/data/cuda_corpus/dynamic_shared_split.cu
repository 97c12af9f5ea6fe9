// perfcalc corpus: one dynamic shared buffer split into a float and an int array.
#include <cuda_runtime.h>

__global__ void splitShared(const float* v, const int* k, float* out) {
    extern __shared__ unsigned char raw[];
    float* fs = reinterpret_cast<float*>(raw);
    int* is = reinterpret_cast<int*>(raw + blockDim.x * sizeof(float));
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    fs[t] = v[g];
    is[t] = k[g] & (blockDim.x - 1);
    __syncthreads();
    out[g] = fs[is[t]] + fs[t];
}

int main() { float *v, *o; int* k; cudaMalloc(&v, 2048); cudaMalloc(&k, 2048); cudaMalloc(&o, 2048);
             splitShared<<<4, 128, 128 * 8>>>(v, k, o); return 0; }
