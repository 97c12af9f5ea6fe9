// extern "C" written against __global__, and extern "C" host functions (issue 30).
extern "C"__global__ void negate(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}

extern "C" void run_negate(float *x, int n) { negate<<<(n + 63) / 64, 64>>>(x, n); }

extern "C" {
int helper(int a) { return a + 1; }
}

int main() {
  float *x;
  cudaMalloc(&x, 100 * sizeof(float));
  run_negate(x, 100);
  return helper(-1);
}
