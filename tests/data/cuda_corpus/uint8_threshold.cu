// perfcalc corpus: 8-bit image data -- byte loads, a threshold and byte stores.
#include <cuda_runtime.h>

__global__ void threshold(const unsigned char* img, unsigned char* out, int n, unsigned char t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = img[i] > t ? 255 : img[i] / 2;
}

int main() { unsigned char *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); threshold<<<16, 256>>>(a, b, 4000, 128); return 0; }
