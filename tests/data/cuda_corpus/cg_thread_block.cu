// perfcalc corpus: cooperative groups thread_block sync and thread_rank in a 2-D block, with a
// tile of 16 doing its own shuffle.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void rotateTiles(const int* in, int* out) {
    cg::thread_block b = cg::this_thread_block();
    __shared__ int s[256];
    unsigned r = b.thread_rank();
    s[r] = in[blockIdx.x * 256 + r];
    b.sync();
    auto tile = cg::tiled_partition<16>(b);
    int v = tile.shfl(s[(r + 17) % 256], (tile.thread_rank() + 1) % 16);
    out[blockIdx.x * 256 + r] = v + (int)tile.meta_group_rank();
}

int main() { int *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); rotateTiles<<<4, dim3(16, 16)>>>(a, b); return 0; }
