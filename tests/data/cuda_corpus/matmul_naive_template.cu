// perfcalc corpus: a naive matrix multiply templated on the element type (double instantiation).
#include <cuda_runtime.h>

template <typename T>
__global__ void matmulNaive(const T* A, const T* B, T* C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        T acc = 0;
        for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}

int main() { double *a, *b, *c; cudaMalloc(&a, 48 * 48 * 8); cudaMalloc(&b, 48 * 48 * 8); cudaMalloc(&c, 48 * 48 * 8);
             matmulNaive<double><<<dim3(3, 3), dim3(16, 16)>>>(a, b, c, 48); return 0; }
