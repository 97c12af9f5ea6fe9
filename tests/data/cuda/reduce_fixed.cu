// reduce_seed.cu corrected: the stride is halved (`stride >>= 1`) and the loop runs down to
// stride 1 (`stride >= 1`; the seed's `stride > 1` would also skip the last addition).
__global__ void reduceSeed(float* input, float* output) {
extern __shared__ float partialSum[];
unsigned int t = threadIdx.x;
unsigned int start = 2*blockIdx.x*blockDim.x;
partialSum[t] = input[start + t];
partialSum[blockDim.x + t] = input[start + blockDim.x + t];
for (unsigned int stride = blockDim.x; stride >= 1; stride >>= 1)
{
   __syncthreads();
   if (t < stride)
       partialSum[t] += partialSum[t+stride];
}
if (t == 0) output[blockIdx.x] = partialSum[0];
}
