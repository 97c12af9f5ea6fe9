// Many launches over iterations (a time-stepping loop), two kernels alternating.
#include <cstdio>
#include <cstdlib>

__global__ void step(float *u, const float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = 0.5f * u[i] + 0.25f * v[i];
}

__global__ void swap_back(const float *u, float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = u[i] + 1.0f;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int steps = argc > 2 ? atoi(argv[2]) : 32;
  float *u, *v;
  cudaMalloc(&u, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float));
  cudaMemset(u, 0, n * sizeof(float));
  cudaMemset(v, 0, n * sizeof(float));
  for (int s = 0; s < steps; s++) {
    step<<<(n + 127) / 128, 128>>>(u, v, n);
    swap_back<<<(n + 127) / 128, 128>>>(u, v, n);
  }
  float h;
  cudaMemcpy(&h, u + n / 2, sizeof(float), cudaMemcpyDeviceToHost);
  // u and v converge to u = 0.5 u + 0.25 (u + 1): u -> 1, v -> 2
  double expect = 0.0, w = 0.0;
  for (int s = 0; s < steps; s++) { expect = 0.5 * expect + 0.25 * w; w = expect + 1.0; }
  printf("u = %.6f, expected %.6f: %s\n", h, expect, fabs(h - expect) < 1e-5 ? "PASS" : "FAIL");
  return 0;
}
