// A copy from a null host pointer (written for perfcalc's tests; HeCBench's lulesh makes one
// for an empty table): the CUDA runtime answers cudaErrorInvalidValue, which is not sticky,
// and the program goes on; perfcalc's stand-in crashed the program in memmove.
#include <cstdio>

__global__ void fill(int* y) { y[threadIdx.x] = 5; }

int main() {
  int host[32], *d;
  cudaMalloc(&d, sizeof host);
  cudaError_t copy = cudaMemcpy(d, nullptr, sizeof host, cudaMemcpyHostToDevice);
  cudaError_t set = cudaMemset(nullptr, 0, 16);
  fill<<<1, 32>>>(d);
  cudaError_t back = cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost);
  printf("%s %s %s %d\n", cudaGetErrorName(copy), cudaGetErrorName(set), cudaGetErrorName(back), host[31]);
  return 0;
}
