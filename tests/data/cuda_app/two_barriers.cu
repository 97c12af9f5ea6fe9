// Half of each block waits at one __syncthreads(), the other half at another (written for
// perfcalc's tests): a GPU's barrier 0 is one barrier wherever it is reached, so the block
// goes on and every thread reads the value its mirror thread stored before the barrier.
#include <cstdio>

__global__ void mirror(int* out) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 128) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}

int main() {
  static int host[1024];
  int* out;
  cudaMalloc(&out, sizeof host);
  mirror<<<4, 256>>>(out);
  cudaError_t err = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int ok = err == cudaSuccess;
  for (int i = 0; i < 1024; i++) ok = ok && host[i] == 255 - i % 256;
  printf("%s %s\n", ok ? "PASS" : "FAIL", cudaGetErrorName(err));
  return 0;
}
