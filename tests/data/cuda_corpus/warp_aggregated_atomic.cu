// perfcalc corpus: warp-aggregated atomics -- one atomicAdd per warp, the leader chosen with
// __activemask/__ffs, offsets handed out with __popc and __shfl_sync (a stream compaction).
#include <cuda_runtime.h>

__device__ int atomicAggInc(int* counter) {
    unsigned mask = __activemask();
    int leader = __ffs(mask) - 1;
    int lane = threadIdx.x & 31;
    int base;
    if (lane == leader) base = atomicAdd(counter, __popc(mask));
    base = __shfl_sync(mask, base, leader);
    return base + __popc(mask & ((1u << lane) - 1));
}

__global__ void compact(const int* in, int* out, int* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) out[atomicAggInc(count)] = in[i];
}

int main() { int *a, *b, *c; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&c, 4);
             compact<<<4, 256>>>(a, b, c, 1000); return 0; }
