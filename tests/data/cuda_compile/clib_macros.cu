// C library names in device code: INFINITY, M_PI, FLT_MAX (issue 30).
#include <cmath>
#include <cfloat>
#include <cstdio>

__global__ void constants(float *out) {
  int i = threadIdx.x;
  if (i == 0) out[0] = INFINITY;
  if (i == 1) out[1] = (float)M_PI;
  if (i == 2) out[2] = FLT_MAX;
  if (i == 3) out[3] = -FLT_MAX;
}

int main() {
  float *out;
  cudaMalloc(&out, 4 * sizeof(float));
  constants<<<1, 4>>>(out);
  fprintf(stderr, "done\n");
  return 0;
}
