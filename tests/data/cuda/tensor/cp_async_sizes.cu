// cp.async's sizes and zero fill, written for perfcalc's corpus: 4- and 8-byte .ca copies, and
// 16-byte .cg copies with every src-size from 0 to 16 (bytes past it arrive as zeros), each
// group waited for with wait_group / wait_all, the shared words written back out.
// Usage: cp_async_sizes OUT.bin [BLOCKS]
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void sizes(const unsigned* in, unsigned* out) {
  __shared__ __align__(16) unsigned buf[3][128];
  int t = threadIdx.x;
  const unsigned* src = in + blockIdx.x * 512;
  for (int i = t; i < 3 * 128; i += 32) buf[i / 128][i % 128] = 0xDEADBEEFu;  // what zero fill must replace
  __syncwarp();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(&buf[0][t])), "l"(src + t));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(smem(&buf[0][64 + 2 * t])), "l"(src + 64 + 2 * t));
  asm volatile("cp.async.commit_group;");
  int valid = t % 17;  // 0..16 bytes of the 16 read; the rest zero
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem(&buf[1][4 * t])), "l"(src + 128 + 4 * t), "r"(valid));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;");
  __syncwarp();
  unsigned first = buf[0][t];
  asm volatile("cp.async.wait_all;");
  __syncwarp();
  for (int i = t; i < 3 * 128; i += 32) out[blockIdx.x * 400 + i] = buf[i / 128][i % 128];
  if (t < 16) out[blockIdx.x * 400 + 384 + t] = first;  // lanes 0-15: one writer per word
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [BLOCKS]\n", argv[0]); return 2; }
  int blocks = argc > 2 ? atoi(argv[2]) : 16;
  if (blocks <= 0) { fprintf(stderr, "BLOCKS = %d must be positive\n", blocks); return 2; }
  std::vector<unsigned> in((size_t)blocks * 512), out((size_t)blocks * 400);
  for (size_t i = 0; i < in.size(); ++i) in[i] = (unsigned)(i * 2246822519u + 12345u);
  unsigned *din, *dout;
  cudaMalloc(&din, in.size() * 4); cudaMalloc(&dout, out.size() * 4);
  cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, out.size() * 4);
  sizes<<<blocks, 32>>>(din, dout);
  cudaError_t err = cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(out.data(), 4, out.size(), f); fclose(f);
  printf("cp.async sizes: %d blocks\n", blocks);
  return 0;
}
