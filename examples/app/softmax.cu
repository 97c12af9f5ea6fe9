// Row-wise softmax of a rows x cols matrix: one block per row, a shared-memory tree for the
// row's maximum and sum. main() fills the matrix, runs the kernel, checks every row against
// the CPU and prints PASS or FAIL, as a test program does.
//   nvcc softmax.cu -o softmax && ./softmax 256 1024        perfcalc app softmax.cu -- 256 1024
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define THREADS 256

__global__ void softmax_rows(const float* in, float* out, int cols)
{
    __shared__ float part[THREADS];
    const float* row = in + (size_t)blockIdx.x * cols;
    float* dst = out + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    part[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    m = part[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(row[c] - m);
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    sum = part[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = __expf(row[c] - m) / sum;
}

int main(int argc, char** argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 256;
    int cols = argc > 2 ? atoi(argv[2]) : 1024;
    size_t n = (size_t)rows * cols;
    std::vector<float> h(n), got(n);
    srand(1);
    for (size_t i = 0; i < n; i++) h[i] = (rand() % 2000) / 250.0f - 4.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    softmax_rows<<<rows, THREADS>>>(d_in, d_out, cols);
    cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    double worst = 0.0;
    for (int r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0.0;
        for (int c = 0; c < cols; c++) m = fmax(m, h[(size_t)r * cols + c]);
        for (int c = 0; c < cols; c++) s += exp(h[(size_t)r * cols + c] - m);
        for (int c = 0; c < cols; c++) {
            double want = exp(h[(size_t)r * cols + c] - m) / s;
            worst = fmax(worst, fabs(got[(size_t)r * cols + c] - want) / want);
        }
    }
    printf("softmax of %d x %d: largest relative error %.1e: %s\n", rows, cols, worst, worst < 1e-4 ? "PASS" : "FAIL");
    cudaFree(d_in);
    cudaFree(d_out);
    return worst < 1e-4 ? 0 : 1;
}
