// Streams and events: the program times its kernel with cudaEventElapsedTime.
#include <cstdio>

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 16;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemsetAsync(x, 0, n * sizeof(float), s);
  cudaMemsetAsync(y, 0, n * sizeof(float), s);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, s);
  for (int r = 0; r < 3; r++) saxpy<<<n / 256, 256, 0, s>>>(2.0f, x, y, n);
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  printf("elapsed %.9f ms\n", ms);
  cudaStreamDestroy(s);
  return 0;
}
