// sin() of doubles in a kernel (written for perfcalc's tests): CUDA's math header keeps its
// coefficients in a static __device__ table (__cudart_sin_cos_coeffs) that the program's host
// code never registers; the driver places a module's variables when it loads it.
#include <cstdio>
#include <cmath>

__global__ void sines(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sin(x[i]);
}

int main() {
  double host[64], out[64], *x, *y;
  for (int i = 0; i < 64; ++i) host[i] = 0.1 * i;
  cudaMalloc(&x, sizeof host);
  cudaMalloc(&y, sizeof out);
  cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice);
  sines<<<1, 64>>>(x, y, 64);
  cudaMemcpy(out, y, sizeof out, cudaMemcpyDeviceToHost);
  double worst = 0.0;
  for (int i = 0; i < 64; ++i) worst = fmax(worst, fabs(out[i] - sin(host[i])));
  printf("%s\n", worst < 1e-15 ? "PASS" : "FAIL");
  return worst < 1e-15 ? 0 : 1;
}
