// Packed low-precision elementwise kernels written for perfcalc's corpus: a half2 GELU-free
// "bias + scale + ReLU" (__hfma2, __hmax2, __hmul2, __hadd2, __hneg2) and fp8 quantise /
// dequantise of float pairs to e4m3 and e5m2 (cvt.rn.satfinite.*x2.f32 and back to half2).
// Usage: half2_fp8 OUT.bin [N]   (N even)
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

__global__ void bias_scale_relu(const __half2* x, const __half2* bias, __half2* y, __half2 scale, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __half2 v = __hfma2(x[i], scale, bias[i % 64]);
  __half2 r = __hmax2(v, __hneg2(__hmul2(v, __float2half2_rn(0.125f))));  // leaky ReLU, slope 1/8
  y[i] = __hadd2(r, __float2half2_rn(0.5f));
}

__global__ void quantise(const float2* x, __nv_fp8x2_storage_t* q4, __nv_fp8x2_storage_t* q5, __half2* back4,
                         __half2* back5, float inv_scale, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  float2 v = make_float2(x[i].x * inv_scale, x[i].y * inv_scale);
  q4[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
  q5[i] = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
  back4[i] = __half2(__nv_cvt_fp8x2_to_halfraw2(q4[i], __NV_E4M3));
  back5[i] = __half2(__nv_cvt_fp8x2_to_halfraw2(q5[i], __NV_E5M2));
}

static uint32_t state = 31u;
static float rnd() { state = state * 1664525u + 1013904223u; return (float)(state >> 8) / 8388608.0f - 1.0f; }

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [N]\n", argv[0]); return 2; }
  int n = argc > 2 ? atoi(argv[2]) : 4096;
  if (n <= 0 || n % 2) { fprintf(stderr, "N = %d must be a positive even number\n", n); return 2; }
  int n2 = n / 2;
  std::vector<__half> xh(n), bias(128), yh(n), b4(n), b5(n);
  std::vector<float> xf(n);
  std::vector<uint16_t> q4(n2), q5(n2);
  for (int i = 0; i < n; ++i) {
    xh[i] = __float2half_rn(4 * rnd());
    float a = rnd(), b = rnd(), c = rnd();  // three draws in a fixed order
    xf[i] = 600.0f * a * b * c;
  }
  for (int i = 0; i < 128; ++i) bias[i] = __float2half_rn(rnd());
  __half *dx, *db, *dy, *d4, *d5; float* dxf; uint16_t *dq4, *dq5;
  cudaMalloc(&dx, n * 2); cudaMalloc(&db, 256); cudaMalloc(&dy, n * 2); cudaMalloc(&d4, n * 2); cudaMalloc(&d5, n * 2);
  cudaMalloc(&dxf, n * 4); cudaMalloc(&dq4, n); cudaMalloc(&dq5, n);
  cudaMemcpy(dx, xh.data(), n * 2, cudaMemcpyHostToDevice); cudaMemcpy(db, bias.data(), 256, cudaMemcpyHostToDevice);
  cudaMemcpy(dxf, xf.data(), n * 4, cudaMemcpyHostToDevice);
  int threads = 128, blocks = (n2 + threads - 1) / threads;
  bias_scale_relu<<<blocks, threads>>>((__half2*)dx, (__half2*)db, (__half2*)dy, __float2half2_rn(1.5f), n2);
  quantise<<<blocks, threads>>>((float2*)dxf, (__nv_fp8x2_storage_t*)dq4, (__nv_fp8x2_storage_t*)dq5, (__half2*)d4,
                                (__half2*)d5, 0.5f, n2);
  cudaMemcpy(yh.data(), dy, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(q4.data(), dq4, n, cudaMemcpyDeviceToHost); cudaMemcpy(q5.data(), dq5, n, cudaMemcpyDeviceToHost);
  cudaMemcpy(b4.data(), d4, n * 2, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaMemcpy(b5.data(), d5, n * 2, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(yh.data(), 2, n, f); fwrite(q4.data(), 2, n2, f); fwrite(q5.data(), 2, n2, f);
  fwrite(b4.data(), 2, n, f); fwrite(b5.data(), 2, n, f);
  fclose(f);
  double s = 0; for (int i = 0; i < n; ++i) s += __half2float(yh[i]) + __half2float(b4[i]) + __half2float(b5[i]);
  printf("half2/fp8 over %d values: checksum %.6f\n", n, s);
  return 0;
}
