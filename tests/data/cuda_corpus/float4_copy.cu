// perfcalc corpus: 128-bit vector loads and stores through reinterpret_cast<float4*>.
#include <cuda_runtime.h>

__global__ void scale4(const float* in, float* out, int n4, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        reinterpret_cast<float4*>(out)[i] = v;
    }
}

int main() {
    float *in, *out; cudaMalloc(&in, 4096 * 4); cudaMalloc(&out, 4096 * 4);
    scale4<<<8, 128>>>(in, out, 1024, 0.5f);
    cudaDeviceSynchronize();
    return 0;
}
