// An `if` at the end of a loop body whose join is the loop's head (`@p bra HEAD; A; bra HEAD` in
// PTX), on the GPU (perfcalc/sim/ptx/if_conversion.py; tests/test_if_conversion.py runs these
// kernels on the PTX engine): `tailIf`, 128 threads counting, over `steps` rows of a 16-wide
// window, the in-range values of each row into a shared histogram (HeCBench entropy's shape);
// `tailIfVolatile`, the same with the histogram `volatile`; `tailIfBarrier`, the first with a
// `__syncthreads()` at the top of the loop body (the arm's jump lands on the barrier, as in
// HeCBench merge's loop). Run under Nsight Compute by
// loop_tail_on_gpu.sh; prints the outputs.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void tailIf(const char* in, int* out, int width, int steps)
{
    __shared__ int hist[8][128];
    int t = threadIdx.x;
    for (int k = 0; k < 8; k++) hist[k][t] = 0;
    int x = t % 16 - 4, y = t / 16;
#pragma unroll 2
    for (int dy = 0; dy < 5; dy++) {  // 5 rows, 2 a pass: the exit test between the two copies
        int yy = y + dy * steps;
        if (x >= 0 && yy < width) hist[in[yy * width + x] & 7][t]++;
    }
    int s = 0;
    for (int k = 0; k < 8; k++) s += hist[k][t] * (k + 1);
    out[t] = s;
}

__global__ void tailIfVolatile(const char* in, int* out, int width, int steps)
{
    volatile __shared__ int hist[8][128];
    int t = threadIdx.x;
    for (int k = 0; k < 8; k++) hist[k][t] = 0;
    int x = t % 16 - 4, y = t / 16;
#pragma unroll 2
    for (int dy = 0; dy < 5; dy++) {  // 5 rows, 2 a pass: the exit test between the two copies
        int yy = y + dy * steps;
        if (x >= 0 && yy < width) hist[in[yy * width + x] & 7][t]++;
    }
    int s = 0;
    for (int k = 0; k < 8; k++) s += hist[k][t] * (k + 1);
    out[t] = s;
}

__global__ void tailIfBarrier(const char* in, int* out, int width, int steps)
{
    __shared__ int hist[8][128];
    int t = threadIdx.x;
    for (int k = 0; k < 8; k++) hist[k][t] = 0;
    int x = t % 16 - 4, y = t / 16;
#pragma unroll 2
    for (int dy = 0; dy < 5; dy++) {  // 5 rows, 2 a pass: the exit test between the two copies
        __syncthreads();
        int yy = y + dy * steps;
        if (x >= 0 && yy < width) hist[in[yy * width + x] & 7][t]++;
    }
    int s = 0;
    for (int k = 0; k < 8; k++) s += hist[k][t] * (k + 1);
    out[t] = s;
}

int main()
{
    const int width = 16;
    char hin[width * width];
    int hout[128];
    for (int i = 0; i < width * width; i++) hin[i] = (char)((i * 7 + 3) % 11);
    char* in;
    int* out;
    cudaMalloc(&in, sizeof hin);
    cudaMalloc(&out, sizeof hout);
    cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
    tailIf<<<1, 128>>>(in, out, width, 12);
    cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) printf("%d%c", hout[i], i == 127 ? '\n' : ' ');
    tailIfVolatile<<<1, 128>>>(in, out, width, 12);
    cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) printf("%d%c", hout[i], i == 127 ? '\n' : ' ');
    tailIfBarrier<<<1, 128>>>(in, out, width, 12);
    cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) printf("%d%c", hout[i], i == 127 ? '\n' : ' ');
    return 0;
}
