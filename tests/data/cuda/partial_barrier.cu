// A __syncthreads() inside a branch that only the first warp takes: undefined behaviour by the
// CUDA Programming Guide. An H100 runs it (the second warp exits, which releases the barrier)
// and compute-sanitizer's synccheck reports nothing (benchmarks/hw/barriers_overrun_h100/).
__global__ void partialBarrier(float* data) {
    __shared__ float buf[64];
    buf[threadIdx.x] = data[threadIdx.x];
    if (threadIdx.x < 32) {
        __syncthreads();
        data[threadIdx.x] = buf[63 - threadIdx.x];
    }
}
