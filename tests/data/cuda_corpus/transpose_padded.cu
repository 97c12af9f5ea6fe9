// perfcalc corpus: the 32x33 shared-memory transpose (padding removes bank conflicts).
#include <cuda_runtime.h>
#define TILE 32
#define ROWS 8

__global__ void transposePadded(float* odata, const float* idata, int width, int height) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    float *a, *b; cudaMalloc(&a, 64 * 64 * 4); cudaMalloc(&b, 64 * 64 * 4);
    transposePadded<<<dim3(2, 2), dim3(TILE, ROWS)>>>(b, a, 64, 64);
    return 0;
}
