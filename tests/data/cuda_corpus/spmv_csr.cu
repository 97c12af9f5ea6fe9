// perfcalc corpus: sparse matrix-vector product in CSR, one thread per row (data-dependent loads).
#include <cuda_runtime.h>

__global__ void spmvCsr(int rows, const int* rowPtr, const int* cols, const float* vals,
                        const float* x, float* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0.0f;
        for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j) sum += vals[j] * x[cols[j]];
        y[r] = sum;
    }
}

int main() { int *rp, *c; float *v, *x, *y; cudaMalloc(&rp, 1028); cudaMalloc(&c, 16384); cudaMalloc(&v, 16384);
             cudaMalloc(&x, 1024); cudaMalloc(&y, 1024); spmvCsr<<<2, 128>>>(256, rp, c, v, x, y); return 0; }
