// One thread too many writes a row past the end of its allocation (written for perfcalc's
// tests; the `i > n` guard of HeCBench's bezier-surface): the row lies in the 2 MiB page the
// driver mapped for the allocation, so a GPU runs through it (compute-sanitizer's memcheck
// reports it) and the program's own check of the n rows it asked for passes. Then a read
// through a null pointer, where nothing is mapped: that launch faults, as on a GPU.
#include <cstdio>

__global__ void rows(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;  // should be i >= n
  out[i] = 2.0f * i;
}

__global__ void far(const float* in, float* out) { out[0] = in[0]; }

int main() {
  const int n = 100;
  float host[n], *out;
  cudaMalloc(&out, n * sizeof(float));
  rows<<<1, 128>>>(out, n);
  cudaError_t first = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int ok = first == cudaSuccess;
  for (int i = 0; i < n; i++) ok = ok && host[i] == 2.0f * i;
  far<<<1, 1>>>(nullptr, out);
  cudaError_t second = cudaDeviceSynchronize();
  printf("%s %s\n", ok ? "PASS" : "FAIL", cudaGetErrorName(second));
  return 0;
}
