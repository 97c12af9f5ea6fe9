// The stream-ordered allocator's default pool (written for perfcalc's tests; HeCBench's
// streamOrderedAllocation): CUDA Runtime API, cudaDeviceGetDefaultMemPool and
// cudaMemPoolSetAttribute return cudaSuccess on device 0; memory then comes from cudaMallocAsync.
#include <cstdint>
#include <cstdio>

__global__ void fill(int* y) { y[threadIdx.x] = 3; }

int main() {
  cudaMemPool_t pool;
  cudaError_t got = cudaDeviceGetDefaultMemPool(&pool, 0);
  uint64_t threshold = UINT64_MAX;
  cudaError_t set = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  cudaStream_t s;
  cudaStreamCreate(&s);
  int host[32], *d;
  cudaMallocAsync(&d, sizeof host, s);
  fill<<<1, 32, 0, s>>>(d);
  cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDeviceToHost, s);
  cudaFreeAsync(d, s);
  cudaStreamSynchronize(s);
  printf("%s %s %d\n", cudaGetErrorName(got), cudaGetErrorName(set), host[31]);
  return 0;
}
