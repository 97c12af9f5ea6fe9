// perfcalc corpus: a kernel templated on a functor class (class templates, operator()).
#include <cuda_runtime.h>

struct Square { __device__ float operator()(float v) const { return v * v; } };
template <typename T> struct Affine {
    T a, b;
    __device__ T operator()(T v) const { return a * v + b; }
};

template <typename Op>
__global__ void apply(const float* in, float* out, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(in[i]);
}

int main() {
    float *in, *out; cudaMalloc(&in, 4096); cudaMalloc(&out, 4096);
    apply<<<4, 256>>>(in, out, 1000, Affine<float>{2.0f, -1.0f});
    apply<<<4, 256>>>(in, out, 1000, Square{});
    return 0;
}
