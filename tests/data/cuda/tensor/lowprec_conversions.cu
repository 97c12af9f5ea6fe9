// Conversions to and from the low-precision formats, written for perfcalc's corpus: every e4m3
// and e5m2 code decoded to half2, and float32 values chosen to hit ties, subnormals, overflow,
// infinities and NaN converted to bf16 (rn, rz), tf32 (rna) and fp8 pairs (rn.satfinite).
// Usage: lowprec_conversions OUT.bin
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void decode_fp8(unsigned* out) {
  int code = blockIdx.x * blockDim.x + threadIdx.x;  // 0..255
  __nv_fp8x2_storage_t pair = (__nv_fp8x2_storage_t)(code | (code << 8));
  __half2_raw a = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3), b = __nv_cvt_fp8x2_to_halfraw2(pair, __NV_E5M2);
  out[2 * code] = a.x | ((unsigned)a.y << 16);
  out[2 * code + 1] = b.x | ((unsigned)b.y << 16);
}

__global__ void encode(const float* x, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], w = x[(i + 1) % n];
  __nv_bfloat16 rn = __float2bfloat16_rn(v), rz = __float2bfloat16_rz(v);
  unsigned short urn, urz;
  memcpy(&urn, &rn, 2); memcpy(&urz, &rz, 2);
  unsigned tf;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(v));
  out[4 * i] = urn | ((unsigned)urz << 16);
  out[4 * i + 1] = tf;
  out[4 * i + 2] = __nv_cvt_float2_to_fp8x2(make_float2(v, w), __NV_SATFINITE, __NV_E4M3);
  out[4 * i + 3] = __nv_cvt_float2_to_fp8x2(make_float2(v, w), __NV_SATFINITE, __NV_E5M2);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin\n", argv[0]); return 2; }
  std::vector<float> x;
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x00000001u,
                               0x807FFFFFu, 0x7F7FFFFFu, 0x3F808000u, 0x3F818000u, 0x3F80C000u, 0x3F801000u,
                               0x3F800FFFu, 0x43E00000u, 0x43E80000u, 0x47600000u, 0x47700000u, 0x3B000000u};
  for (uint32_t b : specials) { float f; memcpy(&f, &b, 4); x.push_back(f); }
  uint32_t s = 99u;
  for (int i = 0; i < 4096; ++i) {  // spread over the fp8 and bf16 ranges, both signs
    s = s * 1664525u + 1013904223u;
    uint32_t e = 100 + (s >> 8) % 50, bits = (s & 0x80000000u) | (e << 23) | ((s * 2654435761u) & 0x7FFFFFu);
    float f; memcpy(&f, &bits, 4); x.push_back(f);
  }
  int n = (int)x.size();
  float* dx; unsigned *d1, *d2;
  cudaMalloc(&dx, n * 4); cudaMalloc(&d1, 512 * 4); cudaMalloc(&d2, 4 * n * 4);
  cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice);
  decode_fp8<<<2, 128>>>(d1);
  encode<<<(n + 127) / 128, 128>>>(dx, d2, n);
  std::vector<unsigned> o1(512), o2(4 * n);
  cudaMemcpy(o1.data(), d1, 512 * 4, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaMemcpy(o2.data(), d2, 4 * n * 4, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(o1.data(), 4, 512, f); fwrite(o2.data(), 4, 4 * n, f); fclose(f);
  printf("conversions: 256 fp8 codes x 2 formats, %d floats x 5 conversions\n", n);
  return 0;
}
