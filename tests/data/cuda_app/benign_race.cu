// Every warp of a block writes the same 32 values into the same 32 shared words with no barrier
// between the writes (written for perfcalc's tests): a race by the memory model, which
// compute-sanitizer's racecheck reports, and which a GPU runs through, so the block sums are right
// and the program passes.
#include <cstdio>

__global__ void block_sum(const float* x, float* out) {
  __shared__ float scale[32];
  __shared__ float partial[256];
  scale[threadIdx.x % 32] = 2.0f;  // all 8 warps write the same words: the race
  __syncthreads();
  partial[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x] * scale[threadIdx.x % 32];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < blockDim.x; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

int main() {
  float host[512], sums[2], *x, *out;
  for (int i = 0; i < 512; ++i) host[i] = 1.0f;
  cudaMalloc(&x, sizeof host);
  cudaMalloc(&out, sizeof sums);
  cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice);
  block_sum<<<2, 256>>>(x, out);
  cudaError_t copy = cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
  bool ok = copy == cudaSuccess && sums[0] == 512.0f && sums[1] == 512.0f;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
