// Thrust: a sort and a reduction, whose kernels (CUB's) run on the engine.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

int main() {
  const int n = 2000;
  thrust::host_vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = (i * 7919) % n;
  thrust::device_vector<int> d = h;
  thrust::sort(d.begin(), d.end());
  long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  thrust::host_vector<int> back = d;
  int bad = 0;
  for (int i = 0; i < n; i++) bad += back[i] != i;
  printf("sum %lld: %s\n", sum, (bad == 0 && sum == (long long)n * (n - 1) / 2) ? "PASS" : "FAIL");
  return bad != 0;
}
