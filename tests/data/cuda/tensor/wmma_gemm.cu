// nvcuda::wmma GEMMs written for perfcalc's corpus: one warp per 16x16 tile of C, fragments
// loaded straight from global memory, in f16 and bf16 (m16n16k16) and tf32 (m16n16k8), float
// accumulators. The f16 run scales the accumulator element-wise (alpha) before the store.
// Usage: wmma_gemm OUT.bin [N]   (square, N a multiple of 16)
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
using namespace nvcuda;

__global__ void gemm_f16(const half* A, const half* B, float* C, int n, float alpha) {
  int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;  // B read as column-major: B^T
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * n + k, n);
    wmma::load_matrix_sync(b, B + (size_t)tn * n + k, n);
    wmma::mma_sync(acc, a, b, acc);
  }
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= alpha;
  wmma::store_matrix_sync(C + (size_t)tm * n + tn, acc, n, wmma::mem_row_major);
}

__global__ void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int n) {
  int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * n + k, n);
    wmma::load_matrix_sync(b, B + (size_t)k * n + tn, n);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tn * n + tm, acc, n, wmma::mem_col_major);  // C^T
}

__global__ void gemm_tf32(const float* A, const float* B, float* C, int n) {
  int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 8) {
    wmma::load_matrix_sync(a, A + (size_t)tm * n + k, n);
    wmma::load_matrix_sync(b, B + (size_t)k * n + tn, n);
    for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
    for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tm * n + tn, acc, n, wmma::mem_row_major);
}

static uint32_t state = 77u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 8388608.0f - 1.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 64;
  if (n <= 0 || n % 16) { fprintf(stderr, "N = %d must be a positive multiple of 16\n", n); return 2; }
  size_t nn = (size_t)n * n;
  std::vector<float> a(nn), b(nn), out(nn);
  std::vector<half> ah(nn), bh(nn);
  std::vector<__nv_bfloat16> ab(nn), bb(nn);
  for (size_t i = 0; i < nn; ++i) {
    a[i] = rnd(); b[i] = rnd();
    ah[i] = __float2half_rn(a[i]); bh[i] = __float2half_rn(b[i]);
    ab[i] = __float2bfloat16_rn(a[i]); bb[i] = __float2bfloat16_rn(b[i]);
  }
  void *dA, *dB; float* dC;
  cudaMalloc(&dA, nn * 4); cudaMalloc(&dB, nn * 4); cudaMalloc(&dC, nn * 4);
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  dim3 grid(n / 16, n / 16);
  for (int kind = 0; kind < 3; ++kind) {
    if (kind == 0) {
      cudaMemcpy(dA, ah.data(), nn * 2, cudaMemcpyHostToDevice); cudaMemcpy(dB, bh.data(), nn * 2, cudaMemcpyHostToDevice);
      gemm_f16<<<grid, 32>>>((const half*)dA, (const half*)dB, dC, n, 0.5f);
    } else if (kind == 1) {
      cudaMemcpy(dA, ab.data(), nn * 2, cudaMemcpyHostToDevice); cudaMemcpy(dB, bb.data(), nn * 2, cudaMemcpyHostToDevice);
      gemm_bf16<<<grid, 32>>>((const __nv_bfloat16*)dA, (const __nv_bfloat16*)dB, dC, n);
    } else {
      cudaMemcpy(dA, a.data(), nn * 4, cudaMemcpyHostToDevice); cudaMemcpy(dB, b.data(), nn * 4, cudaMemcpyHostToDevice);
      gemm_tf32<<<grid, 32>>>((const float*)dA, (const float*)dB, dC, n);
    }
    cudaError_t err = cudaMemcpy(out.data(), dC, nn * 4, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    fwrite(out.data(), 4, nn, f);
    double sum = 0; for (size_t i = 0; i < nn; ++i) sum += out[i];
    printf("%s wmma GEMM %dx%d: checksum %.6f\n", kind == 0 ? "f16" : kind == 1 ? "bf16" : "tf32", n, n, sum);
  }
  fclose(f);
  return 0;
}
