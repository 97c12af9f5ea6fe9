// Double-buffered tensor-core GEMM written for perfcalc's corpus: cp.async brings 32x32 tiles
// of A and B into shared memory, ldmatrix (.x4 for A, .x4.trans for B) builds the fragments and
// mma.sync.m16n8k16 multiplies, in f16 and in bf16 with float accumulators. C = A (MxK) B (KxN).
// Usage: mma_gemm OUT.bin [N]   (square, N a multiple of 32)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

#define TILE 32
#define PITCH (TILE + 8)  // halves per shared row: rows stay 16-byte aligned, ldmatrix conflict-free

__device__ __forceinline__ void copy16(void* smem, const void* gmem) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem));
}

template <bool BF16>
__global__ void gemm(const uint16_t* A, const uint16_t* B, float* C, int n) {
  __shared__ __align__(16) uint16_t As[2][TILE][PITCH];
  __shared__ __align__(16) uint16_t Bs[2][TILE][PITCH];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  int wm = (warp / 2) * 16, wn = (warp % 2) * 16;
  int lr = tid / 4, lc = (tid % 4) * 8;  // this thread's 16-byte piece of a 32x32 tile
  float acc[2][4] = {};
  copy16(&As[0][lr][lc], A + (size_t)(row0 + lr) * n + lc);
  copy16(&Bs[0][lr][lc], B + (size_t)lr * n + col0 + lc);
  asm volatile("cp.async.commit_group;");
  int tiles = n / TILE;
  for (int t = 0; t < tiles; ++t) {
    int cur = t & 1;
    if (t + 1 < tiles) {
      int k0 = (t + 1) * TILE;
      copy16(&As[cur ^ 1][lr][lc], A + (size_t)(row0 + lr) * n + k0 + lc);
      copy16(&Bs[cur ^ 1][lr][lc], B + (size_t)(k0 + lr) * n + col0 + lc);
    }
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;");
    __syncthreads();
    for (int kk = 0; kk < TILE; kk += 16) {
      unsigned a[4], b[4];
      unsigned pa = (unsigned)__cvta_generic_to_shared(&As[cur][wm + lane % 16][kk + (lane / 16) * 8]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
      unsigned pb = (unsigned)__cvta_generic_to_shared(&Bs[cur][kk + lane % 16][wn + (lane / 16) * 8]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(pb));
      for (int h = 0; h < 2; ++h) {
        if constexpr (BF16) {
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(acc[h][0]), "+f"(acc[h][1]), "+f"(acc[h][2]), "+f"(acc[h][3])
                       : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * h]), "r"(b[2 * h + 1]));
        } else {
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(acc[h][0]), "+f"(acc[h][1]), "+f"(acc[h][2]), "+f"(acc[h][3])
                       : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * h]), "r"(b[2 * h + 1]));
        }
      }
    }
    __syncthreads();
  }
  int g = lane / 4, q = lane % 4;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i) {
      int r = row0 + wm + g + 8 * (i / 2), c = col0 + wn + 8 * h + 2 * q + (i % 2);
      C[(size_t)r * n + c] = acc[h][i];
    }
}

static uint32_t state = 2024u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 8388608.0f - 1.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 128;
  if (n <= 0 || n % TILE) { fprintf(stderr, "N = %d must be a positive multiple of %d\n", n, TILE); return 2; }
  size_t nn = (size_t)n * n;
  std::vector<uint16_t> ah(nn), bh(nn), ab(nn), bb(nn);
  for (size_t i = 0; i < nn; ++i) {
    float x = rnd(), y = rnd();
    __half hx = __float2half_rn(x), hy = __float2half_rn(y);
    __nv_bfloat16 bx = __float2bfloat16_rn(x), by = __float2bfloat16_rn(y);
    memcpy(&ah[i], &hx, 2); memcpy(&bh[i], &hy, 2); memcpy(&ab[i], &bx, 2); memcpy(&bb[i], &by, 2);
  }
  uint16_t *dA, *dB; float* dC;
  cudaMalloc(&dA, nn * 2); cudaMalloc(&dB, nn * 2); cudaMalloc(&dC, nn * 4);
  std::vector<float> out(nn);
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  dim3 grid(n / TILE, n / TILE);
  for (int bf = 0; bf < 2; ++bf) {
    cudaMemcpy(dA, bf ? ab.data() : ah.data(), nn * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, bf ? bb.data() : bh.data(), nn * 2, cudaMemcpyHostToDevice);
    if (bf) gemm<true><<<grid, 128>>>(dA, dB, dC, n); else gemm<false><<<grid, 128>>>(dA, dB, dC, n);
    cudaError_t err = cudaMemcpy(out.data(), dC, nn * 4, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    fwrite(out.data(), 4, nn, f);
    double sum = 0; for (size_t i = 0; i < nn; ++i) sum += out[i];
    printf("%s GEMM %dx%d: checksum %.6f\n", bf ? "bf16" : "f16", n, n, sum);
  }
  fclose(f);
  return 0;
}
