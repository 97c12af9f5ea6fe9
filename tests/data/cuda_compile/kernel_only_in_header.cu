// The kernel is defined in a header and nothing of this file's own is device code: the PTX names
// only the header, so a fault must name the header and its line, not this file.
#include "kernel_only_in_header.cuh"

int main() {
  float *data;
  cudaMalloc(&data, 64 * sizeof(float));
  past_end<<<1, 64>>>(data, 64);
  return 0;
}
