// C = A * B for N x N row-major floats: each block computes a BM x BN tile of C, stepping
// through K in slices of BK staged in shared memory; each thread computes TM x TN outputs.
// Launch: grid (N/BN, N/BM), block (BN/TN, BM/TM). The five sizes are the tuning space of
// `perfcalc tune` (docs/tune.md); N must be a multiple of BM, BN and BK.
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 16
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif

__global__ void gemm_tiled(const float* A, const float* B, float* C, int N)
{
    __shared__ float As[BK][BM];  // A's slice, transposed so a thread's TM values are adjacent
    __shared__ float Bs[BK][BN];
    const int threads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n)
            acc[m][n] = 0.0f;
    for (int k0 = 0; k0 < N; k0 += BK) {
        for (int i = tid; i < BM * BK; i += threads) {
            int r = i / BK, c = i % BK;
            As[c][r] = A[(row0 + r) * N + k0 + c];
        }
        for (int i = tid; i < BK * BN; i += threads) {
            int r = i / BN, c = i % BN;
            Bs[r][c] = B[(k0 + r) * N + col0 + c];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int m = 0; m < TM; ++m)
                a[m] = As[k][threadIdx.y * TM + m];
#pragma unroll
            for (int n = 0; n < TN; ++n)
                b[n] = Bs[k][threadIdx.x * TN + n];
#pragma unroll
            for (int m = 0; m < TM; ++m)
#pragma unroll
                for (int n = 0; n < TN; ++n)
                    acc[m][n] += a[m] * b[n];
        }
        __syncthreads();
    }
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n)
            C[(row0 + threadIdx.y * TM + m) * N + col0 + threadIdx.x * TN + n] = acc[m][n];
}
