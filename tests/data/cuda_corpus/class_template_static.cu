// perfcalc corpus: a class template with static __device__ members selected at compile time.
#include <cuda_runtime.h>

template <typename T, int N> struct SmallVec {
    T v[N];
    __device__ T dot(const SmallVec& o) const {
        T s = 0;
        for (int k = 0; k < N; ++k) s += v[k] * o.v[k];
        return s;
    }
    static __device__ SmallVec load(const T* p) {
        SmallVec r;
        for (int k = 0; k < N; ++k) r.v[k] = p[k];
        return r;
    }
};

template <int N>
__global__ void dots(const float* a, const float* b, float* out, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = SmallVec<float, N>::load(a + N * i).dot(SmallVec<float, N>::load(b + N * i));
}

int main() { float *a, *b, *c; cudaMalloc(&a, 16384); cudaMalloc(&b, 16384); cudaMalloc(&c, 4096);
             dots<4><<<4, 256>>>(a, b, c, 1000); return 0; }
