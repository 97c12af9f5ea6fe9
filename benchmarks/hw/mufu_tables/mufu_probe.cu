// Issue 33: the H100/H200's MUFU.RSQ and MUFU.EX2 as PTX reaches them (rsqrt.approx.f32,
// ex2.approx.f32, with and without .ftz), applied to the inputs in a file of float32 bit patterns.
//   ./mufu_probe OP IN OUT      OP: rsqrt_ftz rsqrt ex2_ftz ex2 rcp_ftz rcp sqrt_ftz sqrt
//                               div_full div_full_ftz div_approx div_approx_ftz (IN: a then b)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <int OP>
__global__ void apply(const float* x, float* y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], r;
    if (OP == 0) asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 1) asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 2) asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 3) asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 4) asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 5) asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 6) asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    if (OP == 7) asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    y[i] = r;
}

// the divisions around MUFU.RCP: a is x[0, n), b is x[n, 2n)
template <int OP>
__global__ void divide(const float* x, float* y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = x[n + i], r;
    if (OP == 8) asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    if (OP == 9) asm("div.full.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    if (OP == 10) asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    if (OP == 11) asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    y[i] = r;
}

int main(int argc, char** argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s OP IN OUT\n", argv[0]); return 2; }
    const char* ops[] = {"rsqrt_ftz", "rsqrt", "ex2_ftz", "ex2", "rcp_ftz", "rcp", "sqrt_ftz", "sqrt", "div_full", "div_full_ftz", "div_approx", "div_approx_ftz"};
    int op = -1;
    for (int k = 0; k < 12; ++k) if (!strcmp(argv[1], ops[k])) op = k;
    if (op < 0) { fprintf(stderr, "unknown op %s\n", argv[1]); return 2; }
    FILE* f = fopen(argv[2], "rb");
    fseek(f, 0, SEEK_END); size_t n = ftell(f) / 4; fseek(f, 0, SEEK_SET);
    std::vector<float> h(n);
    if (fread(h.data(), 4, n, f) != n) return 1;
    fclose(f);
    size_t m = op >= 8 ? n / 2 : n;  // outputs
    float *x, *y;
    cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
    cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice);
    unsigned blocks = (unsigned)((m + 255) / 256);
    if (op == 0) apply<0><<<blocks, 256>>>(x, y, n);
    if (op == 1) apply<1><<<blocks, 256>>>(x, y, n);
    if (op == 2) apply<2><<<blocks, 256>>>(x, y, n);
    if (op == 3) apply<3><<<blocks, 256>>>(x, y, n);
    if (op == 4) apply<4><<<blocks, 256>>>(x, y, n);
    if (op == 5) apply<5><<<blocks, 256>>>(x, y, n);
    if (op == 6) apply<6><<<blocks, 256>>>(x, y, n);
    if (op == 7) apply<7><<<blocks, 256>>>(x, y, n);
    if (op == 8) divide<8><<<blocks, 256>>>(x, y, m);
    if (op == 9) divide<9><<<blocks, 256>>>(x, y, m);
    if (op == 10) divide<10><<<blocks, 256>>>(x, y, m);
    if (op == 11) divide<11><<<blocks, 256>>>(x, y, m);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
    cudaMemcpy(h.data(), y, m * 4, cudaMemcpyDeviceToHost);
    f = fopen(argv[3], "wb"); fwrite(h.data(), 4, m, f); fclose(f);
    return 0;
}
