// "A Simple Implementation" of the sum reduction from seed 003 (lines 9-15 verbatim): the
// interleaved pairing whose `t % (2*stride)` test leaves most lanes of every warp idle. Wrapped
// like reduce_seed.cu: the seed's unsized `__shared__ float partialSum[];` becomes
// `extern __shared__` (blockDim.x floats at launch), one element per thread is loaded first,
// and thread 0 writes the block's sum to output[blockIdx.x].
__global__ void reduceInterleaved(float* input, float* output) {
extern __shared__ float partialSum[];
unsigned int t = threadIdx.x;
partialSum[t] = input[blockIdx.x*blockDim.x + t];
for (unsigned int stride = 1; stride < blockDim.x; stride *= 2)
{
   __syncthreads();
   if (t % (2*stride) == 0)
       partialSum[t] += partialSum[t+stride];
}
if (t == 0) output[blockIdx.x] = partialSum[0];
}
