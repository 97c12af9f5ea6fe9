// LayerNorm and RMSNorm over the rows of a bf16 matrix, written for perfcalc's corpus: rows are
// read as __nv_bfloat162 pairs, statistics accumulated in float with warp shuffles, the output
// scaled with bf16x2 arithmetic (__hmul2, __hfma2) and stored as bf16. One warp per row.
// Usage: bf16_norms OUT.bin [ROWS] [COLS]   (COLS a multiple of 64)
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void layernorm(const __nv_bfloat162* x, const __nv_bfloat162* gamma, const __nv_bfloat162* beta,
                          __nv_bfloat162* y, int cols2, float eps) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  const __nv_bfloat162* xr = x + (size_t)row * cols2;
  float s = 0.f, ss = 0.f;
  for (int c = lane; c < cols2; c += 32) {
    float2 v = __bfloat1622float2(xr[c]);
    s += v.x + v.y; ss += v.x * v.x + v.y * v.y;
  }
  s = warp_sum(s); ss = warp_sum(ss);
  float mean = s / (2 * cols2), var = ss / (2 * cols2) - mean * mean, inv = rsqrtf(var + eps);
  __nv_bfloat162 m2 = __float2bfloat162_rn(mean), i2 = __float2bfloat162_rn(inv);
  for (int c = lane; c < cols2; c += 32) {
    __nv_bfloat162 centred = __hsub2(xr[c], m2);
    y[(size_t)row * cols2 + c] = __hfma2(__hmul2(centred, i2), gamma[c], beta[c]);
  }
}

__global__ void rmsnorm(const __nv_bfloat162* x, const __nv_bfloat162* gamma, __nv_bfloat162* y, int cols2, float eps) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  const __nv_bfloat162* xr = x + (size_t)row * cols2;
  float ss = 0.f;
  for (int c = lane; c < cols2; c += 32) {
    float2 v = __bfloat1622float2(xr[c]);
    ss += v.x * v.x + v.y * v.y;
  }
  float inv = rsqrtf(warp_sum(ss) / (2 * cols2) + eps);
  for (int c = lane; c < cols2; c += 32) {
    float2 v = __bfloat1622float2(xr[c]), g = __bfloat1622float2(gamma[c]);
    y[(size_t)row * cols2 + c] = __floats2bfloat162_rn(v.x * inv * g.x, v.y * inv * g.y);
  }
}

static uint32_t state = 5u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 4194304.0f - 2.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [ROWS] [COLS]\n", argv[0]); return 2; }
  int rows = argc > 2 ? atoi(argv[2]) : 64, cols = argc > 3 ? atoi(argv[3]) : 256;
  if (rows <= 0 || rows % 4 || cols <= 0 || cols % 64) { fprintf(stderr, "ROWS must be a multiple of 4, COLS of 64\n"); return 2; }
  size_t n = (size_t)rows * cols;
  std::vector<__nv_bfloat16> x(n), g(cols), b(cols), out(n);
  for (size_t i = 0; i < n; ++i) x[i] = __float2bfloat16_rn(rnd() + 0.25f);
  for (int i = 0; i < cols; ++i) { g[i] = __float2bfloat16_rn(1.0f + rnd() / 8); b[i] = __float2bfloat16_rn(rnd() / 4); }
  __nv_bfloat16 *dx, *dg, *db, *dy;
  cudaMalloc(&dx, n * 2); cudaMalloc(&dg, cols * 2); cudaMalloc(&db, cols * 2); cudaMalloc(&dy, n * 2);
  cudaMemcpy(dx, x.data(), n * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dg, g.data(), cols * 2, cudaMemcpyHostToDevice); cudaMemcpy(db, b.data(), cols * 2, cudaMemcpyHostToDevice);
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  for (int k = 0; k < 2; ++k) {
    if (k == 0) layernorm<<<rows / 4, 128>>>((__nv_bfloat162*)dx, (__nv_bfloat162*)dg, (__nv_bfloat162*)db, (__nv_bfloat162*)dy, cols / 2, 1e-5f);
    else rmsnorm<<<rows / 4, 128>>>((__nv_bfloat162*)dx, (__nv_bfloat162*)dg, (__nv_bfloat162*)dy, cols / 2, 1e-6f);
    cudaError_t err = cudaMemcpy(out.data(), dy, n * 2, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    fwrite(out.data(), 2, n, f);
    double s = 0; for (size_t i = 0; i < n; ++i) s += __bfloat162float(out[i]);
    printf("%s %dx%d: checksum %.6f\n", k ? "rmsnorm" : "layernorm", rows, cols, s);
  }
  fclose(f);
  return 0;
}
