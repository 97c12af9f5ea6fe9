#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/sequence.h>
template <typename T, int N> __global__ void scale(const T* in, T* out, int n) { int i = threadIdx.x; if (i < n) out[i] = in[i] * N; }
template <typename T> __global__ void apply(T f, float* x) { x[threadIdx.x] = f(x[threadIdx.x]); }
__device__ float twice(float v) { return 2 * v; }
typedef float (*fn_t)(float);
__global__ void via_pointer(fn_t f, float* x) { x[threadIdx.x] = f(x[threadIdx.x]); }
__global__ void rows(float (*tile)[16], int n) { tile[threadIdx.y][threadIdx.x] = n; }
namespace ns { struct Params { int n; }; template <class P> __global__ void with_struct(P p, int* out) { out[0] = p.n; } }
__global__ void refs(const float* __restrict__ a, unsigned long long* c, long n) { c[0] = a[n]; }
int main() {
  float *x; int *o;
  scale<float, 128><<<1, 32>>>(x, x, 32);
  scale<double, 4><<<1, 32>>>((double*)x, (double*)x, 32);
  apply<<<1, 32>>>([] __device__ (float v) { return v + 1; }, x);
  via_pointer<<<1, 32>>>(nullptr, x);
  rows<<<1, 32>>>(nullptr, 3);
  ns::with_struct<<<1, 1>>>(ns::Params{3}, o);
  refs<<<1,1>>>(x, nullptr, 0);
  thrust::device_vector<float> v(100);
  thrust::sequence(v.begin(), v.end());
  thrust::transform(v.begin(), v.end(), v.begin(), [] __device__ (float a) { return a * a; });
  return 0;
}
