// A half scalar parameter given as decimal text (issue 30: -p a=0.5 was refused).
#include <cuda_fp16.h>

__global__ void axpb(half a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __half2float(a) * x[i] + 1.0f;
}

int main() {
  float *x, *y;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  axpb<<<1, 256>>>(__float2half(0.5f), x, y, 256);
  return 0;
}
