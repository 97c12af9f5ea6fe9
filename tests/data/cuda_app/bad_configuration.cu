// A launch of 2048 threads a block, which no GPU takes (written for perfcalc's tests): the launch
// fails with cudaErrorInvalidConfiguration, which is not sticky, so the next launch and the copy
// back work (CUDA Runtime API, cudaGetLastError; the Programming Guide's limit of 1024 threads).
#include <cstdio>

__global__ void fill(int* y) { y[threadIdx.x] = 7; }

int main() {
  int host[256], *y;
  cudaMalloc(&y, sizeof host);
  fill<<<1, 2048>>>(y);
  cudaError_t refused = cudaGetLastError();
  fill<<<1, 256>>>(y);
  cudaError_t copy = cudaMemcpy(host, y, sizeof host, cudaMemcpyDeviceToHost);
  printf("%s %s %d\n", cudaGetErrorName(refused), cudaGetErrorName(copy), host[255]);
  return copy == cudaSuccess && host[255] == 7 ? 0 : 1;
}
