// 8-byte shared accesses on the GPU: wavefronts and bank conflicts of one LDS.64 / STS.64 a
// warp, by stride (in 8-byte words) and active lanes (perfcalc/memory/shared_memory.py;
// tests/test_lds64_probe.py runs these kernels on the PTX engine). One block of one warp per
// launch; lane l (l < active) reads or writes word (l * stride) mod 512 of a 4 KiB array.
// Run under Nsight Compute by lds64_on_gpu.sh; prints a checksum per launch.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void load64(const double* in, double* out, int stride, int active)
{
    __shared__ double s[512];
    int t = threadIdx.x;
    for (int i = t; i < 512; i += 32) s[i] = in[i];
    __syncthreads();
    if (t < active) out[t] = s[(t * stride) & 511];
}

__global__ void store64(const double* in, double* out, int stride, int active)
{
    __shared__ double s[512];
    int t = threadIdx.x;
    for (int i = t; i < 512; i += 32) s[i] = 0.0;
    __syncthreads();
    if (t < active) s[(t * stride) & 511] = in[t];
    __syncthreads();
    double sum = 0.0;
    for (int i = t; i < 512; i += 32) sum += s[i] * (i + 1);
    out[t] = sum;
}

int main()
{
    double h[512], o[32];
    for (int i = 0; i < 512; i++) h[i] = i * 0.5;
    double *in, *out;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof o);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    const int strides[] = {1, 2, 3, 4, 8, 16, 17, 32};
    const int actives[] = {32, 16, 8, 20};
    for (int k = 0; k < 2; k++)
        for (int a : actives)
            for (int s : strides) {
                cudaMemset(out, 0, sizeof o);
                if (k == 0) load64<<<1, 32>>>(in, out, s, a);
                else store64<<<1, 32>>>(in, out, s, a);
                cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
                double c = 0;
                for (int i = 0; i < 32; i++) c += o[i] * (i + 1);
                printf("%s %d %d %.17g\n", k ? "store64" : "load64", s, a, c);
            }
    return 0;
}
