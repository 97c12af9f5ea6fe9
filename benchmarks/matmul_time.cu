// Times seed 000's naive and tiled matmul kernels (verbatim bodies) with cudaEvents on a real GPU.
// Build: nvcc -O3 -arch=sm_90 -o mmtime benchmarks/matmul_time.cu ; run: ./mmtime
// Results (H100 SXM): benchmarks/results_perf.md. Median of 10 timed launches after 3 warm-ups.
#include <cstdio>
#include <vector>
#include <algorithm>
#define TILE_WIDTH 16
__global__ void NaiveKernel(float* Md, float* Nd, float* Pd, int Width) {
int Row = blockIdx.y*TILE_WIDTH + threadIdx.y;
int Col = blockIdx.x*TILE_WIDTH + threadIdx.x;
float Pvalue = 0;
for (int k = 0; k < Width; ++k)
    Pvalue += Md[Row*Width+k] * Nd[k*Width+Col];
Pd[Row*Width+Col] = Pvalue;
}
__global__ void TiledKernel(float* Md, float* Nd, float* Pd, int Width){
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int bx = blockIdx.x;    int by = blockIdx.y;
    int tx = threadIdx.x;  int ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int m = 0; m < Width/TILE_WIDTH; ++m) {
      Mds[ty][tx] = Md[Row*Width + (m*TILE_WIDTH + tx)];
      Nds[ty][tx] = Nd[Col + (m*TILE_WIDTH + ty)*Width];
      __syncthreads();
      for (int k = 0; k < TILE_WIDTH; ++k)
        Pvalue += Mds[ty][k] * Nds[k][tx];
      __syncthreads();
    }
    Pd[Row*Width+Col] = Pvalue;
}
int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  int clk=0, mclk=0, bus=0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
  printf("device\t%s\tsm\t%d\tclock_khz\t%d\tmem_clock_khz\t%d\tbus_bits\t%d\tl2_bytes\t%d\n",
         p.name, p.multiProcessorCount, clk, mclk, bus, p.l2CacheSize);
  int widths[] = {1024, 2048, 4096};
  for (int w : widths) {
    size_t n = (size_t)w * w;
    std::vector<float> h(n, 1.0f);
    float *M, *N, *P; cudaMalloc(&M, n*4); cudaMalloc(&N, n*4); cudaMalloc(&P, n*4);
    cudaMemcpy(M, h.data(), n*4, cudaMemcpyHostToDevice);
    cudaMemcpy(N, h.data(), n*4, cudaMemcpyHostToDevice);
    dim3 grid(w / TILE_WIDTH, w / TILE_WIDTH), block(TILE_WIDTH, TILE_WIDTH);
    for (int kind = 0; kind < 2; ++kind) {
      std::vector<float> ms;
      cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
      for (int r = 0; r < 13; ++r) {
        cudaEventRecord(a);
        if (kind == 0) NaiveKernel<<<grid, block>>>(M, N, P, w);
        else TiledKernel<<<grid, block>>>(M, N, P, w);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float t; cudaEventElapsedTime(&t, a, b); if (r >= 3) ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      float med = ms[ms.size()/2];
      cudaMemcpy(h.data(), P, 4*4, cudaMemcpyDeviceToHost);
      printf("%s\tW\t%d\tmedian_ms\t%.4f\tmin_ms\t%.4f\tgflops\t%.1f\tcheck\t%s\n",
             kind ? "tiled" : "naive", w, med, ms[0], 2.0 * w * (double)w * w / (med * 1e6),
             h[0] == (float)w ? "ok" : "BAD");
    }
    cudaFree(M); cudaFree(N); cudaFree(P);
  }
  cudaError_t e = cudaGetLastError(); printf("cuda\t%s\n", cudaGetErrorString(e));
  return 0;
}
