// One launch; the program checks its own result and prints PASS.
#include <cstdio>
#include <cstdlib>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  size_t bytes = n * sizeof(float);
  float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 2 * i; }
  float *da, *db, *dc;
  cudaMalloc(&da, bytes); cudaMalloc(&db, bytes); cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += c[i] != 3.0f * i;
  printf("%s\n", bad ? "FAIL" : "PASS");
  cudaFree(da); cudaFree(db); cudaFree(dc);
  free(a); free(b); free(c);
  return bad != 0;
}
