// perfcalc corpus: a strided 3-D sub-volume copy with 3-D grid and block indices.
#include <cuda_runtime.h>

__global__ void copyBox(const float* src, float* dst, int nx, int ny, int bx, int by, int bz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < bx && y < by && z < bz)
        dst[(z * by + y) * bx + x] = src[((z + 1) * ny + (y + 2)) * nx + (x + 3)];
}

int main() { float *s, *d; cudaMalloc(&s, 20 * 20 * 20 * 4); cudaMalloc(&d, 8 * 8 * 8 * 4);
             copyBox<<<dim3(1, 2, 2), dim3(8, 4, 4)>>>(s, d, 20, 20, 8, 8, 8); return 0; }
