// Does ptxas fuse a div.full / div.approx f32 with the add or sub its quotient feeds, and what
// bits come out? Nine kernels, each one PTX form (inline asm, so ptxas sees exactly these
// instructions), over the same inputs: random bit patterns for the first half of the lanes,
// ordinary values (|x| in 2^-20..2^20, both signs) for the second. The program writes every
// output to argv[1]; `perfcalc app` runs the same program here and writes its own file.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define DIV(NAME, FORM)                                                                      \
  __device__ __forceinline__ float NAME(float a, float b) {                                  \
    float q;                                                                                  \
    asm(FORM " %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));                                      \
    return q;                                                                                 \
  }
DIV(div_full, "div.full.f32")
DIV(div_full_ftz, "div.full.ftz.f32")
DIV(div_approx, "div.approx.f32")
DIV(div_approx_ftz, "div.approx.ftz.f32")
DIV(add, "add.f32")
DIV(add_ftz, "add.ftz.f32")
DIV(sub, "sub.f32")

__global__ void k1(const float* a, const float* b, const float* c, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = add(div_full(a[i], b[i]), c[i]);
}
__global__ void k2(const float* a, const float* b, const float* c, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = add(div_approx(a[i], b[i]), c[i]);
}
__global__ void k3(const float* a, const float* b, const float* c, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = add_ftz(div_full_ftz(a[i], b[i]), c[i]);
}
__global__ void k4(const float* a, const float* b, const float* c, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = add_ftz(div_approx_ftz(a[i], b[i]), c[i]);
}
__global__ void k5(const float* a, const float* b, const float* c, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sub(c[i], div_full(a[i], b[i]));
}
__global__ void k6(const float* a, const float* b, const float* c, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sub(div_full(a[i], b[i]), c[i]);
}
__global__ void k7(const float* a, const float* b, const float* c, float* y, int n) {  // ftz differs: not fused
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = add(div_full_ftz(a[i], b[i]), c[i]);
}
__global__ void k8(const float* a, const float* b, const float* c, float* y, int n) {  // quotient read twice
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float q = div_full(a[i], b[i]);
    y[i] = add(q, c[i]) * q;
  }
}
__global__ void k9(const float* a, const float* b, const float* c, float* y, int n) {  // 1 / b + c
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = add(div_full(1.0f, b[i]), c[i]);
}

static uint32_t state = 12345u;
static uint32_t next() {  // xorshift32: the same inputs here and on the GPU
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}
static float ordinary() {
  float m = 1.0f + (next() & 0x7fffff) / 8388608.0f;
  int e = (int)(next() % 41) - 20;
  float x = m;
  for (; e > 0; --e) x *= 2.0f;
  for (; e < 0; ++e) x *= 0.5f;
  return (next() & 1) ? -x : x;
}

int main(int argc, char** argv) {
  const int n = argc > 2 ? atoi(argv[2]) : 1 << 16;
  std::vector<float> h[3];
  for (auto& v : h) v.resize(n);
  for (int i = 0; i < n; ++i)
    for (auto& v : h) {
      if (i < n / 2) {
        uint32_t bits = next();
        memcpy(&v[i], &bits, 4);
      } else {
        v[i] = ordinary();
      }
    }
  float *d[3], *y;
  for (int k = 0; k < 3; ++k) {
    cudaMalloc(&d[k], n * 4);
    cudaMemcpy(d[k], h[k].data(), n * 4, cudaMemcpyHostToDevice);
  }
  cudaMalloc(&y, n * 4);
  void (*kernels[])(const float*, const float*, const float*, float*, int) = {k1, k2, k3, k4, k5, k6, k7, k8, k9};
  FILE* f = fopen(argc > 1 ? argv[1] : "div_contraction.bin", "wb");
  std::vector<float> out(n);
  for (auto k : kernels) {
    k<<<(n + 255) / 256, 256>>>(d[0], d[1], d[2], y, n);
    cudaMemcpy(out.data(), y, n * 4, cudaMemcpyDeviceToHost);
    fwrite(out.data(), 4, n, f);
  }
  fclose(f);
  printf("done %d lanes x 9 kernels\n", n);
  return 0;
}
