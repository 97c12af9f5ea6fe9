// ptxas's shared-load merge (perfcalc/sim/ptx/shared_merge.py) on the GPU: tests/test_shared_merge.py's
// tileDot (16 threads, each reading a 4-float row of As for 16 rows: 64 ld.shared.f32 a thread
// in the PTX) with the test's data, a[i] = i. Run under Nsight Compute by
// shared_merge_on_gpu.sh; prints out[0..63].
#include <cstdio>
#include <cuda_runtime.h>

__global__ void tileDot(const float* a, float* out) {
    __shared__ float As[16][64];
    int tx = threadIdx.x;  // 16 threads, 4 columns each
    for (int i = tx; i < 16 * 64; i += 16) As[i / 64][i % 64] = a[i];
    __syncthreads();
    float acc[4] = {0, 0, 0, 0};
    for (int k = 0; k < 16; k++)
        for (int i = 0; i < 4; i++) acc[i] += As[k][tx * 4 + i];
    for (int i = 0; i < 4; i++) out[tx * 4 + i] = acc[i];
}

int main() {
    float h[1024], r[64];
    for (int i = 0; i < 1024; i++) h[i] = (float)i;
    float *a, *out;
    cudaMalloc(&a, sizeof h);
    cudaMalloc(&out, sizeof r);
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    tileDot<<<1, 16>>>(a, out);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; i++) printf("%g%c", r[i], i == 63 ? '\n' : ' ');
    return 0;
}
