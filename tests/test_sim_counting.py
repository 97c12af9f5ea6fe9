"""Counters of the execution core against closed forms derived by hand (docstrings) from the
rules of reference/memory.md (§1.6 global CC 7.x-9.0: one request per warp instruction, 32-byte
sectors; §3.4 shared CC 5.x-9.0: 32 banks of 4 bytes, passes = max distinct words per bank) and
the issue's acceptance examples (naive matmul 2*W^3/32 load requests at 2 sectors each; tiled
2*W^3/(32*TILE_WIDTH) requests at 4 sectors each).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import COUNTER_NAMES, Counters, run_kernel
from perfcalc.specs import get_arch

DATA = Path(__file__).parent / "data" / "cuda"
H100 = get_arch("9.0")


def matmul(name: str, w: int, arch: object = H100) -> tuple[object, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    a = rng.standard_normal(w * w).astype(np.float32)
    b = rng.standard_normal(w * w).astype(np.float32)
    p = np.zeros(w * w, np.float32)
    r = run_kernel(
        (DATA / name).read_text(),
        "MatrixMulKernel",
        (w // 16, w // 16),
        (16, 16),
        {"Md": a, "Nd": b, "Pd": p, "Width": w},
        arch,
        defines={"TILE_WIDTH": 16},
        source_name=name,
    )
    ref = a.reshape(w, w).astype(np.float64) @ b.reshape(w, w).astype(np.float64)
    return r, p.reshape(w, w), ref


@pytest.mark.parametrize("w", [32, 64])
def test_naive_matmul_counts(w: int) -> None:
    """16x16 blocks: a warp is two 16-wide rows. Md[Row*W+k]: 2 addresses (one per row), 2
    sectors; Nd[k*W+Col]: 16 consecutive floats (64 B, 64-aligned) shared by both rows, 2
    sectors. W^2/32 warps x W iterations x 2 loads = 2W^3/32 requests, 4W^3/32 sectors; one
    store per warp of 2 rows x 64 B = 4 sectors; flops 2W^3 (a += b*c is 2)."""
    r, p, ref = matmul("matmul_naive.cu", w)
    np.testing.assert_allclose(p, ref, rtol=1e-4, atol=1e-4)
    c = r.counters
    assert c.global_load_requests == 2 * w**3 // 32
    assert c.global_load_transactions == 4 * w**3 // 32
    assert c.global_load_bytes == 32 * c.global_load_transactions
    assert c.global_store_requests == w * w // 32
    assert c.global_store_transactions == 4 * w * w // 32
    assert c.flops == 2 * w**3
    assert (c.divergent_branches, c.barriers, c.shared_load_requests) == (0, 0, 0)


@pytest.mark.parametrize("w", [32, 64])
def test_tiled_matmul_counts(w: int) -> None:
    """TILE_WIDTH 16: per phase each warp loads two 2x16-float tiles rows: 4 sectors each;
    W/16 phases: 2W^3/(32*16) requests, 4 sectors each. Shared: per phase and warp 2 stores
    (words 0..31 of a tile: 1 pass) and 2x16 loads (Mds[ty][k]: 2 words in banks 16 apart;
    Nds[k][tx]: 16 words read by both half-warps: 1 pass each), no conflicts. Barriers: 2 per
    phase per block."""
    r, p, ref = matmul("matmul_tiled.cu", w)
    np.testing.assert_allclose(p, ref, rtol=1e-4, atol=1e-4)
    c = r.counters
    warps, phases, blocks = w * w // 32, w // 16, (w // 16) ** 2
    assert c.global_load_requests == 2 * w**3 // (32 * 16)
    assert c.global_load_transactions == 4 * c.global_load_requests
    assert c.shared_store_requests == c.shared_store_wavefronts == 2 * warps * phases
    assert c.shared_load_requests == c.shared_load_wavefronts == 2 * 16 * warps * phases
    assert c.bank_conflicts == 0
    assert c.barriers == 2 * phases * blocks
    assert c.flops == 2 * w**3


def test_counts_are_attributed_to_the_source_line() -> None:
    """All loads of the naive kernel are on line 13 of matmul_naive.cu, the store on 15."""
    r, _, _ = matmul("matmul_naive.cu", 32)
    lines = (DATA / "matmul_naive.cu").read_text().splitlines()
    load_line = next(i for i, s in enumerate(lines, 1) if "Pvalue +=" in s)
    store_line = next(i for i, s in enumerate(lines, 1) if "Pd[Row*Width+Col] =" in s)
    assert r.per_site[load_line].global_load_requests == 2 * 32**3 // 32
    assert r.per_site[store_line].global_store_requests == 32
    assert r.per_site[load_line].flops == 2 * 32**3
    total = sum((c for c in r.per_site.values()), Counters())
    assert total == r.counters


TRANSPOSE = """
__global__ void k(const float* in, float* out) {
    __shared__ float tile[32][PAD];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}"""


@pytest.mark.parametrize(("pad", "passes"), [(32, 32), (33, 1)])
def test_transpose_bank_conflicts(pad: int, passes: int) -> None:
    """Reading tile[threadIdx.x][threadIdx.y]: lane l reads word l*PAD + y. PAD 32: all 32
    lanes in one bank, 32 distinct words -> 32 passes, 31 conflicts per warp (memory.md §3.5.1
    stride 32); PAD 33: 32 different banks -> 1 pass. 32x32 threads = 32 warps."""
    x = np.arange(1024, dtype=np.float32)
    out = np.zeros(1024, np.float32)
    r = run_kernel(TRANSPOSE, "k", 1, (32, 32), {"in": x, "out": out}, H100, defines={"PAD": pad})
    np.testing.assert_array_equal(out.reshape(32, 32), x.reshape(32, 32).T)
    c = r.counters
    assert c.shared_load_requests == 32
    assert c.shared_load_wavefronts == 32 * passes
    assert c.shared_store_wavefronts == 32
    assert c.bank_conflicts == 32 * (passes - 1)


@pytest.mark.parametrize(("stride", "sectors"), [(1, 4), (2, 8), (4, 16), (8, 32), (32, 32)])
def test_strided_copy_sectors(stride: int, sectors: int) -> None:
    """out[i] = in[i*stride]: a warp's 32 lanes touch 4-byte words 4*stride bytes apart:
    min(32, 4*stride) sectors of 32 B per warp (memory.md §1.6 rule 2); 2 warps."""
    x = np.arange(64 * stride, dtype=np.float32)
    out = np.zeros(64, np.float32)
    k = (
        "__global__ void k(const float* in, float* out, int s) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    out[i] = in[i * s];\n}"
    )
    r = run_kernel(k, "k", 2, 32, {"in": x, "out": out, "s": stride}, H100)
    assert out.tolist() == x[::stride].tolist()
    assert r.counters.global_load_requests == 2
    assert r.counters.global_load_transactions == 2 * sectors


def test_data_dependent_and_divergent_accesses_price_warp_by_warp() -> None:
    """A permuted gather and a guard that masks part of the last block take the general path;
    the sectors must equal an independent count: per warp, the distinct 32-byte sectors of the
    active lanes' byte addresses (array base 256-aligned)."""
    rng = np.random.default_rng(4)
    n, threads = 200, 256
    perm = rng.permutation(n).astype(np.int32)
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    k = """__global__ void k(const int* perm, const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[perm[i]];
}"""
    r = run_kernel(k, "k", 4, 64, {"perm": perm, "in": x, "out": out, "n": n}, H100)
    assert out.tolist() == x[perm].tolist()
    expected = 0
    for w in range(threads // 32):
        lanes = [i for i in range(32 * w, 32 * w + 32) if i < n]
        expected += len({i * 4 // 32 for i in lanes})  # perm[i]
        expected += len({int(perm[i]) * 4 // 32 for i in lanes})  # in[perm[i]]
    assert r.counters.global_load_transactions == expected
    assert r.counters.global_load_requests == 2 * 7  # warps with an active lane: 200/32 -> 7


def test_partial_warps_have_inactive_lanes() -> None:
    """48 threads per block = warp 0 (32 lanes) + warp 1 (16 lanes): one request each;
    4 + 2 sectors of 4-byte elements; one block."""
    x = np.arange(48, dtype=np.float32)
    out = np.zeros(48, np.float32)
    r = run_kernel(
        "__global__ void k(const float* a, float* b) { b[threadIdx.x] = a[threadIdx.x]; }",
        "k",
        1,
        48,
        {"a": x, "b": out},
        H100,
    )
    assert out.tolist() == x.tolist()
    assert (r.counters.global_load_requests, r.counters.global_load_transactions) == (2, 6)
    assert r.launch.warps == 2 and r.launch.threads == 48


def test_divergent_branches_count_warps_whose_lanes_disagree() -> None:
    """`if (t % 2)` splits every warp (2 warps); `if (t < 32)` splits none; the loop
    `j < t` over 32 lanes disagrees at j = 0..30 (lane 0 leaves first, lane 31 last) and agrees
    at j = 31 (all leave): 31 divergent executions of its condition."""
    k = """__global__ void k(int* a) {
    int t = threadIdx.x;
    if (t % 2) a[t] = 1; else a[t] = 2;
    if (t < 32) a[t] += 10;
    if (t < 32) { int s = 0; for (int j = 0; j < t; j++) s += j; a[t] += s; }
}"""
    a = np.zeros(64, np.int32)
    r = run_kernel(k, "k", 1, 64, {"a": a}, H100)
    assert a[:4].tolist() == [12, 11, 13, 14]
    assert r.counters.divergent_branches == 2 + 0 + 0 + 31


def test_struct_and_vector_accesses() -> None:
    """AoS {int index; double value;} (16 bytes, C layout): in[i].index is a 4-byte load and
    in[i].value an 8-byte load, 16 bytes apart per lane: 512 B -> 16 sectors each. SoA: 4-byte
    index array 128 B -> 4 sectors, 8-byte value array 256 B -> 8 sectors. float4 read whole:
    one 16-byte load per lane, 512 B -> 16 sectors; float3 .x: 12 bytes apart -> 384 B -> 12
    sectors. One warp each."""
    aos = np.zeros(
        32, dtype=np.dtype({"names": ["index", "value"], "formats": ["i4", "f8"], "offsets": [0, 8], "itemsize": 16})
    )
    aos["index"] = np.arange(32)
    aos["value"] = 0.5
    out = np.zeros(32, np.float64)
    k = """struct Item { int index; double value; };
__global__ void k(const struct Item* in, double* out) {
    int i = threadIdx.x;
    out[i] = in[i].index + in[i].value;
}"""
    r = run_kernel(k, "k", 1, 32, {"in": aos, "out": out}, H100)
    assert out.tolist() == [i + 0.5 for i in range(32)]
    assert (r.counters.global_load_requests, r.counters.global_load_transactions) == (2, 32)

    idx, val = np.arange(32, dtype=np.int32), np.full(32, 0.5)
    k2 = """__global__ void k(const int* index, const double* value, double* out) {
    int i = threadIdx.x;
    out[i] = index[i] + value[i];
}"""
    r = run_kernel(k2, "k", 1, 32, {"index": idx, "value": val, "out": out}, H100)
    assert (r.counters.global_load_requests, r.counters.global_load_transactions) == (2, 12)

    f4 = np.zeros(32, dtype=[("x", "f4"), ("y", "f4"), ("z", "f4"), ("w", "f4")])
    f4["x"], f4["w"] = np.arange(32), 1.0
    o = np.zeros(32, np.float32)
    k3 = """__global__ void k(const float4* in, float* out) {
    float4 v = in[threadIdx.x];
    out[threadIdx.x] = v.x + v.w;
}"""
    r = run_kernel(k3, "k", 1, 32, {"in": f4, "out": o}, H100)
    assert o.tolist() == [i + 1.0 for i in range(32)]
    assert (r.counters.global_load_requests, r.counters.global_load_transactions) == (1, 16)

    f3 = np.zeros(32, dtype=[("x", "f4"), ("y", "f4"), ("z", "f4")])
    f3["x"] = np.arange(32)
    k4 = "__global__ void k(const float3* in, float* out) { out[threadIdx.x] = in[threadIdx.x].x; }"
    r = run_kernel(k4, "k", 1, 32, {"in": f3, "out": o}, H100)
    assert o.tolist() == list(range(32))
    assert (r.counters.global_load_requests, r.counters.global_load_transactions) == (1, 12)


def test_cc1_requests_are_per_half_warp() -> None:
    """memory.md §1.7: on CC 1.x the request unit is the half-warp, so a fully active warp's
    load is 2 requests; the naive matmul at W = 32 issues 2 * (2W^3/32) of them."""
    r, p, ref = matmul("matmul_naive.cu", 32, get_arch("1.3"))
    np.testing.assert_allclose(p, ref, rtol=1e-4, atol=1e-4)
    assert r.counters.global_load_requests == 2 * 2 * 32**3 // 32


def test_counter_names_and_addition() -> None:
    """The JSON field names are exactly the issue's list, then the serialisation counts the time
    model prices (issue #9: constant requests, shared atomic steps, global load waits); + adds
    field by field."""
    assert COUNTER_NAMES == (
        "global_load_requests",
        "global_load_transactions",
        "global_load_bytes",
        "global_store_requests",
        "global_store_transactions",
        "global_store_bytes",
        "shared_load_requests",
        "shared_load_wavefronts",
        "shared_store_requests",
        "shared_store_wavefronts",
        "bank_conflicts",
        "flops",
        "divergent_branches",
        "barriers",
        "constant_requests",
        "shared_atomic_int_steps",
        "shared_atomic_cas_steps",
        "shared_atomic_float_steps",
        "global_load_waits",
    )
    a = Counters(flops=2, barriers=1, warp_instructions={"fp32": 3})
    b = Counters(flops=5, warp_instructions={"fp32": 1, "int": 2})
    s = a + b
    assert (s.flops, s.barriers, s.warp_instructions) == (7, 1, {"fp32": 4, "int": 2})


def test_idle_warps_of_a_partial_last_block_cost_nothing() -> None:
    """memory.md §3.4 / §1.7: a warp with no active lane issues no request. Two blocks of 128
    threads, n = 224: block 1 has lanes 96-127 (its 4th warp) all guarded off, so 7 warps load
    x[i] (7 requests, 4 sectors each) and store s[tx] (7 requests, 1 wavefront each)."""
    src = """__global__ void k(const float* x, int n) {
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        s[threadIdx.x] = x[i];
}"""
    c = run_kernel(src, "k", 2, 128, {"x": np.ones(256, np.float32), "n": 224}, H100).counters
    assert (c.global_load_requests, c.global_load_transactions) == (7, 28)
    assert (c.shared_store_requests, c.shared_store_wavefronts) == (7, 7)


def test_progress_reports_blocks_done() -> None:
    """The progress callback ends with (total, total) blocks."""
    calls: list[tuple[int, int]] = []
    run_kernel(
        "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }",
        "k",
        3,
        32,
        {"a": np.zeros(32, np.float32)},
        H100,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls[-1] == (3, 3)


CONV = """#define MASK_WIDTH 3
__constant__ float Mc[MASK_WIDTH];
__constant__ float bias[1] = {0.5f};
__global__ void conv(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = bias[0];
    for (int j = 0; j < MASK_WIDTH; j++) {
        int k = i + j - 1;
        if (k >= 0 && k < n) s += in[k] * Mc[j];
    }
    out[i] = s;
}"""


def test_constant_memory_is_bound_by_name_and_not_global_traffic() -> None:
    """__constant__ Mc comes from args by name, bias from its initializer. Constant reads are
    counted as constant_load warp instructions (1 + 3 per warp, 2 warps) and never as global
    loads; the global loads are the 3 in[k] reads per warp."""
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    mask = np.array([1.0, 2.0, 4.0], np.float32)
    r = run_kernel(CONV, "conv", 1, 64, {"in": x, "out": out, "n": 64, "Mc": mask}, H100)
    padded = np.concatenate([[0.0], x, [0.0]])
    ref = 0.5 + padded[:-2] * 1.0 + padded[1:-1] * 2.0 + padded[2:] * 4.0
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    c = r.counters
    assert c.warp_instructions["constant_load"] == 2 * (1 + 3)
    assert c.global_load_requests == 2 * 3


def test_extern_shared_arrays_alias_one_buffer() -> None:
    """All `extern __shared__` arrays start at the same address (CUDA): an int written through
    one is read back, bit for bit, as a float through the other."""
    out = np.zeros(32, np.float32)
    src = """__global__ void k(float* out) {
    extern __shared__ int ibuf[];
    extern __shared__ float fbuf[];
    ibuf[threadIdx.x] = 1065353216;  // the bits of 1.0f
    __syncthreads();
    out[threadIdx.x] = fbuf[threadIdx.x];
}"""
    run_kernel(src, "k", 1, 32, {"out": out}, H100, dynamic_shared_memory_bytes=128)
    assert out.tolist() == [1.0] * 32


def test_interleaved_reduction_divergence_and_barriers() -> None:
    """Seed 003's simple reduction, 64 threads (2 warps) per block, 3 blocks. Strides 1..32:
    6 iterations, 6 barriers per block. `t % (2*stride) == 0` splits both warps for strides
    1..16 (2*stride <= 32: some lanes of each warp pass) = 10, and only warp 0 for stride 32
    (only t = 0 passes; warp 1 is uniformly false) = 1; the final `t == 0` splits warp 0 = 1;
    the loop condition is uniform. 12 divergent branches per block."""
    x = np.random.default_rng(5).uniform(0, 1, 3 * 64).astype(np.float32)
    out = np.zeros(3, np.float32)
    r = run_kernel(
        (DATA / "reduce_interleaved.cu").read_text(),
        "reduceInterleaved",
        3,
        64,
        {"input": x, "output": out},
        H100,
        dynamic_shared_memory_bytes=64 * 4,
    )
    np.testing.assert_allclose(out, x.reshape(3, 64).astype(np.float64).sum(axis=1), rtol=1e-5)
    assert r.counters.barriers == 3 * 6
    assert r.counters.divergent_branches == 3 * 12


@pytest.mark.parametrize("cc", ["1.0", "1.3", "2.0", "3.5", "5.2", "7.5", "9.0"])
def test_fast_pricing_equals_pricing_every_warp(cc: str) -> None:
    """The core prices representative blocks (translation by the family's quantum, a memo,
    separable indices). Independent check: random affine index patterns, with a guard that
    leaves the last block partly idle, against memory/'s batch API applied directly to every
    warp of the launch (addresses from the same formula, base 0: any 256-aligned base costs the
    same, memory.md §0), for loads and stores, global and shared."""
    from perfcalc.memory import global_access_batch, shared_access_batch

    arch = get_arch(cc)
    rng = np.random.default_rng(int(float(cc) * 10))
    compared = 0
    # first a fixed case whose blocks are 32 bytes apart (128-byte lines see 4 alignments),
    # every lane active (the representative-block path); then random ones, half of them with
    # a partly idle last block (the warp-by-warp path)
    cases = [(1, 8, 1, 0, 8, 4, False)] + [
        tuple(int(v) for v in rng.integers(0, 9, 4))
        + (int(rng.choice([8, 16, 32])), int(rng.choice([1, 2, 4])), k % 2 == 1)
        for k in range(6)
    ]
    for ca, cb, cc_, cd, bdx, bdy, idle in cases:
        grid = int(rng.integers(2, 5))
        threads = bdx * bdy * grid
        n = threads - (int(rng.integers(1, bdx * bdy)) if idle else 0)
        size = 8 * (ca + cb + cc_ + 1) * threads + cd + 64
        src = f"""__global__ void k(float* x, int n) {{
    __shared__ float s[1024];
    int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int j = {ca} * threadIdx.x + {cb} * threadIdx.y + {cc_} * blockIdx.x * blockDim.x + {cd};
    if (i < n) {{
        s[({ca} * threadIdx.x + {cb} * threadIdx.y) % 1024] = x[j];
        x[j] = s[(threadIdx.y * blockDim.x + threadIdx.x) % 1024];
    }}
}}"""
        x = np.zeros(size, np.float32)
        r = run_kernel(src, "k", grid, (bdx, bdy), {"x": x, "n": n}, arch, raise_on_fault=False)
        if r.faults:  # a random pattern may race on s (two warps, one word): not priced here
            assert r.faults[0].kind == "shared_race"
            continue
        compared += 1
        lanes = np.arange(32 * (-(-bdx * bdy // 32)) * grid)
        per_block = 32 * (-(-bdx * bdy // 32))
        blk, tid = lanes // per_block, lanes % per_block
        tx, ty = tid % bdx, tid // bdx
        real = tid < bdx * bdy
        i = (blk * bdy + ty) * bdx + tx
        active = (real & (i < n)).reshape(-1, 32)
        j = ca * tx + cb * ty + cc_ * blk * bdx + cd
        g = global_access_batch(arch, (4 * j).reshape(-1, 32), 4, active, op="load")
        st = global_access_batch(arch, (4 * j).reshape(-1, 32), 4, active, op="store")
        sh = shared_access_batch(arch, (4 * ((ca * tx + cb * ty) % 1024)).reshape(-1, 32), 4, active, op="store")
        c = r.counters
        assert (c.global_load_requests, c.global_load_transactions, c.global_load_bytes) == (
            g.total_requests,
            g.total_transactions,
            g.total_bytes_moved,
        )
        assert (c.global_store_transactions, c.global_store_bytes) == (st.total_transactions, st.total_bytes_moved)
        assert c.shared_store_wavefronts == sh.total_wavefronts
    assert compared >= 2
