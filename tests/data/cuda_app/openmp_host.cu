// Host code with OpenMP (written for perfcalc's tests; HeCBench's openmp calls omp_* functions):
// it links only with OpenMP's runtime, and the reduction is exact in any thread count.
#include <cstdio>
#include <omp.h>

__global__ void twice(int* y) { y[threadIdx.x] *= 2; }

int main() {
  int host[64], *d;
  #pragma omp parallel for
  for (int i = 0; i < 64; i++) host[i] = i;
  cudaMalloc(&d, sizeof host);
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  twice<<<1, 64>>>(d);
  cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost);
  long sum = 0;
  #pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < 64; i++) sum += host[i];
  printf("%ld %d\n", sum, omp_get_max_threads() >= 1);
  return 0;
}
