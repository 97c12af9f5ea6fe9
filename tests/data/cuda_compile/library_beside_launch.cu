// A host library that is not installed, called beside a launch whose template arguments are
// deduced (issue 30: blanking the whole host function lost the only instantiation of the kernel).
#include <cstdio>
#include <vendor_blas.h>

template <typename T>
__global__ void halve(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] / T(2);
}

template <typename T>
void launch_halve(T *d, int n) {
  halve<<<(n + 127) / 128, 128>>>(d, n);
}

template <typename T>
void check(int n) {
  T *d;
  cudaMalloc(&d, n * sizeof(T));
  vendorHandle_t handle;
  vendorCreate(&handle);
  launch_halve(d, n);
  vendorAxpy(handle, n, d);
  vendorDestroy(handle);
  cudaFree(d);
}

int main() {
  check<double>(256);
  printf("done\n");
  return 0;
}
