#include <cstdio>
#include <algorithm>
#include <vector>
__global__ void guarded(const int* init, int m, int k, int n, long long* cycles, int* sink) {
  __shared__ int s[1024];
  for (int j = threadIdx.x; j < 1024; j += blockDim.x) s[j] = init[j];
  __syncthreads();
  int x = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) {
    if ((i & m) == k) x = s[x] + 1;
    x &= 1023;
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
  sink[threadIdx.x] = x;
}
__global__ void bare(int n, long long* cycles, int* sink) {
  int x = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) { x = (x + i) & 1023; }
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
  sink[threadIdx.x] = x;
}
int main() {
  const int n = 4096;
  std::vector<int> h(1024);
  for (int j = 0; j < 1024; ++j) h[j] = (j * 7 + 3) & 1023;
  int *init, *sink; long long* cyc;
  cudaMalloc(&init, 4096); cudaMalloc(&sink, 4096); cudaMalloc(&cyc, 8);
  cudaMemcpy(init, h.data(), 4096, cudaMemcpyHostToDevice);
  const char* names[3] = {"guard always true", "guard always false", "no load"};
  for (int v = 0; v < 3; ++v) {
    std::vector<long long> r;
    for (int rep = 0; rep < 9; ++rep) {
      if (v == 0) guarded<<<1, 32>>>(init, 0, 0, n, cyc, sink);
      else if (v == 1) guarded<<<1, 32>>>(init, 0, 1, n, cyc, sink);
      else bare<<<1, 32>>>(n, cyc, sink);
      long long c; cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost); r.push_back(c);
    }
    std::sort(r.begin(), r.end());
    printf("%s: %.2f cycles per iteration (median of 9)\n", names[v], (double)r[4] / n);
  }
  return 0;
}
