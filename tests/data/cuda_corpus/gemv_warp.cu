// perfcalc corpus: matrix-vector product with one warp per row and a shuffle reduction.
#include <cuda_runtime.h>

__global__ void gemvWarp(const float* A, const float* x, float* y, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32) acc += A[row * cols + c] * x[c];
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (lane == 0) y[row] = acc;
}

int main() { float *A, *x, *y; cudaMalloc(&A, 64 * 200 * 4); cudaMalloc(&x, 800); cudaMalloc(&y, 256);
             gemvWarp<<<8, 256>>>(A, x, y, 64, 200); return 0; }
