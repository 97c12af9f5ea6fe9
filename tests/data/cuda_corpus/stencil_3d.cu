// perfcalc corpus: a 7-point stencil over a 3-D grid with 3-D blocks (dim3 in all three axes).
#include <cuda_runtime.h>

__global__ void stencil7(const float* in, float* out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    int i = (z * ny + y) * nx + x;
    out[i] = 0.4f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]
                                    + in[i - nx * ny] + in[i + nx * ny]);
}

int main() {
    float *in, *out; cudaMalloc(&in, 16 * 16 * 16 * 4); cudaMalloc(&out, 16 * 16 * 16 * 4);
    stencil7<<<dim3(2, 2, 4), dim3(8, 8, 4)>>>(in, out, 16, 16, 16);
    return 0;
}
