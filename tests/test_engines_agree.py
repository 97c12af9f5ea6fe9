"""Both engines on every catalog kernel (issue #8 point 9): the counters they disagree on at the
default parameters are exactly those kernels.yaml explains under `engines_differ`, so an
explanation can neither go missing nor go stale (the counters only the PTX engine counts, as
specs/counters.py lists them, aside)."""

from __future__ import annotations

import pytest

from perfcalc.sim.ptx import nvrtc
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch
from perfcalc.specs.counters import COUNTER_NAMES, PTX_ONLY_COUNTER_NAMES
from perfcalc.specs.kernels import catalog

pytestmark = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")


@pytest.mark.parametrize("name", sorted(catalog()))
def test_engines_differ_only_where_the_catalog_says_why(name):
    spec = catalog()[name]
    arch = get_arch("9.0")
    source = run_catalog_kernel(spec, None, arch)
    ptx = run_catalog_kernel(spec, None, arch, engine="ptx")
    assert source.result_check.passed and ptx.result_check.passed
    differ = {
        n
        for n in COUNTER_NAMES
        if n not in PTX_ONLY_COUNTER_NAMES and getattr(source.result.counters, n) != getattr(ptx.result.counters, n)
    }
    assert differ == {counter for counter, _why in spec.engines_differ}
    assert all(getattr(source.result.counters, n) == 0 for n in PTX_ONLY_COUNTER_NAMES)


def test_matmul_engine_both_side_by_side():
    """`perfcalc matmul --engine both`: each variant counted by both engines; the counters they
    disagree on are those kernels.yaml explains (the tiled kernel's row loads, which ptxas
    merges into 16-byte loads), and the source engine's counts are the ones compared with the
    model (PTX-only counters aside)."""
    import json

    from typer.testing import CliRunner

    from perfcalc.cli import app
    from perfcalc.model.matmul import CATALOG_KERNELS

    res = CliRunner().invoke(
        app, ["matmul", "--width", "32", "--gpu", "h100-sxm", "--engine", "both", "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    for row in json.loads(res.stdout)["rows"]:
        assert row["simulated_by"] == "source"
        assert set(row["engine_counts"]) == {"source", "ptx"}
        ptx, source = (
            {k: v for k, v in row["engine_counts"][e].items() if k not in PTX_ONLY_COUNTER_NAMES}
            for e in ("ptx", "source")
        )
        explained = {c for c, _why in catalog()[CATALOG_KERNELS[row["variant"]]].engines_differ}
        assert {k for k in source if ptx[k] != source[k]} == explained
        assert source == {k: v for k, v in row["simulated"].items() if k not in PTX_ONLY_COUNTER_NAMES}
        assert row["result_check"] == "pass"
