// "A Better Implementation" of the sum reduction from seed 003. The loop (lines 9-15) is the
// seed's, verbatim: its increment `stride >> 1` computes a value and throws it away, so stride
// never changes and the loop never ends. The seed's `__shared__ float partialSum[];` has no
// size, which CUDA only allows as `extern __shared__` (sized at launch: 2*blockDim.x floats),
// and the seed's "assume we have already loaded array into shared memory" is written out as
// the usual two loads per thread; each block writes its partial sum to output[blockIdx.x].
__global__ void reduceSeed(float* input, float* output) {
extern __shared__ float partialSum[];
unsigned int t = threadIdx.x;
unsigned int start = 2*blockIdx.x*blockDim.x;
partialSum[t] = input[start + t];
partialSum[blockDim.x + t] = input[start + blockDim.x + t];
for (unsigned int stride = blockDim.x; stride > 1; stride >> 1)
{
   __syncthreads();
   if (t < stride)
       partialSum[t] += partialSum[t+stride];
}
if (t == 0) output[blockIdx.x] = partialSum[0];
}
