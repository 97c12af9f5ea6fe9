// A template kernel named without its arguments: the file launches exactly one instantiation.
template <typename T, int SCALE>
__global__ void scale(const T *in, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (T)SCALE;
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  scale<float, 3><<<4, 256>>>(in, out, 1024);
  return 0;
}
