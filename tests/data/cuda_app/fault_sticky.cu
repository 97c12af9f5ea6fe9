// A kernel that reads out of bounds, in a program that checks only cudaMemcpy's return and then
// cudaGetLastError twice (written for perfcalc's tests): on a GPU the fault is a sticky error,
// so the copy back fails and the error is not cleared by reading it.
#include <cstdio>

__global__ void past_the_end(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i + 1000000];  // far past the 256 floats
}

int main() {
  float *x, *y, host[256];
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  past_the_end<<<1, 256>>>(x, y, 256);
  cudaError_t copy = cudaMemcpy(host, y, sizeof host, cudaMemcpyDeviceToHost);
  cudaError_t first = cudaGetLastError(), second = cudaGetLastError();
  printf("copy: %s; last error: %s, then %s\n", cudaGetErrorName(copy), cudaGetErrorName(first), cudaGetErrorName(second));
  return copy == cudaSuccess ? 0 : 1;
}
