// A program that calls cuBLAS: refused by name (a library with no source perfcalc can run).
#include <cstdio>
#include <cublas_v2.h>

int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  printf("created\n");
  cublasDestroy(handle);
  return 0;
}
