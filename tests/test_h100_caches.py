"""The L1/L2 model against an H100's cache and DRAM counters (benchmarks/hw/caches_run).

Catalog launches of benchmarks/hw/caches_cases.py, profiled on an NVIDIA H100 80GB HBM3 under
Nsight Compute 2025.3.1 with cold caches (ncu's default cache control). Here the C-subset engine
runs the same launches (the cache model sees the same stream from either engine:
test_cache_model.py) with the model built from products.yaml's H100 SXM and the occupancy of the
driver's register count (caches_run/registers.json). benchmarks/hw/caches_compare.py does all 89
launches; these are the catalog ones that run in seconds.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from perfcalc.analysis.caches import cache_model
from perfcalc.model.occupancy import OccupancyInputs
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
sys.path.insert(0, str(HW))
from caches_cases import CATALOG_CASES, case_name  # noqa: E402
from caches_compare import measured, read_ncu  # noqa: E402

RUN = HW / "caches_run"
NCU = read_ncu(RUN / "ncu.csv")
REGISTERS = json.loads((RUN / "registers.json").read_text())
# launch order of the run: the 72 corpus launches, then CATALOG_CASES
FIRST_CATALOG = len(NCU) - len(CATALOG_CASES)
QUICK = [
    c
    for c in CATALOG_CASES
    if c[0]
    in (
        "copy_stride",
        "copy_offset",
        "transpose_naive",
        "transpose_shared",
        "aos_struct",
        "soa_struct",
        "reduce_interleaved",
        "convolve",
    )
]


@pytest.mark.parametrize("name, params", QUICK, ids=[case_name(*c) for c in QUICK])
def test_catalog_caches_match_the_h100(name, params):
    hw = measured(NCU[FIRST_CATALOG + CATALOG_CASES.index((name, params))])
    spec = get_kernel(name)
    p = resolve_params(spec, params)
    _grid, block, dyn = launch_geometry(spec, p)
    arch = get_arch("9.0")
    # the kernel's static shared memory (occupancy needs it before the modelled run)
    static = run_catalog_kernel(spec, params, arch).result.launch.static_shared_bytes
    occ = OccupancyInputs(math.prod(block), REGISTERS[case_name(name, params)], static, dyn)
    model = cache_model(get_gpu("h100-sxm"), arch, occ)
    run = run_catalog_kernel(spec, params, arch, caches=model)
    assert run.result_check.passed
    rep = run.result.caches
    if hw["l1"] is not None:
        assert rep.l1_load_hit_rate == pytest.approx(hw["l1"], abs=0.02)
    assert rep.l2_hit_rate == pytest.approx(hw["l2"], abs=0.05)
    # within 10 %: transpose_naive's 4-byte stores to a new line per lane make the H100 read
    # 7 % more than its input and write 306 KB during the kernel, which the model does not
    # predict (partial sectors evicted from L2; the cause is not established). The others: 1 %.
    assert rep.dram_bytes_read == pytest.approx(hw["dram_r"], rel=0.10)
    # written data stays in the 50 MB L2: DRAM writes within 10 % of the bytes stored
    assert abs(rep.dram_bytes_written - hw["dram_w"]) <= 0.1 * rep.l2_bytes_written
