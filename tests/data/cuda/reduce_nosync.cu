// reduce_fixed.cu with the __syncthreads() removed: a missing barrier. In the second iteration
// thread t reads partialSum[t+stride], which another warp wrote in the first one.
__global__ void reduceSeed(float* input, float* output) {
extern __shared__ float partialSum[];
unsigned int t = threadIdx.x;
unsigned int start = 2*blockIdx.x*blockDim.x;
partialSum[t] = input[start + t];
partialSum[blockDim.x + t] = input[start + blockDim.x + t];
__syncthreads();
for (unsigned int stride = blockDim.x; stride >= 1; stride >>= 1)
{
   if (t < stride)
       partialSum[t] += partialSum[t+stride];
}
if (t == 0) output[blockIdx.x] = partialSum[0];
}
