"""Every catalog kernel run by the execution core: its result passes the NumPy check, its CC 9.0
counters equal closed forms derived here by hand from reference/memory.md sections 1.6 and 3.4
(the H100-measured model), and its counters equal the analytic model's predictions at CC 1.0,
2.0 and 9.0, in total and per source line."""

import functools
import math

import pytest

from perfcalc.errors import InputError
from perfcalc.model.predict import predict
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch
from perfcalc.specs.counters import COUNTER_NAMES, SITE_COUNTER_NAMES
from perfcalc.specs.kernels import catalog, get_kernel, launch_geometry, resolve_params

# (kernel, small params, medium params)
SIZES = [
    ("matmul_naive", {"Width": 32, "TILE_WIDTH": 16}, {"Width": 128, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 32, "TILE_WIDTH": 16}, {"Width": 128, "TILE_WIDTH": 16}),
    ("reduce_interleaved", {"n": 1000, "block": 128}, {"n": 5000, "block": 256}),
    ("reduce_sequential", {"n": 1000, "block": 128}, {"n": 5000, "block": 256}),
    ("convolve", {"n": 1023}, {"n": 5000}),
    ("transpose_naive", {"n": 64}, {"n": 256}),
    ("transpose_shared", {"n": 64}, {"n": 256}),
    ("transpose_padded", {"n": 64}, {"n": 256}),
    ("copy_stride", {"n": 1000, "stride": 3}, {"n": 8192, "stride": 2}),
    ("copy_offset", {"n": 1000, "offset": 1}, {"n": 8192, "offset": 8}),
    ("aos_struct", {"n": 1000}, {"n": 8192}),
    ("soa_struct", {"n": 1000}, {"n": 8192}),
    ("aos_float3", {"n": 1000}, {"n": 8192}),
]
# other shapes the model's classes must also get right (tile edges 8 and 32, widths that are
# multiples of 16 only, a stride past 32 words, a partial last block)
EXTRA = [
    ("matmul_naive", {"Width": 64, "TILE_WIDTH": 8}),
    ("matmul_tiled", {"Width": 64, "TILE_WIDTH": 8}),
    ("matmul_naive", {"Width": 48, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 16, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 64, "TILE_WIDTH": 32}),
    ("copy_stride", {"n": 1000, "stride": 33}),
    ("copy_offset", {"n": 777, "offset": 31, "block": 64}),
]
CASES = [(k, s) for k, small, medium in SIZES for s in (small, medium)]


def cdiv(a, b):
    return -(-a // b)


def sectors(lanes, stride_bytes, size):
    """Distinct 32-byte sectors of `lanes` accesses of `size` bytes at 0, b, 2b, ... from a
    32-byte boundary (memory.md 1.6 rule 2): with b <= 32 the span is covered without gaps, so
    it is the span's sector count; with b > 32 every lane has its own sector."""
    if lanes == 0:
        return 0
    if stride_bytes > 32:
        return lanes
    return (stride_bytes * (lanes - 1) + size - 1) // 32 + 1


def warps_of(n, stride_bytes, size):
    """(requests, sectors) of n consecutive threads in warps of 32, each a stride run."""
    full, rest = divmod(n, 32)
    return cdiv(n, 32), full * sectors(32, stride_bytes, size) + sectors(rest, stride_bytes, size)


def closed_form_90(kernel, q):
    """Expected CC 9.0 counters, by memory.md 1.6 (one request per warp instruction with an
    active lane; transactions = distinct 32-byte sectors; 32 bytes each) and 3.4 (wavefronts =
    max distinct 4-byte words per bank; conflicts = wavefronts - 1 for these full-warp cases).

    * matmul, 16x16 blocks (a warp = two 16-thread rows): naive, per k, Md is one word per row
      (2 sectors) and Nd 16 floats from a 64-byte boundary shared by both rows (2 sectors):
      2W^3/32 requests, W^3/8 sectors. Tiled, per phase, Md and Nd are two 64-byte row pieces
      (4 sectors): W^3/256 requests, W^3/64 sectors; tile stores (32 consecutive words) and the
      k-loop reads (broadcast Mds[ty][k], 16 words of Nds[k]) are 1 wavefront each: W^3/256
      and W^3/16; barriers 2 per phase per block. Stores: two 64-byte pieces, 4 sectors/warp.
    * reductions (g blocks): the load is a run of n floats; sequential step s has s/32 warps
      while s >= 32 then warp 0 (5 steps): g(B/32 + 4) warp-steps; interleaved has every warp
      in the 5 steps with 2s <= 32 then B/(2s) warps: g(6B/32 - 1). Each warp-step reads 2 and
      writes 1 conflict-free shared word set; plus the first store (gB/32) and thread 0's final
      read (g). Divergence: sequential warp 0 in 5 steps + t == 0 (6g); interleaved every warp
      in 5 steps, one per active warp after, + t == 0 (6gB/32).
    * convolve: the window is a run of min(n+2, 128g) floats, the halo one 8-byte piece per
      block with n // 128 pairs plus one lone lane when 128 divides n+1; compute and store
      cover n threads, 3 window reads each (1 wavefront: consecutive words).
    * transposes (n^2/32 warps, one tile row each): row reads 4 sectors; the naive store hits
      32 rows (32 sectors); the 32x32 tile's column read is 32 wavefronts, 32x33's is 1.
    * elementwise kernels: runs of n lanes at a fixed byte stride (`warps_of`), the copy_offset
      run shifted by `offset` words (an extra sector per warp unless the shift is whole
      sectors)."""
    z = dict.fromkeys(COUNTER_NAMES, 0)
    if kernel in ("matmul_naive", "matmul_tiled"):
        w = q["Width"]
        z.update(global_store_requests=w * w // 32, global_store_transactions=w * w // 8, flops=2 * w**3)
        if kernel == "matmul_naive":
            z.update(global_load_requests=2 * w**3 // 32, global_load_transactions=w**3 // 8)
        else:
            z.update(
                global_load_requests=w**3 // 256,
                global_load_transactions=w**3 // 64,
                shared_store_requests=w**3 // 256,
                shared_store_wavefronts=w**3 // 256,
                shared_load_requests=w**3 // 16,
                shared_load_wavefronts=w**3 // 16,
                barriers=w**3 // 2048,
            )
    elif kernel.startswith("reduce_"):
        n, b = q["n"], q["block"]
        g = cdiv(n, b)
        ws = g * (b // 32 + 4) if kernel == "reduce_sequential" else g * (6 * b // 32 - 1)
        req, sec = warps_of(n, 4, 4)
        z.update(
            global_load_requests=req,
            global_load_transactions=sec,
            global_store_requests=g,
            global_store_transactions=g,
            shared_load_requests=2 * ws + g,
            shared_load_wavefronts=2 * ws + g,
            shared_store_requests=g * b // 32 + ws,
            shared_store_wavefronts=g * b // 32 + ws,
            flops=g * (b - 1),
            barriers=g * (b.bit_length() - 1),
            divergent_branches=6 * g if kernel == "reduce_sequential" else 6 * g * b // 32,
        )
    elif kernel == "convolve":
        n = q["n"]
        g = cdiv(n, 128)
        window = min(n + 2, 128 * g)
        halo = n // 128 + (1 if (n + 1) % 128 == 0 else 0)
        req, sec = warps_of(window, 4, 4)
        out_req, out_sec = warps_of(n, 4, 4)
        z.update(
            global_load_requests=req + halo,
            global_load_transactions=sec + halo,
            shared_store_requests=req + halo,
            shared_store_wavefronts=req + halo,
            shared_load_requests=3 * out_req,
            shared_load_wavefronts=3 * out_req,
            global_store_requests=out_req,
            global_store_transactions=out_sec,
            flops=3 * n,
            barriers=g,
            divergent_branches=(window % 32 > 0) + halo + (n % 32 > 0),
        )
    elif kernel.startswith("transpose_"):
        w = q["n"] ** 2 // 32
        z.update(global_load_requests=w, global_load_transactions=4 * w, global_store_requests=w)
        if kernel == "transpose_naive":
            z.update(global_store_transactions=32 * w)
        else:
            col = 32 if kernel == "transpose_shared" else 1
            z.update(
                global_store_transactions=4 * w,
                shared_store_requests=w,
                shared_store_wavefronts=w,
                shared_load_requests=w,
                shared_load_wavefronts=col * w,
                bank_conflicts=(col - 1) * w,
                barriers=q["n"] ** 2 // 1024,
            )
    else:
        n = q["n"]
        loads = {
            "copy_stride": [(4 * q.get("stride", 1), 4)],
            "copy_offset": [(4, 4)],
            "aos_struct": [(16, 4), (16, 8)],
            "soa_struct": [(4, 4), (8, 8)],
            "aos_float3": [(12, 4)],
        }[kernel]
        store = (8, 8) if kernel in ("aos_struct", "soa_struct") else (4, 4)
        for stride, size in loads:
            req, sec = warps_of(n, stride, size)
            if kernel == "copy_offset":  # a run shifted by `offset` words: one more sector
                full, rest = divmod(n, 32)  # per warp unless the shift is whole sectors
                shift = 4 * (q["offset"] % 8)
                sec = full * ((128 + shift + 31) // 32) + ((4 * rest + shift + 31) // 32 if rest else 0)
            z["global_load_requests"] += req
            z["global_load_transactions"] += sec
        z["global_store_requests"], z["global_store_transactions"] = warps_of(n, *store)
        z["flops"] = n if kernel in ("aos_struct", "soa_struct") else 0
        z["divergent_branches"] = 1 if n % 32 else 0
    z["global_load_bytes"] = 32 * z["global_load_transactions"]
    z["global_store_bytes"] = 32 * z["global_store_transactions"]
    return z


@functools.cache
def run(kernel, cc, items):
    spec = get_kernel(kernel)
    return run_catalog_kernel(spec, dict(items), get_arch(cc))


def counters_of(result):
    return {n: getattr(result.counters, n) for n in COUNTER_NAMES}


def test_sizes_cover_the_catalog():
    assert {k for k, _, _ in SIZES} == set(catalog())


@pytest.mark.parametrize(
    "kernel,params",
    CASES,
    ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()),
)
def test_result_check_and_cc90_closed_form(kernel, params):
    done = run(kernel, "9.0", tuple(params.items()))
    assert done.result_check.passed, done.result_check
    assert not done.result.faults
    full = {**get_kernel(kernel).defaults, **params}
    assert counters_of(done.result) == closed_form_90(kernel, full)


@pytest.mark.parametrize("cc", ["1.0", "2.0", "9.0"])
@pytest.mark.parametrize(
    "kernel,params",
    CASES + EXTRA,
    ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()),
)
def test_prediction_equals_simulation(kernel, params, cc):
    """DESIGN.md: predictions are computed without running the grid, then compared with the
    execution core's counts; both price warps through memory/ for the CC."""
    spec = get_kernel(kernel)
    arch = get_arch(cc)
    block = launch_geometry(spec, resolve_params(spec, params))[1]
    if math.prod(block) > arch.max_threads_per_block:
        # 32x32 thread blocks (1024 threads) cannot launch on CC 1.x (512 per block, PG 4.2
        # Table F-2); the core refuses them the way the hardware would
        with pytest.raises(InputError, match="max_threads_per_block"):
            run(kernel, cc, tuple(params.items()))
        return
    done = run(kernel, cc, tuple(params.items()))
    assert done.result_check.passed
    predicted = predict(spec, params, arch)
    assert predicted.exact
    assert counters_of(done.result) == predicted.counters()
    for line in set(done.result.per_site) | set(predicted.per_site):
        sim_site = done.result.per_site.get(line)
        pred_site = predicted.per_site.get(line)
        for name in SITE_COUNTER_NAMES:
            assert getattr(sim_site, name, 0) == getattr(pred_site, name, 0), (line, name)


@pytest.mark.parametrize("stride", range(1, 33))
def test_copy_stride_1_to_32_on_h100_rules(stride):
    """Issue acceptance: copy_stride 1..32 at CC 9.0. A warp's 32 loads s floats apart touch
    min(4s, 32) sectors in one request (memory.md 1.6; H100 rows GV1 s=1: 1/4/1, GV12 s=2: 1/8/2,
    GV13 s=32: 1/32/32); the store stays 4 sectors."""
    done = run("copy_stride", "9.0", (("n", 1024), ("stride", stride)))
    c = done.result.counters
    assert done.result_check.passed
    assert c.global_load_requests == 32 and c.global_load_transactions == 32 * min(4 * stride, 32)
    assert c.global_store_transactions == 32 * 4


@pytest.mark.parametrize("offset", [0, 1, 4, 8, 9, 16, 17, 31, 32])
def test_copy_offset_on_h100_rules(offset):
    """memory.md GV8/GV9 (BPG offsetCopy on V100: multiples of 8 words -> 4 sectors per warp,
    otherwise 5) and GV3 (H100 measured 1/5/2 for a 4-byte shift)."""
    done = run("copy_offset", "9.0", (("n", 1024), ("offset", offset)))
    c = done.result.counters
    assert c.global_load_requests == 32
    assert c.global_load_transactions == 32 * (4 if offset % 8 == 0 else 5)


def test_struct_and_float3_on_h100_rules():
    """Per full warp at CC 9.0 (memory.md 2.3, H100 measured): AoS .index GV23 16 sectors,
    .value GV22 16 sectors; SoA int GV1 4 + double GV20 8; float3 .x GV7 12 sectors."""
    per_warp = {}
    for kernel in ("aos_struct", "soa_struct", "aos_float3"):
        c = run(kernel, "9.0", (("n", 4096),)).result.counters
        per_warp[kernel] = (c.global_load_requests / 128, c.global_load_transactions / 128)
    assert per_warp == {"aos_struct": (2, 32), "soa_struct": (2, 12), "aos_float3": (1, 12)}


def test_transpose_bank_conflicts_on_h100_rules():
    """memory.md SV4 (32x32 column read: 32 wavefronts, H100 measured 32) and SV5 (32x33: 1);
    seed 003: '32-way bank conflicts' and, padded, 'No bank conflict now!'."""
    shared = run("transpose_shared", "9.0", (("n", 64),)).result.counters
    padded = run("transpose_padded", "9.0", (("n", 64),)).result.counters
    warps = 64 * 64 // 32
    assert shared.shared_load_wavefronts == 32 * warps and shared.bank_conflicts == 31 * warps
    assert padded.shared_load_wavefronts == warps and padded.bank_conflicts == 0


@pytest.mark.parametrize("cc,mode", [("2.0", {"cache": "l2"}), ("3.5", {"cache": "l1"}), ("3.5", {"bank_mode": 8})])
def test_prediction_equals_simulation_in_other_cache_and_bank_modes(cc, mode):
    """memory.md 1.3/1.4 (L1 vs L2-only caching on 2.x/3.x) and 3.3 (Kepler's 8-byte banks):
    the model passes the same mode to memory/ as the core. In 8-byte mode the padded transpose's
    odd tile rows cost 2 wavefronts per column read, which its even/odd row classes capture."""
    arch = get_arch(cc)
    for spec in catalog().values():
        done = run_catalog_kernel(spec, None, arch, **mode)
        assert counters_of(done.result) == predict(spec, None, arch, **mode).counters(), spec.name


def _random_cases(count=40, seed=20261121):
    """Seeded random parameters for the kernels whose model claims exactness for every valid
    parameter set (no exact_when): partial warps and blocks, odd strides and offsets, any CC."""
    import numpy as np

    from perfcalc.specs import known_ccs

    rng = np.random.default_rng(seed)
    ccs = known_ccs()
    makers = {
        "copy_stride": lambda: {
            "n": int(rng.integers(1, 700)),
            "stride": int(rng.integers(1, 40)),
            "block": 32 * int(rng.integers(1, 9)),
        },
        "copy_offset": lambda: {
            "n": int(rng.integers(1, 700)),
            "offset": int(rng.integers(0, 70)),
            "block": 32 * int(rng.integers(1, 9)),
        },
        "convolve": lambda: {"n": int(rng.integers(1, 1100))},
        "reduce_interleaved": lambda: {
            "n": int(rng.integers(1, 2000)),
            "block": 2 ** int(rng.integers(5, 10)),
        },
        "reduce_sequential": lambda: {
            "n": int(rng.integers(1, 2000)),
            "block": 2 ** int(rng.integers(5, 10)),
        },
        "aos_struct": lambda: {"n": int(rng.integers(1, 700))},
        "soa_struct": lambda: {"n": int(rng.integers(1, 700))},
        "aos_float3": lambda: {"n": int(rng.integers(1, 700))},
    }
    names = sorted(makers)
    cases = []
    for _ in range(count):
        kernel = names[int(rng.integers(len(names)))]
        cases.append((kernel, makers[kernel](), ccs[int(rng.integers(len(ccs)))]))
    return cases


def test_shared_access_of_idle_warps_costs_nothing():
    """memory.md 3.4: 'Inactive lanes are ignored'; a warp with no active lane issues no request
    and so no wavefront (a regression check: the core once billed such warps in the last block
    of a multi-block launch; the random test below found it). Two blocks of 128 threads,
    n = 224: 7 warps store, the 8th (threads 224-255) has no live lane, so 7 requests and 7
    conflict-free wavefronts."""
    import numpy as np

    from perfcalc.sim import run_kernel

    src = (
        "__global__ void k(float* x, int n)\n{\n    __shared__ float s[128];\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n)\n"
        "        s[threadIdx.x] = x[i];\n}\n"
    )
    c = run_kernel(src, "k", 2, 128, {"x": np.ones(256, np.float32), "n": 224}, get_arch("9.0")).counters
    assert (c.shared_store_requests, c.shared_store_wavefronts) == (7, 7)


@pytest.mark.parametrize("kernel,params,cc", _random_cases())
def test_prediction_equals_simulation_for_random_parameters(kernel, params, cc):
    """Random (seeded) parameters and CCs: the warp classes hold for every valid launch."""
    spec = get_kernel(kernel)
    arch = get_arch(cc)
    if math.prod(launch_geometry(spec, resolve_params(spec, params))[1]) > arch.max_threads_per_block:
        pytest.skip(f"block larger than CC {cc} launches (max_threads_per_block)")
    done = run_catalog_kernel(spec, params, arch)
    assert done.result_check.passed
    assert counters_of(done.result) == predict(spec, params, arch).counters()
