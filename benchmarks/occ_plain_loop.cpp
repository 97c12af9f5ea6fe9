// The strongest compiled baseline for benchmarks/bench_occupancy_sweep.py (issue #13): the
// CC 9.0 sweep as a plain loop over NVIDIA's cuda_occupancy.h, nothing else in the program, the
// attributes that do not change set once, built with -O3 -march=native. The device comes on
// the command line (the same numbers perfcalc's Arch holds); it prints
//   configs sumActiveBlocks sumLimitingFactors bestSeconds status
// so the benchmark can check that both sides computed the same thing.
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "cuda_occupancy.h"

int main(int argc, char **argv) {
    if (argc != 17) {
        std::fprintf(stderr, "usage: occ_plain_loop DEVICE(11 numbers) regsMax smemStep smemMax repeats\n");
        return 2;
    }
    cudaOccDeviceProp p;
    p.computeMajor = std::atoi(argv[1]);
    p.computeMinor = std::atoi(argv[2]);
    p.maxThreadsPerBlock = std::atoi(argv[3]);
    p.maxThreadsPerMultiprocessor = std::atoi(argv[4]);
    p.regsPerBlock = std::atoi(argv[5]);
    p.regsPerMultiprocessor = std::atoi(argv[6]);
    p.warpSize = std::atoi(argv[7]);
    p.sharedMemPerBlock = (size_t)std::atoll(argv[8]);
    p.sharedMemPerMultiprocessor = (size_t)std::atoll(argv[9]);
    p.sharedMemPerBlockOptin = (size_t)std::atoll(argv[10]);
    p.reservedSharedMemPerBlock = (size_t)std::atoll(argv[11]);
    p.numSms = 1;
    const int regsMax = std::atoi(argv[12]);
    const long long step = std::atoll(argv[13]), smemMax = std::atoll(argv[14]);
    const int repeats = std::atoi(argv[15]);
    (void)argv[16];  // reserved: keeps the argument count fixed

    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = INT_MAX;
    a.sharedSizeBytes = 0;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.numBlockBarriers = 1;
    a.virtualResourceCount = 0;
    cudaOccDeviceState s;
    s.carveoutConfig = -1;
    s.cacheConfig = CACHE_PREFER_NONE;
    cudaOccResult r;

    double best = 1e30;
    long long configs = 0, sumBlocks = 0, sumMask = 0;
    int status = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        configs = sumBlocks = sumMask = 0;
        auto t0 = std::chrono::steady_clock::now();
        for (int block = 32; block <= p.maxThreadsPerBlock; block += 32) {
            for (int regs = 0; regs <= regsMax; ++regs) {
                a.numRegs = regs;
                for (long long dyn = 0; dyn <= smemMax; dyn += step) {
                    a.maxDynamicSharedSizeBytes = (size_t)dyn;
                    status |= cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, block, (size_t)dyn);
                    sumBlocks += r.activeBlocksPerMultiprocessor;
                    sumMask += r.limitingFactors;
                    ++configs;
                }
            }
        }
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (seconds < best) best = seconds;
    }
    std::printf("%lld %lld %lld %.6f %d\n", configs, sumBlocks, sumMask, best, status);
    return 0;
}
