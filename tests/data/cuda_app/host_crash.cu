// A program that crashes in its host code after one launch: reported as its own failure.
#include <cstdio>

__global__ void one(int *x) { x[threadIdx.x] = 1; }

int main() {
  int *x;
  cudaMalloc(&x, 32 * sizeof(int));
  one<<<1, 32>>>(x);
  cudaDeviceSynchronize();
  printf("before the crash\n");
  fflush(stdout);
  volatile int *bad = nullptr;
  *bad = 1;
  return 0;
}
