// Tensor-core numerics probe (written for perfcalc): one mma.sync per warp on fragments read
// straight from memory in register order, so the output depends only on the arithmetic.
// Inputs have spread exponents and mixed signs, so alignment, carries and cancellation happen.
// Usage: mma_probe OUT.bin [WARPS]
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void probe_f16(const uint32_t* a, const uint32_t* b, const float* c, float* d) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x % 32, i = w * 32 + l;
  const uint32_t* A = a + 4 * i; const uint32_t* B = b + 2 * i; const float* C = c + 4 * i; float* D = d + 4 * i;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
      : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]), "f"(C[1]), "f"(C[2]), "f"(C[3]));
}

__global__ void probe_f16_acc16(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x % 32, i = w * 32 + l;
  const uint32_t* A = a + 4 * i; const uint32_t* B = b + 2 * i;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
      : "=r"(d[2 * i]), "=r"(d[2 * i + 1])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "r"(c[2 * i]), "r"(c[2 * i + 1]));
}

__global__ void probe_bf16(const uint32_t* a, const uint32_t* b, const float* c, float* d) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x % 32, i = w * 32 + l;
  const uint32_t* A = a + 4 * i; const uint32_t* B = b + 2 * i; const float* C = c + 4 * i; float* D = d + 4 * i;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
      : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]), "f"(C[1]), "f"(C[2]), "f"(C[3]));
}

__global__ void probe_tf32(const uint32_t* a, const uint32_t* b, const float* c, float* d) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x % 32, i = w * 32 + l;
  const uint32_t* A = a + 4 * i; const uint32_t* B = b + 2 * i; const float* C = c + 4 * i; float* D = d + 4 * i;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
      : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]), "f"(C[1]), "f"(C[2]), "f"(C[3]));
}

__global__ void probe_s8(const uint32_t* a, const uint32_t* b, const int* c, int* d) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, l = threadIdx.x % 32, i = w * 32 + l;
  const uint32_t* A = a + 4 * i; const uint32_t* B = b + 2 * i; const int* C = c + 4 * i; int* D = d + 4 * i;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
      : "=r"(D[0]), "=r"(D[1]), "=r"(D[2]), "=r"(D[3])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "r"(C[0]), "r"(C[1]), "r"(C[2]), "r"(C[3]));
}

static uint32_t state = 12345u;
static uint32_t next() { state = state * 1664525u + 1013904223u; return state; }
// a float with a random sign, 23 random fraction bits and an exponent in [-spread, spread]
static float spread_float(int spread) {
  uint32_t r = next();
  int e = (int)(next() % (2 * spread + 1)) - spread;
  uint32_t bits = (r & 0x80000000u) | ((uint32_t)(127 + e) << 23) | (next() & 0x7FFFFFu);
  float f; memcpy(&f, &bits, 4); return f;
}
static uint16_t to_half_bits(float f) { __half h = __float2half_rn(f); uint16_t u; memcpy(&u, &h, 2); return u; }
static uint16_t to_bf16_bits(float f) { __nv_bfloat16 h = __float2bfloat16_rn(f); uint16_t u; memcpy(&u, &h, 2); return u; }

template <typename T> static T* device_copy(const std::vector<T>& v) {
  T* p; cudaMalloc(&p, v.size() * sizeof(T)); cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice); return p;
}
template <typename T> static void save(FILE* f, T* dev, size_t n) {
  std::vector<T> h(n); cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost); fwrite(h.data(), sizeof(T), n, f);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [WARPS]\n", argv[0]); return 2; }
  int warps = argc > 2 ? atoi(argv[2]) : 64;
  size_t lanes = (size_t)warps * 32;
  std::vector<uint32_t> a(4 * lanes), b(2 * lanes), ah(4 * lanes), bh(2 * lanes), abf(4 * lanes), bbf(2 * lanes), ch(2 * lanes);
  std::vector<uint32_t> a8(4 * lanes), b8(2 * lanes);
  std::vector<float> c(4 * lanes); std::vector<int> ci(4 * lanes);
  for (size_t i = 0; i < 4 * lanes; ++i) {
    ah[i] = to_half_bits(spread_float(6)) | ((uint32_t)to_half_bits(spread_float(6)) << 16);
    abf[i] = to_bf16_bits(spread_float(20)) | ((uint32_t)to_bf16_bits(spread_float(20)) << 16);
    float t = spread_float(20); memcpy(&a[i], &t, 4);
    a8[i] = next(); c[i] = spread_float(14); ci[i] = (int)next();
  }
  for (size_t i = 0; i < 2 * lanes; ++i) {
    bh[i] = to_half_bits(spread_float(6)) | ((uint32_t)to_half_bits(spread_float(6)) << 16);
    bbf[i] = to_bf16_bits(spread_float(20)) | ((uint32_t)to_bf16_bits(spread_float(20)) << 16);
    float t = spread_float(20); memcpy(&b[i], &t, 4);
    b8[i] = next(); ch[i] = to_half_bits(spread_float(6)) | ((uint32_t)to_half_bits(spread_float(6)) << 16);
  }
  int blocks = warps / 4, threads = 128;
  uint32_t *dah = device_copy(ah), *dbh = device_copy(bh), *dabf = device_copy(abf), *dbbf = device_copy(bbf);
  uint32_t *da = device_copy(a), *db = device_copy(b), *da8 = device_copy(a8), *db8 = device_copy(b8), *dch = device_copy(ch);
  float* dc = device_copy(c); int* dci = device_copy(ci);
  float *d1, *d3, *d4; uint32_t* d2; int* d5;
  cudaMalloc(&d1, 4 * lanes * 4); cudaMalloc(&d2, 2 * lanes * 4); cudaMalloc(&d3, 4 * lanes * 4);
  cudaMalloc(&d4, 4 * lanes * 4); cudaMalloc(&d5, 4 * lanes * 4);
  probe_f16<<<blocks, threads>>>(dah, dbh, dc, d1);
  probe_f16_acc16<<<blocks, threads>>>(dah, dbh, dch, d2);
  probe_bf16<<<blocks, threads>>>(dabf, dbbf, dc, d3);
  probe_tf32<<<blocks, threads>>>(da, db, dc, d4);
  probe_s8<<<blocks, threads>>>(da8, db8, dci, d5);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  save(f, d1, 4 * lanes); save(f, d2, 2 * lanes); save(f, d3, 4 * lanes); save(f, d4, 4 * lanes); save(f, d5, 4 * lanes);
  fclose(f);
  printf("mma_probe: %d warps, 5 instruction forms, %zu results written to %s\n", warps, 18 * lanes, argv[1]);
  return 0;
}
