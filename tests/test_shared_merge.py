"""ptxas's merge of scalar shared loads into vector loads (sim/ptx/shared_merge.py; issues #31,
#34): a register tile's `ld.shared.f32` at [r], [r+4], [r+8], [r+12] is one LDS.128 where r is
provably 16-byte aligned, and is counted as one.

The reference is the H100 machine's own toolchain (benchmarks/hw/lds_vectorization_h100/: the
PTX nvcc 13.0 wrote for the example GEMM at two points of its sweep and for HeCBench's aidw, and
the SASS ptxas made of it): merged, each PTX has as many vector loads of each width as its SASS
has LDS.64 and LDS.128, and as many scalar ones as plain LDS. The rule's edges are checked on
hand-written PTX.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

from perfcalc.sim.ptx.contract import contract
from perfcalc.sim.ptx.parse import parse_module
from perfcalc.sim.ptx.shared_merge import merged_shared_loads

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw" / "lds_vectorization_h100"


def _layout(module, fn) -> dict[str, int]:
    """Static shared variables at their alignment in declaration order (sim/ptx/run.py's layout)."""
    offsets, at = {}, 0
    for v in [*module.variables, *fn.variables]:
        if v.space == "shared" and not v.extern:
            at = -(-at // max(v.align, 1)) * max(v.align, 1)
            offsets[v.name] = at
            at += v.size
    return offsets


def _shared_loads(ptx: str) -> collections.Counter[str]:
    """How many shared loads of each width the merges leave: a merge's first load counts as its
    vector (v2 or v4), the others as none, an unmerged load as a scalar."""
    module = parse_module(ptx)
    found: collections.Counter[str] = collections.Counter()
    for fn in module.functions.values():
        body = contract(fn)
        merged = merged_shared_loads(body, fn.labels, _layout(module, fn))
        for k, i in enumerate(body):
            if i.base == "ld" and "shared" in i.parts:
                width = merged.get(k)
                if width is None:
                    found["scalar"] += 1
                elif width:
                    found["v2" if width == 8 else "v4"] += 1
    return found


def _sass_loads(sass: str) -> collections.Counter[str]:
    widths = collections.Counter(
        m.group(1) or "" for m in re.finditer(r"\bLDS(?:\.U8|\.S8|\.U16|\.S16)?(\.64|\.128)?\b", sass)
    )
    return collections.Counter({"scalar": widths[""], "wide64": widths[".64"], "wide128": widths[".128"]})


@pytest.mark.parametrize("name", ["gemm_tiled_BM64_BN64_BK16_TM4_TN4", "gemm_tiled_BM64_BN32_BK8_TM4_TN2", "aidw"])
def test_merged_loads_are_the_h100_sass_loads(name):
    merged = _shared_loads((HW / f"{name}.ptx").read_text())
    sass = _sass_loads((HW / f"{name}.sass.txt").read_text())
    f32 = merged  # every load here is 4 bytes: v2 = LDS.64, v4 = LDS.128
    assert (f32["scalar"], f32["v2"], f32["v4"]) == (sass["scalar"], sass["wide64"], sass["wide128"])


def _entry(body: str, shared: str = ".shared .align 16 .b8 tile[1024];") -> str:
    return f"""
.version 8.0
.target sm_90
.address_size 64
{shared}
.visible .entry k(.param .u64 k_p)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .f32 %f<16>;
{body}
}}
"""


_TILE_ROW = """
    mov.u32 %r1, %tid.y;
    mov.u32 %r2, tile;
    shl.b32 %r3, %r1, 4;
    add.s32 %r4, %r2, %r3;
"""


def test_four_loads_from_an_aligned_row_are_one_v4():
    # r4 = tile + 16 * tid.y: a multiple of 16, so [r4..r4+12] is one 16-byte load
    body = _TILE_ROW + "".join(f"    ld.shared.f32 %f{k}, [%r4+{4 * k}];\n" for k in range(4)) + "    ret;"
    assert _shared_loads(_entry(body)) == {"v4": 1}


def test_a_row_only_4_byte_aligned_is_not_merged():
    # r4 = tile + 4 * tid.y: only a multiple of 4, so ptxas cannot prove the 8 or 16 bytes
    body = _TILE_ROW.replace("shl.b32 %r3, %r1, 4", "shl.b32 %r3, %r1, 2")
    body += "".join(f"    ld.shared.f32 %f{k}, [%r4+{4 * k}];\n" for k in range(4)) + "    ret;"
    assert _shared_loads(_entry(body)) == {"scalar": 4}


def test_a_store_between_keeps_the_loads_apart():
    # a store to shared memory between the second and third load may alias them: the first two
    # merge (an aligned pair), the last two too, not all four
    loads = [f"    ld.shared.f32 %f{k}, [%r4+{4 * k}];\n" for k in range(4)]
    body = _TILE_ROW + loads[0] + loads[1] + "    st.shared.f32 [%r4+64], %f9;\n" + loads[2] + loads[3] + "    ret;"
    assert _shared_loads(_entry(body)) == {"v2": 2}


def test_a_misaligned_first_offset_merges_what_it_can():
    # offsets 4, 8, 12, 16: 4 is not a multiple of 8; 8 and 12 are an aligned pair
    body = _TILE_ROW + "".join(f"    ld.shared.f32 %f{k}, [%r4+{4 * k + 4}];\n" for k in range(4)) + "    ret;"
    assert _shared_loads(_entry(body)) == {"scalar": 2, "v2": 1}


def test_a_register_tile_is_counted_as_one_request_a_row_on_the_ptx_engine():
    """nvcc writes 64 `ld.shared.f32` a thread ([r], [r+4], [r+8], [r+12] for each of 16 rows,
    r = As + 16 * tx): 16 merged 16-byte loads from CC 7.0 on, 64 scalar ones before; results
    unchanged. The GPU (an H200, sm_90 as the H100; benchmarks/hw/shared_merge_h200/) issues 16
    LDS.128 with 32 wavefronts and no bank conflict for the same kernel and data."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    import numpy as np

    a = np.arange(1024, dtype=np.float32)
    want = a.reshape(16, 64).sum(axis=0)
    source = (HW.parent / "shared_merge_probe.cu").read_text()  # the kernel the GPU ran, with its main()
    for cc, requests in (("9.0", 16), ("6.0", 64)):
        out = np.zeros(64, dtype=np.float32)
        r = run_kernel(source, "tileDot", 1, 16, {"a": a, "out": out}, cc, engine="ptx")
        assert r.counters.shared_load_requests == requests
        assert np.array_equal(out, want)
        if cc == "9.0":
            assert (r.counters.shared_load_wavefronts, r.counters.bank_conflicts) == (32, 0)


def test_a_merge_is_priced_at_its_lowest_offset_whatever_the_order_of_its_loads():
    """surfel's tile kernel loads [r+12] before [r+8]: the pair (8, 12) is one 8-byte access at
    r+8, priced there (at r+12 it would be a misaligned 8-byte access)."""
    from perfcalc.sim.ptx.shared_merge import merged_shared_loads

    body = _TILE_ROW + "    ld.shared.f32 %f1, [%r4+12];\n    ld.shared.f32 %f2, [%r4+8];\n    ret;"
    module = parse_module(_entry(body))
    fn = next(iter(module.functions.values()))
    merged = merged_shared_loads(contract(fn), fn.labels, _layout(module, fn))
    assert sorted(merged.items()) == [(4, 0), (5, 8)]


def test_a_correctly_rounded_division_between_keeps_a_pair_apart():
    """surfel's tile kernel loads [r+48], divides (div.rn: FCHK and a slow-path call, which ends
    the SASS's block), then loads [r+52]: two LDS in its SASS, not an LDS.64."""
    pair = "    ld.shared.f32 %f1, [%r4];\n{between}    ld.shared.f32 %f2, [%r4+4];\n    ret;"
    assert _shared_loads(_entry(_TILE_ROW + pair.format(between=""))) == {"v2": 1}
    divide = "    div.rn.f32 %f3, %f1, %f5;\n"
    assert _shared_loads(_entry(_TILE_ROW + pair.format(between=divide))) == {"scalar": 2}


def test_loads_of_one_width_merge_whatever_their_types():
    """CUB's temp storage in kurtosis holds a u32 beside f32s: `ld.shared.u32 [s+64]`... its SASS
    reads an f32 and the u32 after it as one LDS.64."""
    body = _TILE_ROW + "    ld.shared.f32 %f1, [%r4];\n    ld.shared.u32 %r9, [%r4+4];\n    ret;"
    assert _shared_loads(_entry(body)) == {"v2": 1}


@pytest.mark.parametrize("program", ["surfel-cuda", "kurtosis-cuda"])
def test_merged_loads_are_the_sass_loads_of_calibration_programs(program):
    """HeCBench's surfel and kurtosis (calibration half) for sm_90 (benchmarks/hw/remaining_sass/):
    for every kernel, the merges leave as many loads of each width as the SASS has LDS,
    LDS.64 and LDS.128."""
    import tarfile

    with tarfile.open(HW.parent / "remaining_sass" / "listings.tar.xz") as tar:
        ptx = tar.extractfile(f"remaining_sass/{program}_main.ptx").read().decode()  # type: ignore[union-attr]
        sass = tar.extractfile(f"remaining_sass/{program}_main.sass.txt").read().decode()  # type: ignore[union-attr]
    module = parse_module(ptx)
    kernels = dict(re.findall(r"Function : (\S+)(.*?)(?=Function :|\Z)", sass, re.S))
    for name, fn in module.functions.items():
        body = contract(fn)
        merged = merged_shared_loads(body, fn.labels, _layout(module, fn))
        widths: collections.Counter[int] = collections.Counter()
        for k, i in enumerate(body):
            if i.base == "ld" and "shared" in i.parts and merged.get(k) != 0:
                widths[merged.get(k) or 4] += 1  # these kernels' shared loads are 4-byte scalars
        found = _sass_loads(kernels[name])
        assert (widths[4], widths[8], widths[16]) == (found["scalar"], found["wide64"], found["wide128"]), name


def _merges(ptx: str) -> tuple[dict[int, int], dict[int, int], list]:
    """The load and store merges of the first function, on its if-converted body (as the engine)."""
    from perfcalc.sim.ptx.if_conversion import if_convert
    from perfcalc.sim.ptx.shared_merge import merged_shared_stores

    module = parse_module(ptx)
    fn = next(iter(module.functions.values()))
    body = if_convert(fn, contract(fn))
    layout = _layout(module, fn)
    return merged_shared_loads(body, fn.labels, layout), merged_shared_stores(body, fn.labels, layout), body


def _store_widths(ptx: str) -> collections.Counter[str]:
    _, stores, body = _merges(ptx)
    found: collections.Counter[str] = collections.Counter()
    for k, i in enumerate(body):
        if i.base == "st" and "shared" in i.parts:
            width = stores.get(k)
            if width is None:
                found["scalar"] += 1
            elif width:
                found[f"{width}B"] += 1
    return found


_PAIR = "    st.shared.f32 [%r4], %f1;\n{between}    st.shared.f32 [%r4+4], %f2;\n    ret;"


def test_two_stores_to_an_aligned_pair_are_one_8_byte_store():
    """scan's `temp[2*thid] = ...; temp[2*thid+1] = ...` is one STS.64 in its SASS."""
    assert _store_widths(_entry(_TILE_ROW + _PAIR.format(between=""))) == {"8B": 1}


@pytest.mark.parametrize(
    "between",
    [
        "    ld.shared.f32 %f9, [%r4+64];\n",  # a shared read between may read the first store's word
        "    st.shared.f32 [%r6], %f9;\n",  # a store through another base may alias the pair
        "    st.f32 [%rd1], %f9;\n",  # so may a generic one
        "    bar.sync 0;\n",
        "    add.f32 %f1, %f1, %f3;\n",  # the first store's value changes before the last store
        "    add.s32 %r4, %r4, 8;\n",  # so does the base
    ],
)
def test_what_keeps_a_store_pair_apart(between):
    ptx = _entry(_TILE_ROW + _PAIR.format(between=between)).replace(
        ".reg .f32 %f<16>;", ".reg .f32 %f<16>;\n    .reg .b64 %rd<4>;"
    )
    assert set(_store_widths(ptx)) == {"scalar"}  # the pair's two (and a store between) unmerged


def test_a_global_store_between_keeps_no_pair_apart():
    """blelloch's last two shared loads are one LDS.64 in its SASS though the PTX stores the first
    to global memory between them; a global store between two shared stores does not alias them."""
    ptx = _entry(_TILE_ROW + _PAIR.format(between="    st.global.f32 [%rd1], %f9;\n")).replace(
        ".reg .f32 %f<16>;", ".reg .f32 %f<16>;\n    .reg .b64 %rd<4>;"
    )
    assert _store_widths(ptx) == {"8B": 1}
    loads = "    ld.shared.f32 %f1, [%r4];\n    st.global.f32 [%rd1], %f1;\n    ld.shared.f32 %f2, [%r4+4];\n    ret;"
    assert _shared_loads(
        _entry(_TILE_ROW + loads).replace(".reg .f32 %f<16>;", ".reg .f32 %f<16>;\n    .reg .b64 %rd<4>;")
    ) == {"v2": 1}


def test_guarded_pairs_merge_under_one_guard_only():
    """An if-converted arm's pair is `@!P1 LDS.64` / `@!P6 STS.64` in scan's and blelloch's SASS;
    two accesses under different guards stay two."""
    same = _TILE_ROW + "    @%p1 st.shared.f32 [%r4], %f1;\n    @%p1 st.shared.f32 [%r4+4], %f2;\n    ret;"
    assert _store_widths(_entry(same)) == {"8B": 1}
    other = same.replace("@%p1 st.shared.f32 [%r4+4]", "@%p2 st.shared.f32 [%r4+4]")
    assert _store_widths(_entry(other)) == {"scalar": 2}
    negated = same.replace("@%p1 st.shared.f32 [%r4+4]", "@!%p1 st.shared.f32 [%r4+4]")
    assert _store_widths(_entry(negated)) == {"scalar": 2}


def test_16_bit_stores_pair_but_16_bit_loads_do_not():
    """scan<short>'s SASS stores its two shorts as one 32-bit STS and loads them as two LDS.U16."""
    ptx = _entry(
        _TILE_ROW
        + "    st.shared.u16 [%r4], %rs1;\n    st.shared.u16 [%r4+2], %rs2;\n"
        + "    ld.shared.u16 %rs3, [%r4];\n    ld.shared.u16 %rs4, [%r4+2];\n    ret;"
    ).replace(".reg .f32 %f<16>;", ".reg .f32 %f<16>;\n    .reg .b16 %rs<8>;")
    loads, stores, _ = _merges(ptx)
    assert sorted(stores.values()) == [0, 4] and loads == {}


@pytest.mark.parametrize(
    "member", ["scan-cuda_main", "particles-cuda_bitonicSort", "particles-cuda_particles", "adamw-cuda_main"]
)
def test_merged_loads_and_stores_are_the_sass_accesses_of_calibration_programs(member):
    """HeCBench's scan (40 kernels: int, long, short and char scans of five sizes), particles and
    adamw (whose two shared floats side by side are one STS.64), calibration half, for sm_90
    (benchmarks/hw/remaining_sass/): on the if-converted body, every kernel keeps as many shared
    loads and stores of each width as its SASS has LDS(.U16, .64, .128) and STS(.U16, .64, .128)."""
    import tarfile

    with tarfile.open(HW.parent / "remaining_sass" / "listings.tar.xz") as tar:
        ptx = tar.extractfile(f"remaining_sass/{member}.ptx").read().decode()  # type: ignore[union-attr]
        sass = tar.extractfile(f"remaining_sass/{member}.sass.txt").read().decode()  # type: ignore[union-attr]
    from perfcalc.sim.ptx.if_conversion import if_convert
    from perfcalc.sim.ptx.shared_merge import merged_shared_stores

    scalar = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f64": 8, "u64": 8, "s64": 8, "b64": 8}
    sass_widths = {"": 4, ".U8": 1, ".S8": 1, ".U16": 2, ".S16": 2, ".64": 8, ".128": 16}
    module = parse_module(ptx)
    kernels = dict(re.findall(r"Function : (\S+)(.*?)(?=Function :|\Z)", sass, re.S))
    assert kernels
    for name, fn in module.functions.items():
        body = if_convert(fn, contract(fn))
        layout = _layout(module, fn)
        for op, merges, sass_op in (("ld", merged_shared_loads, "LDS"), ("st", merged_shared_stores, "STS")):
            merged = merges(body, fn.labels, layout)
            ours: collections.Counter[int] = collections.Counter()
            for k, i in enumerate(body):
                if i.base == op and "shared" in i.parts and merged.get(k) != 0:
                    ours[merged.get(k) or scalar.get(i.parts[-1], 4)] += 1
            theirs = collections.Counter(
                sass_widths[m.group(1) or ""]
                for m in re.finditer(rf"\b{sass_op}(\.U8|\.S8|\.U16|\.S16|\.64|\.128)?\b", kernels[name])
            )
            assert ours == theirs, (name, op)


def _probe_counters() -> list[dict[str, int]]:
    """Nsight Compute's counters per launch of store_merge_probe.cu on the H100, in launch order."""
    import csv

    text = (HW.parent / "store_merge_h100" / "probe_ncu.csv").read_text()
    rows = list(csv.DictReader(text[text.index('"ID"') :].splitlines()))
    launches: dict[int, dict[str, int]] = {}
    for row in rows:
        launches.setdefault(int(row["ID"]), {})[row["Metric Name"]] = int(row["Metric Value"].replace(",", ""))
    return [launches[i] for i in sorted(launches)]


def test_store_pairs_and_a_generic_load_count_as_the_h100_counts_them():
    """store_merge_probe.cu's four launches, run on the H100 under Nsight Compute
    (benchmarks/hw/store_merge_h100/): `pairs` stores two adjacent ints a thread as one STS.64 (4
    store instructions, 8 wavefronts, no conflict); `guardedPairs` the same pair under `if (t <
    40)`, one predicated STS.64 every warp issues; `pick` reads the shared tile through a generic
    pointer (an LD: no shared-load instruction, 2 shared wavefronts), then global memory. Before
    the store merge the engine counted 8 store instructions and 16 wavefronts for `pairs`."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    import numpy as np

    source = (HW.parent / "store_merge_probe.cu").read_text()  # the kernels the GPU ran
    printed = (HW.parent / "store_merge_h100" / "probe_output.txt").read_text().splitlines()
    ints = np.arange(256, dtype=np.int32)
    floats = (np.arange(64) / np.float32(63)).astype(np.float32)
    runs = []
    for kernel in ("pairs", "guardedPairs"):
        out = np.zeros(128, dtype=np.int32)
        runs.append((run_kernel(source, kernel, 1, 128, {"in": ints, "out": out}, "9.0", engine="ptx"), out))
    for from_tile in (1, 0):
        out = np.zeros(64, dtype=np.float32)
        args = {"in": floats, "out": out, "from_tile": np.int32(from_tile)}
        runs.append((run_kernel(source, "pick", 1, 64, args, "9.0", engine="ptx"), out))
    for (result, out), gpu, line in zip(runs, _probe_counters(), printed, strict=True):
        c = result.counters
        assert c.shared_store_requests == gpu["smsp__inst_executed_op_shared_st.sum"]
        assert c.shared_store_wavefronts == gpu["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
        assert c.shared_load_requests == gpu["smsp__inst_executed_op_shared_ld.sum"]
        assert c.shared_load_wavefronts == gpu["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        assert c.global_load_requests == gpu["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        assert c.bank_conflicts == (
            gpu["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
            + gpu["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
        )
        assert np.array_equal(out, np.array(line.split(), dtype=out.dtype))


def test_two_shared_variables_side_by_side_are_one_base():
    """adamw's `absmax_exp` and `absmax_sq` (4-byte floats at 32 and 36 of the block's shared
    memory) are stored as one STS.64 at 32: a variable's address is its place in the layout."""
    shared = ".shared .align 8 .b8 pad[32];\n.shared .align 4 .f32 first;\n.shared .align 4 .f32 second;"
    body = "    st.shared.f32 [first], %f1;\n    st.shared.f32 [second], %f2;\n    ret;"
    assert _store_widths(_entry(body, shared)) == {"8B": 1}
    # shifted by 4 bytes the pair starts at 36, not a multiple of 8: two stores
    shifted = shared.replace("pad[32]", "pad[36]")
    assert _store_widths(_entry(body, shifted)) == {"scalar": 2}
