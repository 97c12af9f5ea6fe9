// perfcalc corpus: cooperative groups -- this_thread_block, tiled_partition<32> and cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void reduceCG(const int* in, int* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = i < n ? in[i] : 0;
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) out[i / 32] = s;
}

int main() {
    int *in, *out; cudaMalloc(&in, 2048 * 4); cudaMalloc(&out, 64 * 4);
    reduceCG<<<8, 256>>>(in, out, 2000);
    return 0;
}
