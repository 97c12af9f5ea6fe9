#ifndef KERNEL_IN_INCLUDE_KERNEL
#define KERNEL_IN_INCLUDE_KERNEL
__global__ void square(int *data, int n) {
  int i = threadIdx.x;
  if (i < n) data[i] = data[i] * data[i];
}
#endif
