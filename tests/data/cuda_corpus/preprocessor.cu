// Written for perfcalc: what the C preprocessor does that a textual pre-pass gets wrong --
// #if/#elif chains with expressions, function-like macros, line splices, defined().
#include <cstdio>
#define SQUARE(x) ((x) * (x))
#define CLAMP(v, lo, hi) \
    ((v) < (lo) ? (lo) : \
     ((v) > (hi) ? (hi) : (v)))
#ifndef BLOCK
#define BLOCK 64
#endif

__global__ void transform(const float* in, float* out, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
#if MODE == 1
    out[i] = SQUARE(in[i]);
#elif MODE == 2 && defined(USE_CLAMP)
    out[i] = CLAMP(in[i] * SCALE, -1.0f, \
                   1.0f);
#elif MODE == 2
    out[i] = in[i] * SCALE;
#else
    out[i] = -in[i];
#endif
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 200 * sizeof(float)); cudaMalloc(&out, 200 * sizeof(float));
    transform<<<(200 + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, 200);
    printf("host code: never compiled by NVRTC\n");
    return 0;
}
