// A shared-memory address computed in 32 bits that wraps below zero and back: PTX's 32-bit
// shared addressing wraps, and the GPU runs this correctly (issue 30).
__global__ void wrap(int *out, int back) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t * 10;
  __syncthreads();
  int *p = s - back;  // `back` elements before the array (0 is where shared memory starts)
  out[t] = p[t + back];
}

int main() {
  int *out;
  cudaMalloc(&out, 64 * sizeof(int));
  wrap<<<1, 64>>>(out, 3);
  return 0;
}
