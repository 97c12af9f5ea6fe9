// The other wmma shapes, written for perfcalc's corpus: m32n8k16 and m8n32k16 with f16 inputs,
// one with float and one with half accumulators, one warp per output tile. C = A (M x K) B.
// Usage: wmma_shapes OUT.bin [K]   (K a multiple of 16)
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
using namespace nvcuda;

template <int M, int N, typename Acc>
__global__ void gemm(const half* A, const half* B, Acc* C, int k_total, int n_total) {
  int tm = blockIdx.y * M, tn = blockIdx.x * N;
  wmma::fragment<wmma::matrix_a, M, N, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, M, N, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, M, N, 16, Acc> acc;
  wmma::fill_fragment(acc, (Acc)0.0f);
  for (int k = 0; k < k_total; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * k_total + k, k_total);
    wmma::load_matrix_sync(b, B + (size_t)k * n_total + tn, n_total);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tm * n_total + tn, acc, n_total, wmma::mem_row_major);
}

static uint32_t state = 5150u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 8388608.0f - 1.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [K]\n", argv[0]); return 2; }
  int k = argc > 2 ? atoi(argv[2]) : 64;
  if (k <= 0 || k % 16) { fprintf(stderr, "K = %d must be a positive multiple of 16\n", k); return 2; }
  const int m = 64, n = 64;
  std::vector<half> a((size_t)m * k), b((size_t)k * n);
  for (auto& v : a) v = __float2half_rn(rnd());
  for (auto& v : b) v = __float2half_rn(rnd());
  half *dA, *dB, *dH; float* dF;
  cudaMalloc(&dA, a.size() * 2); cudaMalloc(&dB, b.size() * 2); cudaMalloc(&dF, m * n * 4); cudaMalloc(&dH, m * n * 2);
  cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice); cudaMemcpy(dB, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  gemm<32, 8, float><<<dim3(n / 8, m / 32), 32>>>(dA, dB, dF, k, n);
  gemm<8, 32, half><<<dim3(n / 32, m / 8), 32>>>(dA, dB, dH, k, n);
  std::vector<float> f(m * n); std::vector<half> h(m * n);
  cudaMemcpy(f.data(), dF, m * n * 4, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaMemcpy(h.data(), dH, m * n * 2, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* out = fopen(argv[1], "wb");
  if (!out) { perror(argv[1]); return 1; }
  fwrite(f.data(), 4, m * n, out); fwrite(h.data(), 2, m * n, out); fclose(out);
  printf("wmma m32n8k16 (float) and m8n32k16 (half), K = %d\n", k);
  return 0;
}
