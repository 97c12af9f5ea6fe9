// mma.sync GEMMs with fragments gathered from global memory by the PTX ISA's lane maps, written
// for perfcalc's corpus: int8 (m16n8k32, s32 accumulators) and tf32 (m16n8k8, inputs rounded
// with cvt.rna.tf32.f32). One warp per 16x8 tile of C. C = A (NxN) B (NxN), B given as B^T.
// Usage: mma_int8_tf32 OUT.bin [N]   (N a multiple of 32)
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

__global__ void gemm_s8(const int8_t* A, const int8_t* Bt, int* C, int n) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  int r0 = blockIdx.y * 16, c0 = blockIdx.x * 8;
  int acc[4] = {0, 0, 0, 0};
  for (int k = 0; k < n; k += 32) {
    unsigned a[4], b[2];
    for (int j = 0; j < 4; ++j) {  // a_j: rows g / g+8, columns 4t.. (+16 for j >= 2)
      int row = r0 + g + 8 * (j & 1), col = k + 4 * t + 16 * (j >> 1);
      a[j] = *(const unsigned*)(A + (size_t)row * n + col);
    }
    for (int j = 0; j < 2; ++j) {  // b_j: k rows 4t.. (+16 for j = 1), column g (Bt row)
      b[j] = *(const unsigned*)(Bt + (size_t)(c0 + g) * n + k + 4 * t + 16 * j);
    }
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  for (int i = 0; i < 4; ++i) C[(size_t)(r0 + g + 8 * (i / 2)) * n + c0 + 2 * t + (i % 2)] = acc[i];
}

__device__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__global__ void gemm_tf32(const float* A, const float* Bt, float* C, int n) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  int r0 = blockIdx.y * 16, c0 = blockIdx.x * 8;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < n; k += 8) {
    unsigned a[4], b[2];
    for (int j = 0; j < 4; ++j) a[j] = to_tf32(A[(size_t)(r0 + g + 8 * (j & 1)) * n + k + t + 4 * (j >> 1)]);
    for (int j = 0; j < 2; ++j) b[j] = to_tf32(Bt[(size_t)(c0 + g) * n + k + t + 4 * j]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  for (int i = 0; i < 4; ++i) C[(size_t)(r0 + g + 8 * (i / 2)) * n + c0 + 2 * t + (i % 2)] = acc[i];
}

static uint32_t state = 99u;
static uint32_t next() { state = state * 1664525u + 1013904223u; return state; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 64;
  if (n <= 0 || n % 32) { fprintf(stderr, "N = %d must be a positive multiple of 32\n", n); return 2; }
  size_t nn = (size_t)n * n;
  std::vector<int8_t> a8(nn), b8(nn);
  std::vector<float> af(nn), bf(nn), outf(nn);
  std::vector<int> outi(nn);
  for (size_t i = 0; i < nn; ++i) {
    a8[i] = (int8_t)(next() >> 24); b8[i] = (int8_t)(next() >> 24);
    af[i] = (float)(next() >> 8) / 8388608.0f - 1.0f; bf[i] = (float)(next() >> 8) / 8388608.0f - 1.0f;
  }
  int8_t *dA8, *dB8; float *dAf, *dBf, *dCf; int* dCi;
  cudaMalloc(&dA8, nn); cudaMalloc(&dB8, nn); cudaMalloc(&dAf, nn * 4); cudaMalloc(&dBf, nn * 4);
  cudaMalloc(&dCf, nn * 4); cudaMalloc(&dCi, nn * 4);
  cudaMemcpy(dA8, a8.data(), nn, cudaMemcpyHostToDevice); cudaMemcpy(dB8, b8.data(), nn, cudaMemcpyHostToDevice);
  cudaMemcpy(dAf, af.data(), nn * 4, cudaMemcpyHostToDevice); cudaMemcpy(dBf, bf.data(), nn * 4, cudaMemcpyHostToDevice);
  dim3 grid(n / 8, n / 16);
  gemm_s8<<<grid, 32>>>(dA8, dB8, dCi, n);
  gemm_tf32<<<grid, 32>>>(dAf, dBf, dCf, n);
  cudaMemcpy(outi.data(), dCi, nn * 4, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaMemcpy(outf.data(), dCf, nn * 4, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(outi.data(), 4, nn, f); fwrite(outf.data(), 4, nn, f); fclose(f);
  long long s = 0; double sf = 0;
  for (size_t i = 0; i < nn; ++i) { s += outi[i]; sf += outf[i]; }
  printf("int8 GEMM %dx%d: checksum %lld; tf32 GEMM: checksum %.6f\n", n, n, s, sf);
  return 0;
}
