// An explicit instantiation of a host function template (issue 30: the stripper left it behind).
template <typename T>
__global__ void add_one(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

template <typename T>
void launch(int n, T *d, T *h) {
  add_one<T><<<(n + 127) / 128, 128>>>(d, n);
  cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost);
}

template void launch<int>(int, int *, int *);

int main() {
  int *d, h[256];
  cudaMalloc(&d, sizeof(h));
  launch<int>(256, d, h);
  return 0;
}
