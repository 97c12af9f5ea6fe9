// perfcalc corpus: one level of a breadth-first search over a CSR graph (frontier expansion with
// atomicCAS claims) -- its counts depend on the graph it is given.
#include <cuda_runtime.h>

__global__ void bfsStep(const int* rowPtr, const int* adj, int* level, const int* frontier,
                        int frontierSize, int* next, int* nextSize, int depth) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frontierSize) return;
    int u = frontier[f];
    for (int e = rowPtr[u]; e < rowPtr[u + 1]; ++e) {
        int v = adj[e];
        if (atomicCAS(&level[v], -1, depth + 1) == -1) next[atomicAdd(nextSize, 1)] = v;
    }
}

int main() { int *a, *b, *c, *d, *e, *f; cudaMalloc(&a, 4096); cudaMalloc(&b, 16384); cudaMalloc(&c, 4096);
             cudaMalloc(&d, 4096); cudaMalloc(&e, 4096); cudaMalloc(&f, 4);
             bfsStep<<<1, 64>>>(a, b, c, d, 64, e, f, 1); return 0; }
