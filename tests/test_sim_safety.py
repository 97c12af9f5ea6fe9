"""Safety checks of the execution core: the seeds' real bugs and the launch/argument checks.

Expected fault positions are derived by hand from the kernel text (line numbers of the files in
tests/data/cuda/, thread and block from the launch geometry), never copied from a run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfcalc.errors import InputError, KernelFault
from perfcalc.sim import run_kernel
from perfcalc.specs import get_arch

DATA = Path(__file__).parent / "data" / "cuda"
H100 = get_arch("9.0")


def src(name: str) -> str:
    return (DATA / name).read_text()


def line_of(name: str, text: str, nth: int = 1) -> int:
    """1-based line of the nth line containing `text` in a data file."""
    hits = [i for i, ln in enumerate(src(name).splitlines(), 1) if text in ln]
    return hits[nth - 1]


def run_convolve(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(1).uniform(1, 2, n).astype(np.float32)
    out = np.zeros(n, np.float32)
    run_kernel(src(name), "convolve", n // 128, 128, {"N": n, "input": x, "output": out}, H100, source_name=name)
    return x, out


def test_seed_convolve_reads_past_its_input_in_the_last_block() -> None:
    """Seed 001: thread 0 of the last block (blockIdx 3 for N = 512, 128 threads per block)
    loads input[index + THREADS_PER_BLK] = input[0 + 3*128 + 128] = input[512], one past the
    512-element input, on the line of that load."""
    with pytest.raises(KernelFault) as info:
        run_convolve("convolve_seed.cu", 512)
    f = info.value.fault
    assert (f.kind, f.array, f.index) == ("out_of_bounds", "input", 512)
    assert f.line == line_of("convolve_seed.cu", "= input[index+THREADS_PER_BLK]")
    assert (f.block, f.thread) == ((3, 0, 0), (0, 0, 0))
    msg = str(info.value)
    assert "\n" not in msg and "convolve" in msg and "input[512]" in msg
    assert "thread (0,0,0)" in msg and "block (3,0,0)" in msg


def test_corrected_convolve_runs_and_matches_numpy() -> None:
    """The corrected kernel is the 3-point forward average with zeros past the end."""
    x, out = run_convolve("convolve_fixed.cu", 256)
    padded = np.concatenate([x, np.zeros(2, np.float32)]).astype(np.float64)
    ref = (padded[:-2] + padded[1:-1] + padded[2:]) / 3
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def run_reduce(
    name: str, block: int = 64, blocks: int = 4, cap: int = 1_000_000, **kw: object
) -> tuple[np.ndarray, np.ndarray, object]:
    x = np.random.default_rng(2).uniform(0, 1, 2 * block * blocks).astype(np.float32)
    out = np.zeros(blocks, np.float32)
    r = run_kernel(
        src(name),
        "reduceSeed",
        blocks,
        block,
        {"input": x, "output": out},
        H100,
        dynamic_shared_memory_bytes=2 * block * 4,
        iteration_cap=cap,
        source_name=name,
        **kw,
    )
    return x, out, r


def test_seed_reduction_loop_is_proven_endless() -> None:
    """Seed 003's `for (...; stride > 1; stride >> 1)` never assigns stride, and nothing
    breaks out of the loop: each thread's condition can never change, so the kernel hangs.
    Reported after the first iteration (not after a million), naming the loop's line, the
    variable and the first thread still looping, (0,0,0) of block (0,0,0)."""
    with pytest.raises(KernelFault) as info:
        run_reduce("reduce_seed.cu")
    f = info.value.fault
    assert f.kind == "endless_loop"
    assert f.line == line_of("reduce_seed.cu", "stride >> 1)")
    assert (f.block, f.thread) == ((0, 0, 0), (0, 0, 0))
    assert "stride" in str(info.value) and "hang" in str(info.value)


def test_loop_past_the_iteration_cap() -> None:
    """A loop whose condition reads memory cannot be proven endless; it is stopped by the
    iteration cap: `while (flag[0] == 0)` with flag[0] = 0 runs until iteration 41 of a cap
    of 40. A struct member written in the body keeps a loop from being called endless."""
    src = """__global__ void k(const int* flag, int* out) {
    int n = 0;
    while (flag[0] == 0) n++;
    out[threadIdx.x] = n;
}"""
    with pytest.raises(KernelFault) as info:
        run_kernel(
            src, "k", 1, 32, {"flag": np.zeros(1, np.int32), "out": np.zeros(32, np.int32)}, H100, iteration_cap=40
        )
    assert info.value.fault.kind == "iteration_cap"
    assert "40 iterations" in str(info.value)
    out = np.zeros(32, np.int32)
    src2 = """__global__ void k(int* out) {
    int2 v; v.x = 0; v.y = 0;
    while (v.x < 5) v.x += 1;
    out[threadIdx.x] = v.x;
}"""
    run_kernel(src2, "k", 1, 32, {"out": out}, H100)
    assert out.tolist() == [5] * 32


def test_corrected_reduction_sums_each_block() -> None:
    """Each block sums its 2*blockDim.x inputs; 64 threads: strides 64..1 = 7 barriers per
    block, 28 for 4 blocks."""
    x, out, r = run_reduce("reduce_fixed.cu")
    np.testing.assert_allclose(out, x.reshape(4, -1).astype(np.float64).sum(axis=1), rtol=1e-5)
    assert r.counters.barriers == 4 * 7
    assert r.faults == ()


def test_missing_barrier_is_a_race_between_warps() -> None:
    """Without __syncthreads, in the second iteration (stride 32) thread 0 reads
    partialSum[0 + 32], which thread 32 (warp 1) wrote in the first iteration (stride 64)."""
    with pytest.raises(KernelFault) as info:
        run_reduce("reduce_nosync.cu")
    f = info.value.fault
    assert (f.kind, f.array, f.index) == ("shared_race", "partialSum", 32)
    assert f.line == line_of("reduce_nosync.cu", "partialSum[t] += partialSum[t+stride]")
    assert (f.block, f.thread) == ((0, 0, 0), (0, 0, 0))
    assert "warp 1" in str(info.value) and "__syncthreads" in str(info.value)


def test_raise_on_fault_false_returns_the_fault() -> None:
    _, _, r = run_reduce("reduce_nosync.cu", raise_on_fault=False)
    assert len(r.faults) == 1 and r.faults[0].kind == "shared_race"


def test_barrier_in_divergent_code_is_reported() -> None:
    """Only warp 0 (threads 0-31) reaches the barrier of a 64-thread block; thread 32 is the
    first live thread that does not. The source engine runs the branch before the code after it,
    so it cannot know that warp 1 exits (which lets an H100 go on: tests/test_ptx_engine.py);
    it refuses the launch and names the PTX engine."""
    data = np.ones(64, np.float32)
    with pytest.raises(KernelFault) as info:
        run_kernel(src("partial_barrier.cu"), "partialBarrier", 1, 64, {"data": data}, H100)
    f = info.value.fault
    assert f.kind == "divergent_barrier"
    assert f.line == line_of("partial_barrier.cu", "__syncthreads();")
    assert f.thread == (32, 0, 0)
    assert "32 of 64" in str(info.value) and "--engine ptx" in str(info.value)


TILED_NO_SECOND_SYNC = src("matmul_tiled.cu").replace(
    "    Pvalue += Mds[ty][k] * Nds[k][tx];\n  __syncthreads();", "    Pvalue += Mds[ty][k] * Nds[k][tx];\n"
)


def test_tiled_matmul_without_its_second_barrier_races() -> None:
    """Phase m+1 stores Nds[ty][tx] while the other warps of the block may still read
    Nds[k][tx] of phase m: a write-after-read by a different warp. Thread (0,0) of warp 0
    stores Nds[0][0], which warps 1-7 read in phase 0."""
    assert src("matmul_tiled.cu") != TILED_NO_SECOND_SYNC
    w = 32
    a = np.ones(w * w, np.float32)
    with pytest.raises(KernelFault) as info:
        run_kernel(
            TILED_NO_SECOND_SYNC,
            "MatrixMulKernel",
            (2, 2),
            (16, 16),
            {"Md": a, "Nd": a.copy(), "Pd": np.zeros_like(a), "Width": w},
            H100,
        )
    f = info.value.fault
    assert (f.kind, f.array) == ("shared_race", "Nds")
    assert f.line == line_of("matmul_tiled.cu", "Nds[ty][tx] = Nd[")
    assert "read" in str(info.value)


def test_shared_out_of_bounds_names_both_subscripts() -> None:
    kernel = """
__global__ void k(float* out) {
    __shared__ float tile[4][8];
    tile[threadIdx.x][0] = 1.0f;
    out[threadIdx.x] = tile[0][0];
}"""
    with pytest.raises(KernelFault) as info:
        run_kernel(kernel, "k", 1, 5, {"out": np.zeros(5, np.float32)}, H100)
    f = info.value.fault
    assert (f.kind, f.array, f.index, f.thread, f.line) == ("out_of_bounds", "tile", 32, (4, 0, 0), 4)
    assert "tile[4][0]" in str(info.value)


def test_guarded_lanes_never_fault() -> None:
    """Threads with i >= n are masked off by the guard and must not be bounds-checked
    (execution.md §4.2 rule 1): 40 threads over a 33-element array."""
    kernel = """
__global__ void k(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] > 0.0f) b[i] = a[i];
}"""
    a = np.arange(1, 34, dtype=np.float32)
    b = np.zeros(33, np.float32)
    run_kernel(kernel, "k", 2, 20, {"a": a, "b": b, "n": 33}, H100)
    np.testing.assert_array_equal(b, a)


def test_launch_limits_name_the_devices_key() -> None:
    k = "__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }"
    args = {"a": np.zeros(4096, np.float32)}
    with pytest.raises(InputError, match=r"1536 threads .*max_threads_per_block.*cc_9_0\.yaml"):
        run_kernel(k, "k", 1, (512, 3), args, H100)
    with pytest.raises(InputError, match=r"block\.z = 65 .*max_block_dim\[2\]"):
        run_kernel(k, "k", 1, (1, 1, 65), args, H100)
    with pytest.raises(InputError, match=r"grid\.y = 65536 .*max_grid_dim\[1\]"):
        run_kernel(k, "k", (1, 65536), 1, args, H100)
    with pytest.raises(InputError, match=r"block\.x = 0"):
        run_kernel(k, "k", 1, 0, args, H100)


def test_shared_memory_limit_names_the_devices_key() -> None:
    """49152 bytes of static shared memory is the CC 9.0 limit; 12289 floats exceed it."""
    k = """__global__ void k(float* a) {
    __shared__ float big[12289];
    big[threadIdx.x] = 0.0f; a[0] = big[0]; }"""
    with pytest.raises(InputError, match=r"49156 bytes .*max_shared_memory_per_block_bytes"):
        run_kernel(k, "k", 1, 32, {"a": np.zeros(1, np.float32)}, H100)


def test_argument_errors_are_one_clear_line() -> None:
    k = "__global__ void k(float* a, int n) { a[threadIdx.x] = n; }"
    with pytest.raises(InputError, match=r"argument a: array dtype float64 .* float32"):
        run_kernel(k, "k", 1, 4, {"a": np.zeros(4), "n": 1}, H100)
    with pytest.raises(InputError, match=r"argument n of kernel 'k' is missing"):
        run_kernel(k, "k", 1, 4, {"a": np.zeros(4, np.float32)}, H100)
    with pytest.raises(InputError, match=r"argument\(s\) m match no parameter"):
        run_kernel(k, "k", 1, 4, {"a": np.zeros(4, np.float32), "n": 1, "m": 2}, H100)
    with pytest.raises(InputError, match=r"n = 4294967296 does not fit .* int"):
        run_kernel(k, "k", 1, 4, {"a": np.zeros(4, np.float32), "n": 2**32}, H100)
    with pytest.raises(InputError, match=r"kernel 'nope' not found .* k"):
        run_kernel(k, "nope", 1, 4, {"a": np.zeros(4, np.float32), "n": 1}, H100)


ptx_only = pytest.mark.skipif(
    not __import__("perfcalc.sim.ptx.nvrtc", fromlist=["x"]).available(),
    reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed",
)


@ptx_only
def test_missing_barrier_is_a_race_on_the_ptx_engine_too() -> None:
    """The same seed kernel compiled: the same race (thread 0 of warp 0 reads what warp 1's
    thread 32 wrote at stride 64: partialSum[32], bytes 128..131) at the same line."""
    with pytest.raises(KernelFault) as info:
        run_reduce("reduce_nosync.cu", engine="ptx")
    f = info.value.fault
    assert f.kind == "shared_race"
    assert f.line == line_of("reduce_nosync.cu", "partialSum[t] += partialSum[t+stride]")
    assert (f.block, f.thread) == ((0, 0, 0), (0, 0, 0))
    assert "bytes 128..131" in str(info.value) and "warp 1" in str(info.value)
    _, _, r = run_reduce("reduce_fixed.cu", engine="ptx")
    assert r.faults == ()


@ptx_only
def test_tiled_matmul_without_its_second_barrier_races_on_the_ptx_engine() -> None:
    w = 32
    a = np.ones(w * w, np.float32)
    with pytest.raises(KernelFault) as info:
        run_kernel(
            TILED_NO_SECOND_SYNC,
            "MatrixMulKernel",
            (2, 2),
            (16, 16),
            {"Md": a, "Nd": a.copy(), "Pd": np.zeros_like(a), "Width": w},
            H100,
            engine="ptx",
        )
    f = info.value.fault
    assert f.kind == "shared_race"
    assert f.line == line_of("matmul_tiled.cu", "Nds[ty][tx] = Nd[")
    assert "write by warp 0 after a read" in str(info.value)


@ptx_only
def test_a_read_after_another_warps_unsynchronised_write_is_a_race_on_the_ptx_engine() -> None:
    """Both accesses are whole-chunk and separable, so the store's shadow tags are deferred
    (races.py: no earlier access of the interval overlaps it); the read of s[t + 32] overlaps
    its bytes, which must bring the tags in: thread 0 (warp 0) reads word 32, written by
    thread 32 of warp 1 with no barrier between (a RAW race, as racecheck reports it)."""
    src = """
    __global__ void k(float* out) {
        __shared__ float s[96];
        int t = threadIdx.x;
        s[t] = t;
        out[t] = s[t + 32];
    }
    """
    with pytest.raises(KernelFault) as info:
        run_kernel(src, "k", 1, 64, {"out": np.zeros(64, np.float32)}, H100, engine="ptx")
    f = info.value.fault
    assert f.kind == "shared_race"
    assert (f.block, f.thread) == ((0, 0, 0), (0, 0, 0))
    assert "read by warp 0 after a write by warp 1" in str(info.value)
    assert "bytes 128..131" in str(info.value)
