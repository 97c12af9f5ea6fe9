// A program that does what its arguments say, in order: the fuzzing suite's whole-program class
// (issue 36) draws the words. Actions: exit N | abort | segv | fpe | kill SIG | spin S | sleep S |
// malloc N | cudamalloc N | fork K | write N FD (N < 0: without end) | launch GRID BLOCK |
// close FD | threads K | memcpy N.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void fill(int *out, int n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int)i;
}

static void launch_once(long grid, long block) {
  int *d = nullptr;
  cudaMalloc(&d, 256 * sizeof(int));
  fill<<<(unsigned)grid, (unsigned)block>>>(d, 256);
  cudaError_t launched = cudaGetLastError();
  cudaError_t synced = cudaDeviceSynchronize();
  printf("launch %ld %ld: %d %d\n", grid, block, (int)launched, (int)synced);
  fflush(stdout);  // a forked child leaves with _exit
  cudaFree(d);
}

static void *thread_body(void *) {
  launch_once(2, 128);
  return nullptr;
}

static double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    long n = i + 1 < argc ? atol(argv[i + 1]) : 0;
    if (!strcmp(a, "exit")) exit((int)n);
    if (!strcmp(a, "abort")) abort();
    if (!strcmp(a, "segv")) *(volatile int *)nullptr = 1;
    if (!strcmp(a, "fpe")) {
      volatile int zero = 0;
      printf("%d\n", 1 / zero);
    }
    if (!strcmp(a, "kill")) raise((int)n);
    if (!strcmp(a, "spin")) {
      double end = now() + (n < 0 ? 1e9 : n);
      volatile long x = 0;
      while (now() < end) x++;
    }
    if (!strcmp(a, "sleep")) sleep(n < 0 ? 1000000 : (unsigned)n);
    if (!strcmp(a, "malloc")) {
      char *p = (char *)malloc((size_t)n);
      if (p) memset(p, 1, (size_t)n < 4096 ? (size_t)n : 4096);
      printf("malloc %ld: %s\n", n, p ? "ok" : "null");
      free(p);
    }
    if (!strcmp(a, "cudamalloc")) {
      void *d = nullptr;
      cudaError_t e = cudaMalloc(&d, (size_t)n);
      printf("cudaMalloc %ld: %d\n", n, (int)e);
      cudaFree(d);
    }
    if (!strcmp(a, "fork")) {
      for (long k = 0; k < n && k < 8; k++) {
        pid_t p = fork();
        if (p == 0) {
          launch_once(1, 32);
          _exit(0);
        }
      }
      while (wait(nullptr) > 0) {
      }
    }
    if (!strcmp(a, "write")) {
      int fd = i + 2 < argc ? atoi(argv[i + 2]) : 1;
      char line[64];
      memset(line, 'x', sizeof line);
      line[63] = '\n';
      for (long left = n; n < 0 || left > 0; left -= 64)
        if (write(fd, line, n < 0 || left >= 64 ? 64 : left) < 0) break;
    }
    if (!strcmp(a, "launch")) launch_once(n, i + 2 < argc ? atol(argv[i + 2]) : 1);
    if (!strcmp(a, "close")) close((int)n);
    if (!strcmp(a, "threads")) {
      pthread_t t[8];
      long k = n < 0 ? 0 : (n > 8 ? 8 : n);
      for (long j = 0; j < k; j++) pthread_create(&t[j], nullptr, thread_body, nullptr);
      for (long j = 0; j < k; j++) pthread_join(t[j], nullptr);
    }
    if (!strcmp(a, "memcpy")) {
      int host[16] = {0};
      int *d = nullptr;
      cudaMalloc(&d, sizeof host);
      cudaError_t e = cudaMemcpy(host, d, (size_t)n, cudaMemcpyDeviceToHost);
      printf("memcpy %ld: %d\n", n, (int)e);
      cudaFree(d);
    }
  }
  printf("end\n");
  return 0;
}
