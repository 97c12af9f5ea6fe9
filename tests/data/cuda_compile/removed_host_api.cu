// Host APIs removed in CUDA 13 (issue 30): the device code is fine.
#include <cstdio>

__global__ void inc(int *x) { x[threadIdx.x] += 1; }

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("clock %d kHz, mode %d\n", prop.clockRate, prop.computeMode);
  int *x;
  cudaMalloc(&x, 32 * sizeof(int));
  inc<<<1, 32>>>(x);
  cudaThreadSynchronize();
  cudaThreadExit();
  return 0;
}
