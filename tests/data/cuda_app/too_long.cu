// A launch of 2^32 threads that ignores every error (written for perfcalc's tests): at 1 ns a
// thread, the least any thread costs on NumPy, it needs 4.3 s, past a 3 s limit, so the run
// ends out of time instead of the program being told of an error it never checks.
#include <cstdio>

__global__ void touch(int* y) {
  if (blockIdx.x == 0 && threadIdx.x == 0) y[0] = 1;
}

int main() {
  int* y;
  cudaMalloc(&y, sizeof(int));
  touch<<<1 << 22, 1024>>>(y);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
