/* The physical limit a simulator of seed 000's matmuls can approach (issue #13): the kernels run
 * for every thread of the grid in lock-step order, as the execution core runs them (per step,
 * every thread in launch order: block, threadIdx.y, threadIdx.x), natively, counting nothing.
 *
 *   matmul_lockstep naive|tiled WIDTH MD.f32 ND.f32 PD.f32   -> prints the kernel's seconds
 *
 * Inputs and output are raw float32 files (written and checked by benchmarks/bench_matmul.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE 16

static float *load(const char *path, size_t n) {
    float *a = malloc(n * sizeof(float));
    FILE *f = fopen(path, "rb");
    if (!a || !f || fread(a, sizeof(float), n, f) != n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
    fclose(f);
    return a;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: matmul_lockstep naive|tiled WIDTH MD ND PD\n"); return 2; }
    const int tiled = strcmp(argv[1], "tiled") == 0, w = atoi(argv[2]);
    const size_t n = (size_t)w * w, gb = (size_t)w / TILE, threads = n;
    float *md = load(argv[3], n), *nd = load(argv[4], n), *pd = calloc(n, sizeof(float));
    int *row = malloc(threads * sizeof(int)), *col = malloc(threads * sizeof(int));
    int *ty = malloc(threads * sizeof(int)), *tx = malloc(threads * sizeof(int));
    float *acc = calloc(threads, sizeof(float));
    float *mds = malloc(threads * sizeof(float)), *nds = malloc(threads * sizeof(float));
    size_t t = 0; /* launch order: block (by, bx), then threadIdx.y, then threadIdx.x */
    for (size_t by = 0; by < gb; ++by)
        for (size_t bx = 0; bx < gb; ++bx)
            for (int y = 0; y < TILE; ++y)
                for (int x = 0; x < TILE; ++x, ++t) {
                    row[t] = (int)(by * TILE + y); col[t] = (int)(bx * TILE + x); ty[t] = y; tx[t] = x;
                }
    double t0 = now();
    if (!tiled) {
        for (int k = 0; k < w; ++k)
            for (size_t i = 0; i < threads; ++i) acc[i] += md[row[i] * w + k] * nd[k * w + col[i]];
    } else {
        for (int ph = 0; ph < w / TILE; ++ph) {
            for (size_t i = 0; i < threads; ++i) {  /* each block's tiles: mds/nds at the thread's slot */
                mds[i] = md[row[i] * w + ph * TILE + tx[i]];
                nds[i] = nd[(ph * TILE + ty[i]) * w + col[i]];
            }
            for (int k = 0; k < TILE; ++k)
                for (size_t i = 0; i < threads; ++i) {
                    size_t base = i - (size_t)(ty[i] * TILE + tx[i]);  /* the block's first slot */
                    acc[i] += mds[base + ty[i] * TILE + k] * nds[base + k * TILE + tx[i]];
                }
        }
    }
    for (size_t i = 0; i < threads; ++i) pd[row[i] * w + col[i]] = acc[i];
    double seconds = now() - t0;
    FILE *f = fopen(argv[5], "wb");
    fwrite(pd, sizeof(float), n, f);
    fclose(f);
    printf("%.6f\n", seconds);
    return 0;
}
