// Naive matrix multiplication, verbatim from seed 000 ("Matrix Multiplication Kernel") and
// seed 004 ("Review: Matrix Multiplication Kernel using Multiple Blocks"). TILE_WIDTH is the
// block edge; the launch is dim3 dimBlock(TILE_WIDTH, TILE_WIDTH), dimGrid(Width/TILE_WIDTH, ...).
__global__ void MatrixMulKernel(float* Md, float* Nd, float* Pd, int Width)
{
    // Calculate the row index of the Pd element and M
    int Row = blockIdx.y*TILE_WIDTH + threadIdx.y;
    // Calculate the column index of Pd and N
    int Col = blockIdx.x*TILE_WIDTH + threadIdx.x;

    float Pvalue = 0;
    // each thread computes one element of the block sub-matrix
    for (int k = 0; k < Width; ++k)
        Pvalue += Md[Row*Width+k] * Nd[k*Width+Col];

    Pd[Row*Width+Col] = Pvalue;
}
