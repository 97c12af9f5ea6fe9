// 1-D convolution from seed 001 (a V100 slide; the CS149 "convolve" kernel), kept as the seed
// shows it. Only the slide's OCR damage is repaired: "THREADS PER BLK" -> THREADS_PER_BLK,
// "_global__" -> __global__, "threadIdx.x:" -> "threadIdx.x;", "syncthreads()" ->
// __syncthreads(), and the braces the slide lost. The bug is the seed's: with an input of N
// elements, threads 0 and 1 of the last block read input[N] and input[N+1].
#define THREADS_PER_BLK 128
__global__ void convolve(int N, float* input,
                         float* output) {
   __shared__ float support[THREADS_PER_BLK+2];
   int index = blockIdx.x * blockDim.x +
               threadIdx.x;
   support[threadIdx.x] = input[index];
   if (threadIdx.x < 2) {
      support[THREADS_PER_BLK+threadIdx.x]
        = input[index+THREADS_PER_BLK];
   }
   __syncthreads();
   float result = 0.0f; // thread-local
   for (int i=0; i<3; i++)
     result += support[threadIdx.x + i];
   output[index] = result / 3.f;
}
