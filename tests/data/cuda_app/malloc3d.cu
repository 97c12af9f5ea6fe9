// A pitched 3D allocation (written for perfcalc's tests; HeCBench's pitch): cudaMalloc3D pads
// each row of `width` bytes to the pitch; element (x, y, z) lives at
// ptr + (z * height + y) * pitch + x * 4 (CUDA Runtime API, cudaMalloc3D and cudaPitchedPtr).
#include <cstdio>
#include <vector>

__global__ void fill(cudaPitchedPtr p, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w) {
    char* row = (char*)p.ptr + (z * h + y) * p.pitch;
    ((float*)row)[x] = x + 100.0f * y + 10000.0f * z;
  }
}

int main() {
  const int w = 100, h = 3, d = 2;
  cudaPitchedPtr p;
  cudaError_t made = cudaMalloc3D(&p, make_cudaExtent(w * sizeof(float), h, d));
  cudaError_t zero = cudaMemset3D(p, 0, make_cudaExtent(w * sizeof(float), h, d));
  fill<<<dim3(h, d), 128>>>(p, w, h, d);
  std::vector<char> host(p.pitch * h * d);
  cudaMemcpy(host.data(), p.ptr, host.size(), cudaMemcpyDeviceToHost);
  int ok = made == cudaSuccess && zero == cudaSuccess && p.pitch >= w * sizeof(float) && p.xsize == w * sizeof(float);
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        ok = ok && ((float*)(host.data() + (z * h + y) * p.pitch))[x] == x + 100.0f * y + 10000.0f * z;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return 0;
}
