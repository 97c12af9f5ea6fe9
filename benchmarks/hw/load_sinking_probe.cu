// Where ptxas issues a global load whose value only a guarded loop reads (HeCBench's accuracy
// kernel reads `label_pred` before `for (col = threadIdx.x; col < D; ...)`; its sm_90 SASS loads
// it after the loop's guard, benchmarks/hw/ifconvert_h100/): `sink`, 4 blocks of 128 threads, D =
// 40 columns, so warps 2 and 3 skip the loop. Run under Nsight Compute by load_sinking_on_gpu.sh;
// prints out.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void sink(const int* lab, const float* X, int D, int* out)
{
    int row = blockIdx.x;
    int label = lab[row];
    float lp = X[row * D + label];
    int n = 0;
    for (int col = threadIdx.x; col < D; col += blockDim.x)
        if (X[row * D + col] > lp) n++;
    out[row * blockDim.x + threadIdx.x] = n;
}

int main()
{
    const int rows = 4, D = 40, threads = 128;
    int hl[rows], ho[rows * threads];
    float hx[rows * D];
    for (int r = 0; r < rows; r++) hl[r] = (r * 7) % D;
    for (int i = 0; i < rows * D; i++) hx[i] = (float)((i * 37) % 101);
    int *lab, *out;
    float* X;
    cudaMalloc(&lab, sizeof hl);
    cudaMalloc(&X, sizeof hx);
    cudaMalloc(&out, sizeof ho);
    cudaMemcpy(lab, hl, sizeof hl, cudaMemcpyHostToDevice);
    cudaMemcpy(X, hx, sizeof hx, cudaMemcpyHostToDevice);
    sink<<<rows, threads>>>(lab, X, D, out);
    cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost);
    for (int i = 0; i < rows * threads; i++) printf("%d%c", ho[i], i == rows * threads - 1 ? '\n' : ' ');
    return 0;
}
