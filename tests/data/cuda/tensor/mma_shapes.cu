// The other mma.sync shapes, written for perfcalc's corpus: m16n8k8 f16 and bf16, m16n8k4 tf32,
// m16n8k16 s8, m16n8k32 u8 x s8 and .satfinite, m16n8k16 f16 with f16 accumulators, on fragments
// read in register order (so the output checks the lane maps and the arithmetic together).
// Usage: mma_shapes OUT.bin [WARPS]
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define LANE int i = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 32 + threadIdx.x % 32
__global__ void k8_f16(const unsigned* a, const unsigned* b, const float* c, float* d) {
  LANE;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
      : "=f"(d[4*i]), "=f"(d[4*i+1]), "=f"(d[4*i+2]), "=f"(d[4*i+3])
      : "r"(a[4*i]), "r"(a[4*i+1]), "r"(b[2*i]), "f"(c[4*i]), "f"(c[4*i+1]), "f"(c[4*i+2]), "f"(c[4*i+3]));
}
__global__ void k8_bf16(const unsigned* a, const unsigned* b, const float* c, float* d) {
  LANE;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
      : "=f"(d[4*i]), "=f"(d[4*i+1]), "=f"(d[4*i+2]), "=f"(d[4*i+3])
      : "r"(a[4*i]), "r"(a[4*i+1]), "r"(b[2*i]), "f"(c[4*i]), "f"(c[4*i+1]), "f"(c[4*i+2]), "f"(c[4*i+3]));
}
__global__ void k4_tf32(const unsigned* a, const unsigned* b, const float* c, float* d) {
  LANE;
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
      : "=f"(d[4*i]), "=f"(d[4*i+1]), "=f"(d[4*i+2]), "=f"(d[4*i+3])
      : "r"(a[4*i]), "r"(a[4*i+1]), "r"(b[2*i]), "f"(c[4*i]), "f"(c[4*i+1]), "f"(c[4*i+2]), "f"(c[4*i+3]));
}
__global__ void k16_s8(const unsigned* a, const unsigned* b, const int* c, int* d) {
  LANE;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
      : "=r"(d[4*i]), "=r"(d[4*i+1]), "=r"(d[4*i+2]), "=r"(d[4*i+3])
      : "r"(a[4*i]), "r"(a[4*i+1]), "r"(b[2*i]), "r"(c[4*i]), "r"(c[4*i+1]), "r"(c[4*i+2]), "r"(c[4*i+3]));
}
__global__ void k32_u8s8_sat(const unsigned* a, const unsigned* b, const int* c, int* d) {
  LANE;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
      : "=r"(d[4*i]), "=r"(d[4*i+1]), "=r"(d[4*i+2]), "=r"(d[4*i+3])
      : "r"(a[4*i]), "r"(a[4*i+1]), "r"(a[4*i+2]), "r"(a[4*i+3]), "r"(b[2*i]), "r"(b[2*i+1]),
        "r"(c[4*i]), "r"(c[4*i+1]), "r"(c[4*i+2]), "r"(c[4*i+3]));
}

static uint32_t state = 4242u;
static uint32_t next() { state = state * 1664525u + 1013904223u; return state; }
static float spread(int s) {
  uint32_t r = next(); int e = (int)(next() % (2 * s + 1)) - s;
  uint32_t bits = (r & 0x80000000u) | ((uint32_t)(127 + e) << 23) | (next() & 0x7FFFFFu);
  float f; memcpy(&f, &bits, 4); return f;
}
static unsigned h2(float x, float y) { __half a = __float2half_rn(x), b = __float2half_rn(y); unsigned short u, v; memcpy(&u, &a, 2); memcpy(&v, &b, 2); return u | ((unsigned)v << 16); }
static unsigned b2(float x, float y) { __nv_bfloat16 a = __float2bfloat16_rn(x), b = __float2bfloat16_rn(y); unsigned short u, v; memcpy(&u, &a, 2); memcpy(&v, &b, 2); return u | ((unsigned)v << 16); }
template <typename T> static T* up(const std::vector<T>& v) { T* p; cudaMalloc(&p, v.size() * sizeof(T)); cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice); return p; }
template <typename T> static void save(FILE* f, T* p, size_t n) { std::vector<T> h(n); cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost); fwrite(h.data(), sizeof(T), n, f); }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [WARPS]\n", argv[0]); return 2; }
  int warps = argc > 2 ? atoi(argv[2]) : 256;
  if (warps <= 0 || warps % 4) { fprintf(stderr, "WARPS = %d must be a positive multiple of 4\n", warps); return 2; }
  size_t L = (size_t)warps * 32;
  std::vector<unsigned> ah(4 * L), bh(2 * L), ab(4 * L), bb(2 * L), at(4 * L), bt(2 * L), a8(4 * L), b8(2 * L);
  std::vector<float> c(4 * L); std::vector<int> ci(4 * L);
  for (size_t i = 0; i < 4 * L; ++i) {
    ah[i] = h2(spread(6), spread(6)); ab[i] = b2(spread(20), spread(20));
    float t = spread(20); memcpy(&at[i], &t, 4); a8[i] = next(); c[i] = spread(12);
    ci[i] = (i % 7 == 0) ? (int)(0x7FFFFF00u + (next() & 0xFF)) : (int)next();  // some near INT_MAX: .satfinite
  }
  for (size_t i = 0; i < 2 * L; ++i) {
    bh[i] = h2(spread(6), spread(6)); bb[i] = b2(spread(20), spread(20));
    float t = spread(20); memcpy(&bt[i], &t, 4); b8[i] = next();
  }
  float *d1, *d2, *d3; int *d4, *d5;
  cudaMalloc(&d1, 16 * L); cudaMalloc(&d2, 16 * L); cudaMalloc(&d3, 16 * L); cudaMalloc(&d4, 16 * L); cudaMalloc(&d5, 16 * L);
  float* dc = up(c); int* dci = up(ci);
  int blocks = warps / 4;
  k8_f16<<<blocks, 128>>>(up(ah), up(bh), dc, d1);
  k8_bf16<<<blocks, 128>>>(up(ab), up(bb), dc, d2);
  k4_tf32<<<blocks, 128>>>(up(at), up(bt), dc, d3);
  k16_s8<<<blocks, 128>>>(up(a8), up(b8), dci, d4);
  k32_u8s8_sat<<<blocks, 128>>>(up(a8), up(b8), dci, d5);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  save(f, d1, 4 * L); save(f, d2, 4 * L); save(f, d3, 4 * L); save(f, d4, 4 * L); save(f, d5, 4 * L);
  fclose(f);
  printf("mma_shapes: %d warps, 5 forms, %zu results\n", warps, 20 * L);
  return 0;
}
