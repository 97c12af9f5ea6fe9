// A __syncthreads() inside a branch that only the first warp takes: undefined behaviour
// (compute-sanitizer's synccheck reports it as a barrier error).
__global__ void partialBarrier(float* data) {
    __shared__ float buf[64];
    buf[threadIdx.x] = data[threadIdx.x];
    if (threadIdx.x < 32) {
        __syncthreads();
        data[threadIdx.x] = buf[63 - threadIdx.x];
    }
}
