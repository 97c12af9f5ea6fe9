// Probe (issue 32, the longest warp's shared-load waits): how ptxas orders a fully unrolled
// serial sum over shared memory (`s += sm[i]`, NVVM's ld, add, ld, add, ...) on sm_90: are the
// LDS issued ahead of the adds (one wait for many loads) or one before each add?
__global__ void serialSharedSum(const float* in, float* out) {
  __shared__ float sm[64];
  __shared__ float wt[64];
  sm[threadIdx.x] = in[threadIdx.x];
  wt[threadIdx.x] = in[64 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float a = 0, b = 0;
    for (int i = 0; i < 64; ++i) {
      a += sm[i];
      b += wt[i];
    }
    out[0] = a / b;
  }
}
