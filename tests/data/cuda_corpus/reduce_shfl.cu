// perfcalc corpus: a warp-shuffle reduction (__shfl_down_sync) finished with a float atomicAdd.
#include <cuda_runtime.h>

__inline__ __device__ float warpSum(float v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__global__ void reduceShfl(const float* in, float* out, int n) {
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = warpSum(sum);
    if ((threadIdx.x & (warpSize - 1)) == 0) atomicAdd(out, sum);
}

int main() {
    float *in, *out; cudaMalloc(&in, 10000 * 4); cudaMalloc(&out, 4);
    reduceShfl<<<8, 256>>>(in, out, 10000);
    return 0;
}
