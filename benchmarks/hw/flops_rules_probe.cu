// The two ptxas rules the PTX engine follows for flop counts (perfcalc/sim/ptx/select_predication.py,
// exit_sinking.py), on the kernels of tests/test_select_predication.py and tests/test_exit_sinking.py
// with the tests' data: pick (64 lanes, a[i] = i, b[i] = 1) and rowSum (8 warps, x[i] = i).
// Run under Nsight Compute by flops_rules_on_gpu.sh; prints each kernel's results.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void pick(const float* a, const float* b, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = a[i], w = b[i];
    float t = v * w;
    if (v > 40.0f) t = v + w;  // ptxas: @P FADD into t's register
    out[i] = t;
}

__global__ void rowSum(const float* x, float* out) {
    float v = x[blockIdx.x * 32 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

int main() {
    float ha[256], hb[64], hx[256], hp[64], hr[8];
    for (int i = 0; i < 64; i++) ha[i] = (float)i, hb[i] = 1.0f;
    for (int i = 0; i < 256; i++) hx[i] = (float)i;
    float *a, *b, *p, *x, *r;
    cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&p, sizeof hp);
    cudaMalloc(&x, sizeof hx); cudaMalloc(&r, sizeof hr);
    cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
    cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
    pick<<<1, 64>>>(a, b, p);
    rowSum<<<8, 32>>>(x, r);
    cudaMemcpy(hp, p, sizeof hp, cudaMemcpyDeviceToHost);
    cudaMemcpy(hr, r, sizeof hr, cudaMemcpyDeviceToHost);
    printf("pick:");
    for (int i = 0; i < 64; i++) printf(" %g", hp[i]);
    printf("\nrowSum:");
    for (int i = 0; i < 8; i++) printf(" %g", hr[i]);
    printf("\n");
    return 0;
}
