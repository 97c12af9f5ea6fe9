// Where does ptxas put its three never-executed shared loads (`@!PT LDS RZ, [RZ]`) ahead of a
// cp.async on sm_90? Five shapes the tensor corpus does not have; written before the GPU ran
// them. Each kernel: one warp a block; out[] keeps the result so nothing is folded away.
#include <cstdio>
#include <cstdlib>

__device__ __forceinline__ void copy4(unsigned* s, const unsigned* g) {
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(g));
}
__device__ __forceinline__ void commit_wait() {
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_all;");
}

// two copies with only a barrier between them
__global__ void across_barrier(const unsigned* in, unsigned* out) {
  __shared__ unsigned s[64];
  int t = threadIdx.x;
  copy4(&s[t], in + blockIdx.x * 64 + t);
  __syncthreads();
  copy4(&s[32 + t], in + blockIdx.x * 64 + 32 + t);
  commit_wait();
  __syncwarp();
  out[blockIdx.x * 32 + t] = s[t] + s[32 + t];
}

// one copy an iteration of a loop whose trip count the compiler does not know
__global__ void in_loop(const unsigned* in, unsigned* out, int n) {
  __shared__ unsigned s[32 * 16];
  int t = threadIdx.x;
  for (int i = 0; i < n; ++i) copy4(&s[32 * i + t], in + blockIdx.x * 512 + 32 * i + t);
  commit_wait();
  __syncwarp();
  unsigned acc = 0;
  for (int i = 0; i < n; ++i) acc += s[32 * i + t];
  out[blockIdx.x * 32 + t] = acc;
}

// a global load between two copies
__global__ void after_global_load(const unsigned* in, unsigned* out) {
  __shared__ unsigned s[64];
  int t = threadIdx.x;
  copy4(&s[t], in + blockIdx.x * 64 + t);
  unsigned g = in[blockIdx.x * 64 + 63 - t];
  copy4(&s[32 + t], in + blockIdx.x * 64 + 32 + t);
  commit_wait();
  __syncwarp();
  out[blockIdx.x * 32 + t] = s[t] + s[32 + t] + g;
}

// a shared store between two copies
__global__ void after_shared_store(const unsigned* in, unsigned* out) {
  __shared__ unsigned s[96];
  int t = threadIdx.x;
  copy4(&s[t], in + blockIdx.x * 64 + t);
  s[64 + t] = t * 3u;
  copy4(&s[32 + t], in + blockIdx.x * 64 + 32 + t);
  commit_wait();
  __syncwarp();
  out[blockIdx.x * 32 + t] = s[t] + s[32 + t] + s[64 + (t ^ 1)];
}

// a copy in half the lanes, after a shared load
__global__ void divergent(const unsigned* in, unsigned* out) {
  __shared__ unsigned s[64];
  int t = threadIdx.x;
  s[32 + t] = t;
  __syncwarp();
  unsigned v = s[32 + (t ^ 3)];
  if (v < 16) copy4(&s[t], in + blockIdx.x * 64 + t);
  commit_wait();
  __syncwarp();
  out[blockIdx.x * 32 + t] = (v < 16 ? s[t] : 0u) + v;
}

int main(int argc, char** argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 8;
  int n = argc > 2 ? atoi(argv[2]) : 7;
  if (blocks <= 0 || n <= 0 || n > 16) { fprintf(stderr, "BLOCKS > 0, 0 < N <= 16\n"); return 2; }
  unsigned *in, *out;
  cudaMalloc(&in, blocks * 512 * 4); cudaMalloc(&out, blocks * 32 * 4 * 5);
  unsigned* h = (unsigned*)malloc(blocks * 512 * 4);
  for (int i = 0; i < blocks * 512; ++i) h[i] = i * 2654435761u;
  cudaMemcpy(in, h, blocks * 512 * 4, cudaMemcpyHostToDevice);
  across_barrier<<<blocks, 32>>>(in, out);
  in_loop<<<blocks, 32>>>(in, out + blocks * 32, n);
  after_global_load<<<blocks, 32>>>(in, out + 2 * blocks * 32);
  after_shared_store<<<blocks, 32>>>(in, out + 3 * blocks * 32);
  divergent<<<blocks, 32>>>(in, out + 4 * blocks * 32);
  unsigned* r = (unsigned*)malloc(blocks * 32 * 4 * 5);
  cudaError_t e = cudaMemcpy(r, out, blocks * 32 * 4 * 5, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e)); return 1; }
  unsigned long long sum = 0;
  for (int i = 0; i < blocks * 32 * 5; ++i) sum += r[i];
  printf("copy guards probe: %d blocks, n = %d, checksum %llu\n", blocks, n, sum);
  return 0;
}
