// perfcalc corpus: nested loops with data-dependent break and continue.
#include <cuda_runtime.h>

__global__ void search(const int* grid, int* out, int rows, int cols) {
    int r0 = blockIdx.x * blockDim.x + threadIdx.x;
    if (r0 >= rows) return;
    int found = -1, skipped = 0;
    for (int r = r0; r < rows; r += 7) {
        for (int c = 0; c < cols; ++c) {
            int v = grid[r * cols + c];
            if (v % 5 == 0) { ++skipped; continue; }
            if (v > 95) { found = r * cols + c; break; }
        }
        if (found >= 0) break;
    }
    out[2 * r0] = found;
    out[2 * r0 + 1] = skipped;
}

int main() { int *g, *o; cudaMalloc(&g, 64 * 32 * 4); cudaMalloc(&o, 512); search<<<1, 64>>>(g, o, 64, 32); return 0; }
