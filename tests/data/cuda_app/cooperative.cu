// A cooperative launch (cudaLaunchCooperativeKernel) of a kernel that reads its own grid size.
#include <cstdio>

__global__ void fill(int *out, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = i % 7;
}

int main() {
  int n = 10000, *out;
  cudaMalloc(&out, n * sizeof(int));
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 128, 0);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  dim3 grid(blocks * prop.multiProcessorCount), block(128);
  void *args[] = {&out, &n};
  cudaLaunchCooperativeKernel((void *)fill, grid, block, args, 0, 0);
  int h[10];
  cudaMemcpy(h, out + 100, sizeof(h), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 10; i++) bad += h[i] != (100 + i) % 7;
  printf("%d blocks per SM x %d SMs: %s\n", blocks, prop.multiProcessorCount, bad ? "FAIL" : "PASS");
  return bad != 0;
}
