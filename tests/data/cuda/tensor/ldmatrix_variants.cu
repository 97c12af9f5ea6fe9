// ldmatrix in all its forms, written for perfcalc's corpus: .x1, .x2 and .x4, plain and .trans,
// from a shared tile of 32 rows x 8 halves with rows at a padded pitch; every lane writes the
// registers it received, so the output is the instruction's lane map itself.
// Usage: ldmatrix_variants OUT.bin [BLOCKS]
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

__global__ void variants(const uint16_t* in, unsigned* out) {
  __shared__ __align__(16) uint16_t tile[32][16];
  int lane = threadIdx.x;
  const uint16_t* src = in + blockIdx.x * 32 * 16;
  for (int i = lane; i < 32 * 16; i += 32) tile[i / 16][i % 16] = src[i];
  __syncwarp();
  unsigned r[14];
  unsigned a1 = (unsigned)__cvta_generic_to_shared(&tile[lane % 8][(lane / 8) % 2 * 8]);
  unsigned a2 = (unsigned)__cvta_generic_to_shared(&tile[lane % 16][(lane / 16) * 8]);
  unsigned a4 = (unsigned)__cvta_generic_to_shared(&tile[lane][(lane / 8) % 2 * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a1));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[1]) : "r"(a1));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[2]), "=r"(r[3]) : "r"(a2));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[4]), "=r"(r[5]) : "r"(a2));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[6]), "=r"(r[7]), "=r"(r[8]), "=r"(r[9]) : "r"(a4));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]) : "r"(a4));
  for (int j = 0; j < 14; ++j) out[(blockIdx.x * 14 + j) * 32 + lane] = r[j];
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUT.bin [BLOCKS]\n", argv[0]); return 2; }
  int blocks = argc > 2 ? atoi(argv[2]) : 8;
  if (blocks <= 0) { fprintf(stderr, "BLOCKS = %d must be positive\n", blocks); return 2; }
  std::vector<uint16_t> in((size_t)blocks * 32 * 16);
  for (size_t i = 0; i < in.size(); ++i) in[i] = (uint16_t)(i * 2654435761u >> 7);
  std::vector<unsigned> out((size_t)blocks * 14 * 32);
  uint16_t* din; unsigned* dout;
  cudaMalloc(&din, in.size() * 2); cudaMalloc(&dout, out.size() * 4);
  cudaMemcpy(din, in.data(), in.size() * 2, cudaMemcpyHostToDevice);
  variants<<<blocks, 32>>>(din, dout);
  cudaError_t err = cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  FILE* f = fopen(argv[1], "wb");
  if (!f) { perror(argv[1]); return 1; }
  fwrite(out.data(), 4, out.size(), f); fclose(f);
  printf("ldmatrix variants: %d blocks x 14 registers x 32 lanes\n", blocks);
  return 0;
}
