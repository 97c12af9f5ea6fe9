#include <cstdio>
#include <cuda_runtime.h>
__global__ void k_fma_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a0));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a1));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a2));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a3));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a4));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a5));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a6));
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_ex2_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_ex2_approx_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a0));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a1));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a2));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a3));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a4));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a5));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a6));
        asm volatile("ex2.approx.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_lg2_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_rsqrt_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_sqrt_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_rcp_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_sin_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_cos_approx_ftz_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a0));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a1));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a2));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a3));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a4));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a5));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a6));
        asm volatile("cos.approx.ftz.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
__global__ void k_tanh_approx_f32(float* out, int iters) {
    float a0 = 0.5f + 1e-4f * (threadIdx.x + 0); float a1 = 0.5f + 1e-4f * (threadIdx.x + 1); float a2 = 0.5f + 1e-4f * (threadIdx.x + 2); float a3 = 0.5f + 1e-4f * (threadIdx.x + 3); float a4 = 0.5f + 1e-4f * (threadIdx.x + 4); float a5 = 0.5f + 1e-4f * (threadIdx.x + 5); float a6 = 0.5f + 1e-4f * (threadIdx.x + 6); float a7 = 0.5f + 1e-4f * (threadIdx.x + 7);
    for (int i = 0; i < iters; ++i) {
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a0));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a1));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a2));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a3));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a4));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a5));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a6));
        asm volatile("tanh.approx.f32 %0, %0;" : "+f"(a7));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int blocks = 2 * sms; float* buf; cudaMalloc(&buf, blocks * 1024 * sizeof(float));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); float ms, best;
  k_fma_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_fma_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("fma_f32 %.6f ms\n", best);
  k_ex2_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_ex2_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("ex2_approx_ftz_f32 %.6f ms\n", best);
  k_ex2_approx_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_ex2_approx_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("ex2_approx_f32 %.6f ms\n", best);
  k_lg2_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_lg2_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("lg2_approx_ftz_f32 %.6f ms\n", best);
  k_rsqrt_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_rsqrt_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("rsqrt_approx_ftz_f32 %.6f ms\n", best);
  k_sqrt_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_sqrt_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("sqrt_approx_ftz_f32 %.6f ms\n", best);
  k_rcp_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_rcp_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("rcp_approx_ftz_f32 %.6f ms\n", best);
  k_sin_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_sin_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("sin_approx_ftz_f32 %.6f ms\n", best);
  k_cos_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_cos_approx_ftz_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("cos_approx_ftz_f32 %.6f ms\n", best);
  k_tanh_approx_f32<<<blocks, 1024>>>(buf, 2048); best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a); k_tanh_approx_f32<<<blocks, 1024>>>(buf, 2048); cudaEventRecord(b);
    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }
  printf("tanh_approx_f32 %.6f ms\n", best);
  cudaError_t e = cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(e)); return e != 0;
}
