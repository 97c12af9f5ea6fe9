// Probe (issue 32): the dependent-issue latency of one warp's chain of FP32 and FP64 operations on
// the device's SM (clock64 around 4,096 dependent operations, one warp, median of 9 launches).
#include <cstdio>
#include <algorithm>
#include <vector>

#define CHAIN(T, OP)                                                      \
  __global__ void chain_##OP(T* out, long long* cycles, T a, T b, int n) { \
    T x = out[threadIdx.x];                                               \
    long long start = clock64();                                          \
    for (int i = 0; i < n; i += 8) {                                      \
      _Pragma("unroll") for (int k = 0; k < 8; ++k) x = OP(x, a, b);      \
    }                                                                     \
    long long stop = clock64();                                           \
    out[threadIdx.x] = x;                                                 \
    if (threadIdx.x == 0) cycles[0] = stop - start;                       \
  }

__device__ __forceinline__ float ffma_(float x, float a, float b) { return fmaf(x, a, b); }
__device__ __forceinline__ float fadd_(float x, float a, float) { return x + a; }
__device__ __forceinline__ double dfma_(double x, double a, double b) { return fma(x, a, b); }
__device__ __forceinline__ double dadd_(double x, double a, double) { return x + a; }
__device__ __forceinline__ double dmul_(double x, double a, double) { return x * a; }
__device__ __forceinline__ int imad_(int x, int a, int b) { return x * a + b; }

CHAIN(float, ffma_)
CHAIN(float, fadd_)
CHAIN(double, dfma_)
CHAIN(double, dadd_)
CHAIN(double, dmul_)
CHAIN(int, imad_)

template <typename T, typename K>
double run(K kernel, T a, T b) {
  const int n = 4096;
  T* out; long long* cycles;
  cudaMalloc(&out, 32 * sizeof(T)); cudaMemset(out, 0, 32 * sizeof(T));
  cudaMalloc(&cycles, sizeof(long long));
  std::vector<double> per;
  for (int r = 0; r < 10; ++r) {
    kernel<<<1, 32>>>(out, cycles, a, b, n);
    long long c; cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
    if (r) per.push_back(double(c) / n);  // the first launch warms up
  }
  std::sort(per.begin(), per.end());
  cudaFree(out); cudaFree(cycles);
  return per[per.size() / 2];
}

int main() {
  printf("op,cycles_per_dependent_op\n");
  printf("ffma,%.3f\n", run<float>(chain_ffma_, 1.0001f, 0.5f));
  printf("fadd,%.3f\n", run<float>(chain_fadd_, 1.0001f, 0.5f));
  printf("dfma,%.3f\n", run<double>(chain_dfma_, 1.0001, 0.5));
  printf("dadd,%.3f\n", run<double>(chain_dadd_, 1.0001, 0.5));
  printf("dmul,%.3f\n", run<double>(chain_dmul_, 1.0001, 0.5));
  printf("imad,%.3f\n", run<int>(chain_imad_, 3, 1));
  return 0;
}
