// Tiled matrix multiplication, verbatim from seed 000 ("Tiled Matrix Multiplication Kernel"),
// whose slide splits the kernel over two code blocks; they are joined here, and the comment
// that the slide's line wrap broke ("...tiles into / shared memory") is rejoined on one line.
#define TILE_WIDTH 16
__global__ void MatrixMulKernel(float* Md, float* Nd,
                                float* Pd, int Width){
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int bx = blockIdx.x;    int by = blockIdx.y;
    int tx = threadIdx.x;  int ty = threadIdx.y;
    // Identify row and column of Pd to work on
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;

// Loop over Md and Nd tiles required to compute Pd
for (int m = 0; m < Width/TILE_WIDTH; ++m) {
// Collaborative loading of Md and Nd tiles into shared memory
  Mds[ty][tx] = Md[Row*Width + (m*TILE_WIDTH + tx)];
  Nds[ty][tx] = Nd[Col + (m*TILE_WIDTH + ty)*Width];
  __syncthreads();
  for (int k = 0; k < TILE_WIDTH; ++k)
    Pvalue += Mds[ty][k] * Nds[k][tx];
  __syncthreads();
}
Pd[Row*Width+Col] = Pvalue;
}
