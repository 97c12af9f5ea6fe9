// What the CUDA runtime answers on a real GPU for the edge cases of perfcalc app's fuzz class
// (issue 36): a zero grid, copies past an allocation, fork, a huge allocation.
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

static void child_uses_cuda(const char *when) {
  pid_t p = fork();
  if (p == 0) {
    int *d = nullptr;
    cudaError_t m = cudaMalloc(&d, 256);
    fill<<<1, 32>>>(d, 32);
    cudaError_t l = cudaGetLastError();
    cudaError_t s = cudaDeviceSynchronize();
    printf("fork %s: child cudaMalloc %d launch %d sync %d\n", when, (int)m, (int)l, (int)s);
    fflush(stdout);
    _exit(0);
  }
  int status;
  waitpid(p, &status, 0);
  printf("fork %s: child status %d\n", when, status);
}

int main() {
  child_uses_cuda("before the parent initialised CUDA");
  int *d = nullptr;
  cudaMalloc(&d, 64);
  fill<<<0, 32>>>(d, 16);
  printf("grid 0: %d\n", (int)cudaGetLastError());
  fill<<<1, 0>>>(d, 16);
  printf("block 0: %d\n", (int)cudaGetLastError());
  char *host = (char *)malloc(100000);
  printf("memcpy D2H 100000 from 64: %d\n", (int)cudaMemcpy(host, d, 100000, cudaMemcpyDeviceToHost));
  printf("then cudaGetLastError: %d\n", (int)cudaGetLastError());
  printf("memcpy H2D 100000 to 64: %d\n", (int)cudaMemcpy(d, host, 100000, cudaMemcpyHostToDevice));
  printf("memcpy D2H (size_t)-5: %d\n", (int)cudaMemcpy(host, d, (size_t)-5, cudaMemcpyDeviceToHost));
  printf("memcpy D2D 128 in 64: %d\n", (int)cudaMemcpy(d, d, 128, cudaMemcpyDeviceToDevice));
  printf("after the copies, sync: %d\n", (int)cudaDeviceSynchronize());
  void *big = nullptr;
  printf("cudaMalloc 2^40: %d\n", (int)cudaMalloc(&big, (size_t)1 << 40));
  printf("then cudaGetLastError: %d\n", (int)cudaGetLastError());
  child_uses_cuda("after the parent initialised CUDA");
  fill<<<1, 32>>>(d, 16);
  printf("parent after fork: launch %d sync %d\n", (int)cudaGetLastError(), (int)cudaDeviceSynchronize());
  return 0;
}
