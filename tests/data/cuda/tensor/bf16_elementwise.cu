// Packed bfloat16 elementwise arithmetic written for perfcalc's corpus: a clipped, leaky
// "x * scale + bias" over __nv_bfloat162 pairs (__hfma2, __hmul2, __hadd2, __hsub2, __hmax2,
// __hmin2, __hneg2, __habs2), and conversions from float with round-to-nearest and toward zero.
// Usage: bf16_elementwise OUT.bin [N]   (N even)
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

__global__ void act(const __nv_bfloat162* x, const __nv_bfloat162* bias, __nv_bfloat162* y, __nv_bfloat162* z, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __nv_bfloat162 scale = __float2bfloat162_rn(1.375f), lim = __float2bfloat162_rn(3.0f);
  __nv_bfloat162 v = __hfma2(x[i], scale, bias[i % 32]);
  __nv_bfloat162 leaky = __hmax2(v, __hmul2(v, __float2bfloat162_rn(0.0625f)));
  __nv_bfloat162 clipped = __hmin2(leaky, lim);
  y[i] = __hsub2(__hadd2(clipped, __habs2(x[i])), __hneg2(bias[i % 32]));
  float2 f = __bfloat1622float2(x[i]);
  z[i] = __halves2bfloat162(__float2bfloat16_rz(f.x * 3.0f), __float2bfloat16_rn(f.y * 3.0f));
}

static uint32_t state = 17u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 2097152.0f - 4.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 65536;
  if (n <= 0 || n % 2) { fprintf(stderr, "N = %d must be a positive even number\n", n); return 2; }
  std::vector<__nv_bfloat16> x(n), b(64), y(n), z(n);
  for (int i = 0; i < n; ++i) x[i] = __float2bfloat16_rn(rnd());
  for (int i = 0; i < 64; ++i) b[i] = __float2bfloat16_rn(rnd() / 4);
  __nv_bfloat16 *dx, *db, *dy, *dz;
  cudaMalloc(&dx, n * 2); cudaMalloc(&db, 128); cudaMalloc(&dy, n * 2); cudaMalloc(&dz, n * 2);
  cudaMemcpy(dx, x.data(), n * 2, cudaMemcpyHostToDevice); cudaMemcpy(db, b.data(), 128, cudaMemcpyHostToDevice);
  int n2 = n / 2;
  act<<<(n2 + 255) / 256, 256>>>((__nv_bfloat162*)dx, (__nv_bfloat162*)db, (__nv_bfloat162*)dy, (__nv_bfloat162*)dz, n2);
  cudaMemcpy(y.data(), dy, n * 2, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaMemcpy(z.data(), dz, n * 2, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(y.data(), 2, n, f); fwrite(z.data(), 2, n, f); fclose(f);
  double s = 0; for (int i = 0; i < n; ++i) s += __bfloat162float(y[i]);
  printf("bf16 elementwise over %d values: checksum %.6f\n", n, s);
  return 0;
}
