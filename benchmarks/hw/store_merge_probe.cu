// ptxas's shared-store merge and a generic load that reaches shared memory, on the GPU
// (perfcalc/sim/ptx/shared_merge.py, memops._add_counts; tests/test_shared_merge.py runs these
// kernels on the PTX engine): `pairs`, 128 threads each storing two adjacent ints at 8 * tid
// (one STS.64 a warp); `guardedPairs`, the same pair under `if (t < 40)` (an if-converted arm:
// one predicated STS.64 a warp); `pick`, 64 threads reading tile[63 - t] through a pointer that
// is the shared tile or the global input (a generic LD). Run under Nsight Compute by
// store_merge_on_gpu.sh; prints the outputs.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void pairs(const int* in, int* out)
{
    __shared__ int temp[256];
    int t = threadIdx.x;
    temp[2 * t] = in[2 * t];
    temp[2 * t + 1] = in[2 * t + 1];
    __syncthreads();
    out[t] = temp[t] + temp[255 - t];
}

__global__ void guardedPairs(const int* in, int* out)
{
    __shared__ int temp[256];
    int t = threadIdx.x;
    temp[t] = 0;
    temp[t + 128] = 0;
    __syncthreads();
    if (t < 40) {
        temp[2 * t] = in[2 * t];
        temp[2 * t + 1] = in[2 * t + 1];
    }
    __syncthreads();
    out[t] = temp[t] + temp[255 - t];
}

__global__ void pick(const float* in, float* out, int from_tile)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = in[t] * 2.0f;
    __syncthreads();
    const float* p = from_tile ? tile : in;
    out[t] = p[63 - t];
}

int main()
{
    int hi[256], ho[128];
    float hf[64], hr[64];
    for (int i = 0; i < 256; i++) hi[i] = i;
    for (int i = 0; i < 64; i++) hf[i] = i / 63.0f;
    int *in, *out;
    float *fin, *fout;
    cudaMalloc(&in, sizeof hi);
    cudaMalloc(&out, sizeof ho);
    cudaMalloc(&fin, sizeof hf);
    cudaMalloc(&fout, sizeof hr);
    cudaMemcpy(in, hi, sizeof hi, cudaMemcpyHostToDevice);
    cudaMemcpy(fin, hf, sizeof hf, cudaMemcpyHostToDevice);
    pairs<<<1, 128>>>(in, out);
    cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) printf("%d%c", ho[i], i == 127 ? '\n' : ' ');
    guardedPairs<<<1, 128>>>(in, out);
    cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) printf("%d%c", ho[i], i == 127 ? '\n' : ' ');
    for (int from_tile = 1; from_tile >= 0; from_tile--) {
        pick<<<1, 64>>>(fin, fout, from_tile);
        cudaMemcpy(hr, fout, sizeof hr, cudaMemcpyDeviceToHost);
        for (int i = 0; i < 64; i++) printf("%.9g%c", hr[i], i == 63 ? '\n' : ' ');
    }
    return 0;
}
