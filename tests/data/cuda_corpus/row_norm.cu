// perfcalc corpus: normalise each row to unit length (block reduction in shared memory, rsqrtf).
#include <cuda_runtime.h>

__global__ void rowNormalize(float* m, int cols) {
    __shared__ float partial[128];
    float* row = m + blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c] * row[c];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
        __syncthreads();
    }
    float inv = rsqrtf(partial[0] + 1e-12f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] *= inv;
}

int main() { float* m; cudaMalloc(&m, 16 * 300 * 4); rowNormalize<<<16, 128>>>(m, 300); return 0; }
