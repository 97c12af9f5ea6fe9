// perfcalc corpus: an array of structs (12-byte particles) updated in place -- strided accesses.
#include <cuda_runtime.h>

struct Particle { float x, v, m; };

__global__ void step(Particle* p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Particle q = p[i];
        q.v += dt * (-q.x / q.m);
        q.x += dt * q.v;
        p[i] = q;
    }
}

int main() { Particle* p; cudaMalloc(&p, 1024 * sizeof(Particle)); step<<<4, 256>>>(p, 1024, 0.01f); return 0; }
