// Managed memory: the host writes and reads the same pointers the kernel uses.
#include <cstdio>

__global__ void square(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * v[i];
}

int main() {
  const int n = 500;
  int *v;
  cudaMallocManaged(&v, n * sizeof(int));
  for (int i = 0; i < n; i++) v[i] = i;
  square<<<(n + 63) / 64, 64>>>(v, n);
  cudaDeviceSynchronize();
  int bad = 0;
  for (int i = 0; i < n; i++) bad += v[i] != i * i;
  printf("%s\n", bad ? "FAIL" : "PASS");
  cudaFree(v);
  return bad != 0;
}
