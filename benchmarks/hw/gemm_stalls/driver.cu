// One launch of examples/tune/gemm_tiled.cu at N = 1024 for the configuration given by -D BM,
// BN, BK, TM, TN (as `perfcalc tune` sweeps it), after one warm-up launch: for Nsight Compute's
// warp-state statistics (run.sh).
#include <cstdio>
#include <vector>
#include "../../../examples/tune/gemm_tiled.cu"

int main() {
  const int n = 1024;
  std::vector<float> h((size_t)n * n);
  for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  float *a, *b, *c;
  cudaMalloc(&a, h.size() * 4);
  cudaMalloc(&b, h.size() * 4);
  cudaMalloc(&c, h.size() * 4);
  cudaMemcpy(a, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  dim3 grid(n / BN, n / BM), block(BN / TN, BM / TM);
  for (int i = 0; i < 2; ++i) gemm_tiled<<<grid, block>>>(a, b, c, n);
  cudaError_t err = cudaDeviceSynchronize();
  printf("BM%d BN%d BK%d TM%d TN%d: %s\n", BM, BN, BK, TM, TN, cudaGetErrorString(err));
  return err != cudaSuccess;
}
