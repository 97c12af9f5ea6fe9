// Batch driver around NVIDIA's cuda_occupancy.h, used by tests/test_occupancy_header.py and
// benchmarks/bench_occupancy_sweep.py to compare perfcalc with the header on the same inputs.
//
// stdin, one request per line (all integers, whitespace separated):
//   occ     DEVICE  blockSize numRegs staticSmem dynamicSmem carveout cacheConfig barriers
//           [virtualResources]
//   suggest DEVICE  numRegs staticSmem dynamicSmem carveout cacheConfig blockSizeLimit
//   sweep   DEVICE  numRegsMax smemStep smemMax repeats      (CC 9.0 benchmark loop)
// where DEVICE = major minor maxThreadsPerBlock maxThreadsPerMultiprocessor regsPerBlock
//                regsPerMultiprocessor warpSize sharedMemPerBlock sharedMemPerMultiprocessor
//                sharedMemPerBlockOptin reservedSharedMemPerBlock
// stdout, one line per request:
//   occ:     status activeBlocks limitingFactors limitRegs limitSmem limitWarps limitBlocks
//            limitBarriers allocatedRegs allocatedSmem limitVirtual
//   suggest: status blockSize minGridSize(numSms = 1)
//   sweep:   status configs seconds(best of repeats) sumActiveBlocks sumLimitingFactors
//
// Function attributes are filled as the cudaFuncAttributes conversion of the header does
// (shared-memory limit OPTIN, 1 block barrier, partitioned caching off), with
// maxDynamicSharedSizeBytes = the dynamic size: the kernel opts in to exactly what it uses.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

#include "cuda_occupancy.h"

static bool readDevice(std::istream &in, cudaOccDeviceProp &p) {
    long long smemPerBlock, smemPerSm, optin, reserved;
    in >> p.computeMajor >> p.computeMinor >> p.maxThreadsPerBlock >> p.maxThreadsPerMultiprocessor
       >> p.regsPerBlock >> p.regsPerMultiprocessor >> p.warpSize >> smemPerBlock >> smemPerSm
       >> optin >> reserved;
    p.sharedMemPerBlock = (size_t)smemPerBlock;
    p.sharedMemPerMultiprocessor = (size_t)smemPerSm;
    p.sharedMemPerBlockOptin = (size_t)optin;
    p.reservedSharedMemPerBlock = (size_t)reserved;
    p.numSms = 1;
    return (bool)in;
}

static void fillAttributes(cudaOccFuncAttributes &a, int regs, long long staticSmem,
                           long long dynamicSmem, int barriers, int virtualResources = 0) {
    a.maxThreadsPerBlock = INT_MAX;
    a.numRegs = regs;
    a.sharedSizeBytes = (size_t)staticSmem;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = (size_t)dynamicSmem;
    a.numBlockBarriers = barriers;
    a.virtualResourceCount = virtualResources;
}

static void fillState(cudaOccDeviceState &s, int carveout, int cacheConfig) {
    s.carveoutConfig = carveout;
    s.cacheConfig = (cudaOccCacheConfig)cacheConfig;
}

static void occ(std::istream &in) {
    cudaOccDeviceProp p;
    cudaOccFuncAttributes a;
    cudaOccDeviceState s;
    cudaOccResult r;
    int block, regs, carveout, cache, barriers, virtualResources = 0;
    long long st, dyn;
    readDevice(in, p);
    in >> block >> regs >> st >> dyn >> carveout >> cache >> barriers;
    if (!(in >> virtualResources)) virtualResources = 0;
    fillAttributes(a, regs, st, dyn, barriers, virtualResources);
    fillState(s, carveout, cache);
    std::memset(&r, 0, sizeof(r));
    int status = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, block, (size_t)dyn);
    std::printf("%d %d %u %d %d %d %d %d %d %zu %d\n", status, r.activeBlocksPerMultiprocessor,
                r.limitingFactors, r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitWarps,
                r.blockLimitBlocks, r.blockLimitBarriers, r.allocatedRegistersPerBlock,
                r.allocatedSharedMemPerBlock, r.blockLimitVirtual);
}

static void suggest(std::istream &in) {
    cudaOccDeviceProp p;
    cudaOccFuncAttributes a;
    cudaOccDeviceState s;
    int regs, carveout, cache, limit, minGrid = 0, block = 0;
    long long st, dyn;
    readDevice(in, p);
    in >> regs >> st >> dyn >> carveout >> cache >> limit;
    fillAttributes(a, regs, st, dyn, 1);
    a.maxThreadsPerBlock = limit;
    fillState(s, carveout, cache);
    int status = cudaOccMaxPotentialOccupancyBlockSize(&minGrid, &block, &p, &a, &s, (size_t)dyn);
    std::printf("%d %d %d\n", status, block, minGrid);
}

static void sweep(std::istream &in) {
    cudaOccDeviceProp p;
    cudaOccFuncAttributes a;
    cudaOccDeviceState s;
    cudaOccResult r;
    int regsMax, repeats;
    long long step, smemMax;
    readDevice(in, p);
    in >> regsMax >> step >> smemMax >> repeats;
    fillState(s, -1, 0);
    double best = 1e30;
    long long configs = 0, sumBlocks = 0, sumMask = 0;
    int status = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        configs = sumBlocks = sumMask = 0;
        auto t0 = std::chrono::steady_clock::now();
        for (int block = 32; block <= p.maxThreadsPerBlock; block += 32) {
            for (int regs = 0; regs <= regsMax; ++regs) {
                for (long long dyn = 0; dyn <= smemMax; dyn += step) {
                    fillAttributes(a, regs, 0, dyn, 1);
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
    std::printf("%d %lld %.6f %lld %lld\n", status, configs, best, sumBlocks, sumMask);
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string command;
        if (!(in >> command)) continue;
        if (command == "occ") occ(in);
        else if (command == "suggest") suggest(in);
        else if (command == "sweep") sweep(in);
        else { std::fprintf(stderr, "unknown request %s\n", command.c_str()); return 2; }
    }
    return 0;
}
