// A float32 SGEMM (no tensor cores) written for perfcalc's corpus: 32x32 tiles of A and B stream
// through shared memory by cp.async, double-buffered (wait_group 1), each thread computing a 2x2
// block of C. Edge tiles use cp.async's src-size: bytes past the matrix are zero-filled, so N
// need not be a multiple of 32 (N a multiple of 4: rows stay 16-byte aligned).
// Usage: sgemm_cp_async OUT.bin [N]
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define T 32

__device__ __forceinline__ void copy16(float* smem, const float* gmem, int valid_bytes) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(valid_bytes));
}

__global__ void sgemm(const float* A, const float* B, float* C, int n) {
  __shared__ __align__(16) float As[2][T][T];
  __shared__ __align__(16) float Bs[2][T][T];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // 256 threads: a 16x16 grid of 2x2 blocks
  int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
  float acc[2][2] = {};
  int tiles = (n + T - 1) / T;
  auto load = [&](int buf, int k0) {
    int r = threadIdx.x / 8, c = (threadIdx.x % 8) * 4;  // one 16-byte piece of each tile
    int ar = row0 + r, ac = k0 + c, br = k0 + r, bc = col0 + c;
    int a_ok = ar < n ? max(0, min(4, n - ac)) * 4 : 0, b_ok = br < n ? max(0, min(4, n - bc)) * 4 : 0;
    copy16(&As[buf][r][c], A + (size_t)min(ar, n - 1) * n + min(ac, n - 4), a_ok);
    copy16(&Bs[buf][r][c], B + (size_t)min(br, n - 1) * n + min(bc, n - 4), b_ok);
  };
  load(0, 0);
  asm volatile("cp.async.commit_group;");
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) load((t + 1) & 1, (t + 1) * T);
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;");
    __syncthreads();
    int buf = t & 1;
    for (int k = 0; k < T; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) acc[i][j] += As[buf][2 * ty + i][k] * Bs[buf][k][2 * tx + j];
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      int r = row0 + 2 * ty + i, c = col0 + 2 * tx + j;
      if (r < n && c < n) C[(size_t)r * n + c] = acc[i][j];
    }
}

static uint32_t state = 11u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 8388608.0f - 1.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 100;
  if (n < 4 || n % 4) { fprintf(stderr, "N = %d must be a multiple of 4, at least 4\n", n); return 2; }
  size_t nn = (size_t)n * n;
  std::vector<float> a(nn), b(nn), c(nn);
  for (size_t i = 0; i < nn; ++i) { a[i] = rnd(); b[i] = rnd(); }
  float *dA, *dB, *dC;
  cudaMalloc(&dA, nn * 4); cudaMalloc(&dB, nn * 4); cudaMalloc(&dC, nn * 4);
  cudaMemcpy(dA, a.data(), nn * 4, cudaMemcpyHostToDevice); cudaMemcpy(dB, b.data(), nn * 4, cudaMemcpyHostToDevice);
  dim3 grid((n + T - 1) / T, (n + T - 1) / T);
  sgemm<<<grid, 256>>>(dA, dB, dC, n);
  cudaError_t err = cudaMemcpy(c.data(), dC, nn * 4, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  double worst = 0;  // against a float64 host product of a few rows
  for (int r = 0; r < n; r += 17)
    for (int col = 0; col < n; ++col) {
      double s = 0; for (int k = 0; k < n; ++k) s += (double)a[(size_t)r * n + k] * b[(size_t)k * n + col];
      double e = s - c[(size_t)r * n + col]; if (e < 0) e = -e; if (e > worst) worst = e;
    }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(c.data(), 4, nn, f); fclose(f);
  printf("sgemm %dx%d with cp.async: max error on sampled rows %.3g -> %s\n", n, n, worst, worst < 1e-3 * n ? "PASS" : "FAIL");
  return worst < 1e-3 * n ? 0 : 1;
}
