// perfcalc corpus: a tiled matrix multiply whose tile is a template parameter, instantiated at
// the launch (MatrixMulCUDA<16>).
#include <cuda_runtime.h>
#include <cstdio>

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* C, const float* A, const float* B, int wA, int wB) {
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

int main() {
    const int w = 64;
    float *A, *B, *C;
    cudaMalloc(&A, w * w * 4); cudaMalloc(&B, w * w * 4); cudaMalloc(&C, w * w * 4);
    dim3 threads(16, 16), grid(w / 16, w / 16);
    MatrixMulCUDA<16><<<grid, threads>>>(C, A, B, w, w);
    cudaDeviceSynchronize();
    printf("ok\n");
    return 0;
}
