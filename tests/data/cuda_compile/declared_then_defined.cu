// Declared near the top with one set of parameter names, defined later with another: C++ uses
// the definition's (issue 30).
__global__ void axpy(float, const float *, float *, int);

int main() {
  float *x, *y;
  cudaMalloc(&x, 512 * sizeof(float));
  cudaMalloc(&y, 512 * sizeof(float));
  axpy<<<2, 256>>>(2.0f, x, y, 512);
  return 0;
}

__global__ void __launch_bounds__((16 * 16) / (2 * 2), 1) axpy(float alpha, const float *xs, float *ys, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) ys[i] = alpha * xs[i] + ys[i];
}
