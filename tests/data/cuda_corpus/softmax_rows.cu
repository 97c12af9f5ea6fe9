// perfcalc corpus: a row softmax, one warp per row (warp max and sum with shuffles, expf).
#include <cuda_runtime.h>

__global__ void softmax(const float* x, float* y, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
    const float* xr = x + row * cols;
    float m = -1e30f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    for (int c = lane; c < cols; c += 32) y[row * cols + c] = expf(xr[c] - m) / s;
}

int main() { float *a, *b; cudaMalloc(&a, 32 * 100 * 4); cudaMalloc(&b, 32 * 100 * 4); softmax<<<8, 128>>>(a, b, 100); return 0; }
