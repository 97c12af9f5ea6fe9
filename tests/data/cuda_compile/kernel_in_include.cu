// Rodinia-style: the kernel lives in a file this one includes.
#include "kernel_in_include_kernel.cu"

int main() {
  int *data;
  cudaMalloc(&data, 256 * sizeof(int));
  square<<<1, 256>>>(data, 256);
  return 0;
}
