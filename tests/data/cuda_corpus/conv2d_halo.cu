// perfcalc corpus: a 3x3 convolution with a shared tile and halo loads.
#include <cuda_runtime.h>
#define BS 16

__global__ void conv3x3(const float* img, float* out, int w, int h, const float* k) {
    __shared__ float tile[BS + 2][BS + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * BS + tx, y = blockIdx.y * BS + ty;
    for (int dy = ty; dy < BS + 2; dy += BS)
        for (int dx = tx; dx < BS + 2; dx += BS) {
            int gx = blockIdx.x * BS + dx - 1, gy = blockIdx.y * BS + dy - 1;
            tile[dy][dx] = (gx >= 0 && gy >= 0 && gx < w && gy < h) ? img[gy * w + gx] : 0.0f;
        }
    __syncthreads();
    if (x < w && y < h) {
        float acc = 0.0f;
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) acc += k[j * 3 + i] * tile[ty + j][tx + i];
        out[y * w + x] = acc;
    }
}

int main() { float *a, *b, *k; cudaMalloc(&a, 40 * 40 * 4); cudaMalloc(&b, 40 * 40 * 4); cudaMalloc(&k, 36);
             conv3x3<<<dim3(3, 3), dim3(BS, BS)>>>(a, b, 40, 40, k); return 0; }
