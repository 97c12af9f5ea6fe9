// Written for perfcalc: a whole file as people have it -- host code, main, a launch, a
// template kernel, cooperative groups and a function-like macro -- run by the PTX engine as is.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    printf("error %s\n", cudaGetErrorString(e)); exit(1); } } while (0)

template <int BLOCK, typename T>
__global__ void blockSum(const T* __restrict__ in, T* out, int n) {
    __shared__ T buf[BLOCK];
    cg::thread_block tb = cg::this_thread_block();
    int i = blockIdx.x * BLOCK + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : T(0);
    tb.sync();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        tb.sync();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

static float* make(int n) {
    float* h = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    return h;
}

int main() {
    const int n = 1 << 12;
    float *d_in, *d_out;
    float* h = make(n);
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, 16 * sizeof(float)));
    cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
    blockSum<256, float><<<n / 256, 256>>>(d_in, d_out, n);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
