// A by-value struct parameter indexed by the thread: the compiled kernel takes the parameter's
// address in the param space and reads it through a register (ld.param [%rd]). Prints PASS.
#include <cstdio>

struct Args {
  unsigned char bytes[1000];
};

__global__ void pick(Args args, int add, unsigned char *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1000) out[i] = args.bytes[i] + add;
}

int main() {
  Args args;
  for (int i = 0; i < 1000; i++) args.bytes[i] = (unsigned char)(3 * i);
  unsigned char *d, h[1000];
  cudaMalloc(&d, 1000);
  pick<<<4, 256>>>(args, 5, d);
  cudaMemcpy(h, d, 1000, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 1000; i++) bad += h[i] != (unsigned char)(3 * i + 5);
  printf("%s\n", bad ? "FAIL" : "PASS");
  cudaFree(d);
  return bad != 0;
}
