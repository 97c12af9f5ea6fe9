// perfcalc corpus: double precision -- fma, division, sqrt and a double accumulation loop.
#include <cuda_runtime.h>

__global__ void dmath(const double* x, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i], acc = 0.0;
    for (int k = 1; k <= 8; ++k) acc = fma(acc, v, 1.0 / k);
    out[i] = acc + sqrt(fabs(v)) / (1.0 + v * v);
}

int main() { double *a, *b; cudaMalloc(&a, 8192); cudaMalloc(&b, 8192); dmath<<<4, 256>>>(a, b, 1000); return 0; }
