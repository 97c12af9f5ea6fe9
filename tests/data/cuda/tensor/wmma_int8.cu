// nvcuda::wmma on 8-bit integers written for perfcalc's corpus: s8 and u8 GEMMs with int32
// accumulators (m16n16k16, A row-major, B column-major), one warp per 16x16 tile.
// Usage: wmma_int8 OUT.bin [N]   (N a multiple of 16)
#include <mma.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
using namespace nvcuda;

template <typename T>
__global__ void gemm(const T* A, const T* Bt, int* C, int n) {
  int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 7);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * n + k, n);
    wmma::load_matrix_sync(b, Bt + (size_t)tn * n + k, n);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tm * n + tn, acc, n, wmma::mem_row_major);
}

static uint32_t state = 23u;
static uint32_t next() { state = state * 1664525u + 1013904223u; return state; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 64;
  if (n <= 0 || n % 16) { fprintf(stderr, "N = %d must be a positive multiple of 16\n", n); return 2; }
  size_t nn = (size_t)n * n;
  std::vector<unsigned char> a(nn), b(nn);
  std::vector<int> c(nn);
  for (size_t i = 0; i < nn; ++i) { a[i] = (unsigned char)(next() >> 24); b[i] = (unsigned char)(next() >> 24); }
  unsigned char *dA, *dB; int* dC;
  cudaMalloc(&dA, nn); cudaMalloc(&dB, nn); cudaMalloc(&dC, nn * 4);
  cudaMemcpy(dA, a.data(), nn, cudaMemcpyHostToDevice); cudaMemcpy(dB, b.data(), nn, cudaMemcpyHostToDevice);
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  dim3 grid(n / 16, n / 16);
  for (int u = 0; u < 2; ++u) {
    if (u) gemm<unsigned char><<<grid, 32>>>(dA, dB, dC, n);
    else gemm<signed char><<<grid, 32>>>((const signed char*)dA, (const signed char*)dB, dC, n);
    cudaError_t err = cudaMemcpy(c.data(), dC, nn * 4, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    fwrite(c.data(), 4, nn, f);
    long long s = 0; for (size_t i = 0; i < nn; ++i) s += c[i];
    printf("%s wmma GEMM %dx%d: checksum %lld\n", u ? "u8" : "s8", n, n, s);
  }
  fclose(f);
  return 0;
}
