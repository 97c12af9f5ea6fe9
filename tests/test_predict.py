"""The analytic model (perfcalc.model.predict) against closed forms derived by hand from the
seeds and reference/memory.md, without running the grid. The execution core's agreement with
these predictions is tested in test_catalog_counts.py."""

import pytest

from perfcalc.errors import InputError
from perfcalc.model.predict import predict
from perfcalc.sim.counters import Counters
from perfcalc.specs.counters import COUNTER_NAMES
from perfcalc.specs.kernels import get_kernel


def p(kernel, cc, **params):
    return predict(get_kernel(kernel), params, cc)


def test_prediction_uses_the_execution_core_counter_names():
    """Issue #4/#5/#10: predicted fields and the simulator's Counters carry the schema's names."""
    sim_fields = set(vars(Counters())) - {"warp_instructions"}
    assert sim_fields == set(COUNTER_NAMES)
    assert tuple(p("copy_offset", "9.0").counters()) == COUNTER_NAMES


@pytest.mark.parametrize("width", [64, 128, 1024])
def test_naive_matmul_cc90_closed_form(width):
    """Naive matmul, 16x16 blocks, CC 9.0 (memory.md 1.6: one request per warp instruction,
    sectors = distinct 32-byte sectors). A warp holds two 16-thread rows. Per k it loads
    Md[Row*W+k] (one word per row: 2 sectors) and Nd[k*W+Col] (16 consecutive floats, 64-byte
    aligned, the same for both rows: 2 sectors). W^2/32 warps x W iterations x 2 loads
    = 2W^3/32 requests at 2 sectors each (the issue's figure), W^3/8 sectors in all (execution.md
    2.2 measured W^3/8 for W=1024). The store writes two 64-byte row pieces: 4 sectors per warp."""
    w = width
    r = p("matmul_naive", "9.0", Width=w, TILE_WIDTH=16)
    assert r.global_load_requests == 2 * w**3 // 32
    assert r.global_load_transactions == 2 * r.global_load_requests == w**3 // 8
    assert r.global_load_bytes == 32 * r.global_load_transactions
    assert r.global_store_requests == w * w // 32
    assert r.global_store_transactions == 4 * r.global_store_requests
    assert r.flops == 2 * w**3 and r.cgma == 1.0  # seed 003: 'The CGMA ratio is just 1'
    assert r.shared_load_requests == 0 and r.barriers == 0 and r.exact


@pytest.mark.parametrize("width", [64, 128, 1024])
def test_tiled_matmul_cc90_closed_form(width):
    """Tiled matmul, TILE_WIDTH 16, CC 9.0. Per phase a warp loads two 16-float row pieces of Md
    and of Nd: 2W^3/(32*16) requests (the issue's figure) at 4 sectors each = W^3/64 sectors
    (execution.md 2.2: W^3/64 for W=1024). Shared: the tile stores are 32 consecutive words
    (1 wavefront); the inner loop reads Mds[ty][k] (two words in different banks) and
    Nds[k][tx] (16 words, both rows alike): 1 wavefront each, no conflicts (memory.md 3.4),
    2 per warp per k: 2 * W^2/32 * W = W^3/16. Barriers: 2 per phase per block."""
    w = width
    r = p("matmul_tiled", "9.0", Width=w, TILE_WIDTH=16)
    assert r.global_load_requests == 2 * w**3 // (32 * 16)
    assert r.global_load_transactions == 4 * r.global_load_requests == w**3 // 64
    assert r.shared_store_requests == r.shared_store_wavefronts == w**3 // 256
    assert r.shared_load_requests == r.shared_load_wavefronts == w**3 // 16
    assert r.bank_conflicts == 0
    assert r.barriers == (w // 16) ** 2 * 2 * (w // 16)
    assert r.global_store_transactions == 4 * (w * w // 32)


def test_seed_000_loads_per_block_and_cgma():
    """Seed 000: 'Each thread block perform 2*256 = 512 float loads from global memory for
    256*(2*16) = 8,192 mul/add operations' for 16x16 tiles; 1024x1024 -> 4096 blocks. Those
    figures are per phase (one Md tile and one Nd tile); a block runs Width/16 = 64 phases."""
    r = p("matmul_tiled", "1.0", Width=1024, TILE_WIDTH=16)
    blocks, phases = 4096, 64
    assert r.global_load_elements == 512 * blocks * phases
    assert r.flops == 8192 * blocks * phases
    assert r.cgma == 16.0


def test_naive_matmul_cc10_half_warps():
    """CC 1.0 (memory.md 1.1), 16x16 blocks: each half-warp is one row. Md[Row*W+k]: all 16
    lanes on one word -> not coalesced -> 16 transactions of 32 B; Nd[k*W+Col]: 16 consecutive
    words from a 64-byte boundary -> one 64-byte transaction. Per warp and k: 4 requests (2 per
    load), 34 transactions, 16*32*2 + 64*2 = 1152 bytes."""
    w = 64
    r = p("matmul_naive", "1.0", Width=w, TILE_WIDTH=16)
    steps = (w * w // 32) * w
    assert r.global_load_requests == 4 * steps
    assert r.global_load_transactions == 34 * steps
    assert r.global_load_bytes == 1152 * steps


def test_naive_matmul_cc20_lines():
    """CC 2.0 with L1 (memory.md 1.3): one request per 4-byte load, one 128-byte line per distinct
    line. Md: two rows -> 2 lines; Nd: 64 bytes in one line -> 1 line. Per warp and k:
    2 requests, 3 transactions, 384 bytes."""
    w = 64
    r = p("matmul_naive", "2.0", Width=w, TILE_WIDTH=16)
    steps = (w * w // 32) * w
    assert (r.global_load_requests, r.global_load_transactions, r.global_load_bytes) == (
        2 * steps,
        3 * steps,
        384 * steps,
    )


@pytest.mark.parametrize("stride", range(1, 33))
def test_copy_stride_cc90_sectors(stride):
    """CC 9.0: a warp reading floats s apart touches min(4s, 32) sectors (stride < 8 words: every
    sector of the 128s-byte span; from 8 on: one per lane). memory.md GV1 (s=1: 1/4/1), GV12
    (s=2: 1/8/2) and GV13 (s=32: 1/32/32) are H100 measurements of this pattern; seed 003
    'a stride of 2 results in a 50% of load/store efficiency'."""
    n = 1024
    r = p("copy_stride", "9.0", n=n, stride=stride)
    assert r.global_load_requests == n // 32
    assert r.global_load_transactions == min(4 * stride, 32) * (n // 32)
    assert r.global_store_transactions == 4 * (n // 32)
    if stride == 2:
        assert n * 4 / r.global_load_bytes == 0.5  # bytes used / bytes moved


def test_copy_stride_partial_warp():
    """n = 1000: 31 full warps and one of 8 lanes; at stride 1 the last warp reads 32 bytes
    (1 sector): 31*4 + 1 = 125 sectors, 32 requests."""
    r = p("copy_stride", "9.0", n=1000, stride=1)
    assert (r.global_load_requests, r.global_load_transactions) == (32, 125)


@pytest.mark.parametrize("offset,sectors", [(0, 4), (1, 5), (7, 5), (8, 4), (16, 4), (17, 5)])
def test_copy_offset_cc90(offset, sectors):
    """Best Practices Guide offsetCopy on V100 (memory.md GV8/GV9, 2.2): offsets that are
    multiples of 8 words -> 4 sectors per warp, otherwise 5; H100 GV3 measured 1/5/2."""
    r = p("copy_offset", "9.0", n=1024, offset=offset)
    assert r.global_load_transactions == sectors * 32 and r.global_load_requests == 32


def test_copy_offset_old_families_follow_seed_002():
    """Seed 002 'Coalescing - misaligned and sequential' per warp: CC 1.0/1.1 = 32 x 32 B
    (7+8+8+8+1); CC 1.2/1.3 = 128 B + 64 B + 32 B (3); CC 2.0 = 2 x 128 B ('Twice expensive').
    Aligned: 1.0 = 2 x 64 B, 1.2 = 2 x 64 B, 2.0 = 1 x 128 B."""
    warps = 32
    for cc, offset, tx, nbytes in [
        ("1.0", 1, 32, 32 * 32),
        ("1.2", 1, 3, 224),
        ("2.0", 1, 2, 256),
        ("1.0", 0, 2, 128),
        ("1.2", 0, 2, 128),
        ("2.0", 0, 1, 128),
    ]:
        r = p("copy_offset", cc, n=1024, offset=offset)
        assert r.global_load_transactions == tx * warps, cc
        assert r.global_load_bytes == nbytes * warps, cc


def test_struct_layouts_cc90():
    """CC 9.0 per full warp (H100 rows of memory.md 2.3): AoS {int; double}: .index GV23 16
    sectors, .value GV22 16 sectors; SoA: int GV1 4 sectors + double GV20 8 sectors; float3 .x
    GV7 12 sectors. Stores of doubles: 8 sectors (GV20 store row)."""
    n, warps = 4096, 128
    aos, soa, f3 = (
        p("aos_struct", "9.0", n=n),
        p("soa_struct", "9.0", n=n),
        p("aos_float3", "9.0", n=n),
    )
    assert (aos.global_load_requests, aos.global_load_transactions) == (2 * warps, 32 * warps)
    assert (soa.global_load_requests, soa.global_load_transactions) == (2 * warps, 12 * warps)
    assert aos.global_store_transactions == soa.global_store_transactions == 8 * warps
    assert (f3.global_load_requests, f3.global_load_transactions) == (warps, 12 * warps)


def test_float3_cc10_is_16_per_half_warp():
    """Seed 000, CC 1.0/1.1: 'non-coalesced float3 memory access, resulting in 16 memory
    transactions' per half-warp."""
    r = p("aos_float3", "1.0", n=1024)
    assert r.global_load_requests == 64 and r.global_load_transactions == 16 * 64


@pytest.mark.parametrize("kernel,wavefronts", [("transpose_shared", 32), ("transpose_padded", 1)])
def test_transposes_cc90(kernel, wavefronts):
    """CC 9.0, n = 128, one warp per tile row: 512 warps. Global reads are rows (4 sectors);
    the shared tile's column read is stride 32 words -> 32 wavefronts (memory.md SV4, H100 32)
    or stride 33 -> 1 (SV5, seed 003 'No bank conflict now!'); conflicts = wavefronts - 1."""
    r = p(kernel, "9.0", n=128)
    assert r.global_load_transactions == 4 * 512 and r.global_store_transactions == 4 * 512
    assert r.shared_load_wavefronts == wavefronts * 512
    assert r.bank_conflicts == (wavefronts - 1) * 512
    assert r.shared_store_wavefronts == 512 and r.barriers == 16


def test_transpose_naive_cc90_store_is_stride_n():
    """Naive transpose writes one float per row, rows 4n bytes apart: 32 sectors per warp, the
    H100 stride-32 store row of memory.md 2.3 ('stride 32 -> 32')."""
    r = p("transpose_naive", "9.0", n=128)
    assert r.global_store_transactions == 32 * 512 and r.global_load_transactions == 4 * 512


@pytest.mark.parametrize("n,block", [(1000, 128), (5000, 256), (4096, 32)])
def test_sequential_reduction_cc90(n, block):
    """Corrected seed-003 reduction, CC 9.0, grid g = ceil(n/block). Loads: ceil(n/32) requests,
    ceil(4n/32) sectors. Steps s = block/2 .. 1: s/32 warps while s >= 32, then warp 0 alone
    (5 steps): g*(block/32 + 4) warp-steps, each 2 shared loads + 1 store of consecutive words
    (1 wavefront each); plus the first store (g*block/32) and thread 0's final read (g).
    Divergence: warp 0 in the 5 steps s < 32 and at t == 0: 6g. Barriers g*log2(block)."""
    g = -(-n // block)
    steps = block.bit_length() - 1
    r = p("reduce_sequential", "9.0", n=n, block=block)
    ws = g * (block // 32 + 4)
    assert r.global_load_requests == -(-n // 32) and r.global_load_transactions == -(-4 * n // 32)
    assert r.shared_load_requests == r.shared_load_wavefronts == 2 * ws + g
    assert r.shared_store_requests == r.shared_store_wavefronts == g * block // 32 + ws
    assert r.bank_conflicts == 0 and r.divergent_branches == 6 * g
    assert r.barriers == g * steps and r.flops == g * (block - 1)
    assert r.global_store_requests == r.global_store_transactions == g


@pytest.mark.parametrize("n,block", [(1000, 128), (5000, 256)])
def test_interleaved_reduction_cc90(n, block):
    """Seed 003's interleaved reduction, CC 9.0: step s has every warp active (lanes t % 2s == 0)
    while 2s <= 32 (5 steps), then block/(2s) warps with lane 0 only: g*(6*block/32 - 1)
    warp-steps. Active lanes are 2s words apart but at most 32/(2s) of them: distinct banks, so
    1 wavefront each (memory.md 3.4) -- the seed's problem with this version is divergence: every
    warp diverges in the first 5 steps, and warp 0 at t == 0: 6*g*block/32 in all."""
    g = -(-n // block)
    ws = g * (6 * block // 32 - 1)
    r = p("reduce_interleaved", "9.0", n=n, block=block)
    assert r.shared_load_requests == r.shared_load_wavefronts == 2 * ws + g
    assert r.shared_store_requests == g * block // 32 + ws
    assert r.divergent_branches == 6 * g * block // 32 and r.bank_conflicts == 0


@pytest.mark.parametrize("n", [1000, 1023, 4096])
def test_convolve_cc90(n):
    """Corrected seed-001 convolve, CC 9.0, g = ceil(n/128): the window reads
    L = min(n+2, 128g) consecutive floats (ceil(L/32) requests, ceil(4L/32) sectors); the halo
    is lanes 0-1 of warp 0 in n//128 blocks (one 8-byte, 512-byte aligned piece: 1 sector each)
    plus lane 0 alone when n+1 is a multiple of 128 (n = 1023); the 3 window reads and the store
    cover the n computing threads: ceil(n/32) warps."""
    g = -(-n // 128)
    L = min(n + 2, 128 * g)
    single = 1 if (n + 1) % 128 == 0 else 0
    halo = n // 128 + single
    r = p("convolve", "9.0", n=n)
    assert r.global_load_requests == -(-L // 32) + halo
    assert r.global_load_transactions == -(-4 * L // 32) + halo
    assert r.shared_load_requests == r.shared_load_wavefronts == 3 * -(-n // 32)
    assert r.global_store_transactions == -(-4 * n // 32) and r.flops == 3 * n and r.barriers == g


def test_model_outside_its_exact_range_says_so():
    """The matmul classes assume Width % 32 == 0 (or 16x16 tiles); Width 24 with 8x8 tiles is a
    valid launch whose warps are not all alike (the execution core differs on CC 1.2)."""
    assert p("matmul_naive", "9.0", Width=48, TILE_WIDTH=16).exact
    r = p("matmul_naive", "9.0", Width=24, TILE_WIDTH=8)
    assert not r.exact and "exact only when" in r.notes[0]


def test_bad_parameters_are_rejected_before_pricing():
    with pytest.raises(InputError, match="multiple of 32"):
        p("transpose_naive", "9.0", n=100)
    with pytest.raises(InputError, match="power of two"):
        p("reduce_interleaved", "9.0", n=100, block=96)


def test_predict_runs_no_grid_and_imports_no_simulator():
    """DESIGN.md: model/ prices through memory/ and never imports sim/; a W = 8192 prediction
    (2^39 multiply-adds if run) is the closed form 2W^3/32 requests."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from perfcalc.model.predict import predict\n"
        "from perfcalc.specs.kernels import get_kernel\n"
        "r = predict(get_kernel('matmul_naive'), {'Width': 8192}, '9.0')\n"
        "assert r.global_load_requests == 2 * 8192**3 // 32, r.global_load_requests\n"
        "assert not [m for m in sys.modules if m.startswith('perfcalc.sim')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
