// A barrier inside a loop whose trip count differs by thread, after the tail of the last block
// has returned (written for perfcalc's tests; the shape of HeCBench's wyllie list ranking).
// Threads that finish the loop early store and exit; a GPU's bar.sync stops counting a thread
// once it has exited, so the others go on. Thread i sums 1..(i % 4): 0, 1, 3 or 6.
#include <cstdio>

__global__ void steps(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int k = 0; k < (int)(threadIdx.x % 4); k++) {
    s += k + 1;
    __syncthreads();
  }
  out[i] = s;
}

int main() {
  const int n = 1000;
  static int host[n];
  int* out;
  cudaMalloc(&out, n * sizeof(int));
  steps<<<(n + 255) / 256, 256>>>(out, n);
  cudaError_t err = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int ok = err == cudaSuccess;
  for (int i = 0; i < n; i++) ok = ok && host[i] == (i % 4) * (i % 4 + 1) / 2;
  printf("%s %s\n", ok ? "PASS" : "FAIL", cudaGetErrorName(err));
  return 0;
}
