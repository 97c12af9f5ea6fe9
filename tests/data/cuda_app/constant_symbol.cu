// cudaMemcpyToSymbol into __constant__ and a __device__ counter read back with cudaMemcpyFromSymbol.
#include <cstdio>

__constant__ float coeffs[4];
__device__ unsigned int calls;

__global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3]));
    atomicAdd(&calls, 1u);
  }
}

int main() {
  const int n = 300;
  float hx[n], hy[n], c[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  for (int i = 0; i < n; i++) hx[i] = i * 0.01f;
  cudaMemcpyToSymbol(coeffs, c, sizeof(c));
  float *x, *y;
  cudaMalloc(&x, sizeof(hx));
  cudaMalloc(&y, sizeof(hy));
  cudaMemcpy(x, hx, sizeof(hx), cudaMemcpyHostToDevice);
  poly<<<(n + 127) / 128, 128>>>(x, y, n);
  cudaMemcpy(hy, y, sizeof(hy), cudaMemcpyDeviceToHost);
  unsigned int count = 0;
  cudaMemcpyFromSymbol(&count, calls, sizeof(count));
  int bad = count != n;
  for (int i = 0; i < n; i++) {
    float v = hx[i];
    float want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    bad += fabsf(hy[i] - want) > 1e-5f;
  }
  printf("calls %u: %s\n", count, bad ? "FAIL" : "PASS");
  return bad != 0;
}
