"""What to change, with the number behind it, in `run`, `app`, their JSON and the library's results
(issue 35). Expected values are derived from the kernels:

- transpose_naive (n = 128, 32 x 32 blocks) reads a row per warp (32 consecutive floats: 128 bytes,
  4 sectors of 32 bytes) and writes a column (32 rows of a row-major matrix: 32 sectors); a warp
  of consecutive 4-byte words needs 4 (CUDA C Best Practices Guide, "Coalesced Access to Global
  Memory"). So the advice names 32 sectors against 4, and the stores' ratio is 32.
- vector_add's loads and stores are consecutive floats: at most 4 sectors per request (1000
  floats: the last warp's 8 lanes take 1), so there is no coalescing advice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import perfcalc
from perfcalc.cli import app
from perfcalc.sim.ptx import toolchain

runner = CliRunner()
COALESCING = "touch up to 32 sectors per request where a warp of consecutive 4-byte words needs 4"


def _json(*argv: str) -> dict:
    done = runner.invoke(app, [*argv, "-f", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_run_on_a_product_says_what_to_change_with_its_numbers():
    doc = _json("run", "transpose_naive", "--gpu", "h100-sxm")
    advice = doc["advice"]
    assert advice["global_load_sectors_per_request"] == 4.0
    assert advice["global_store_sectors_per_request"] == 32.0
    assert any(COALESCING in line for line in advice["what_to_change"])
    # the bound's line carries the bound's term and the whole time, as the time table does
    bound_line = [line for line in advice["what_to_change"] if line.startswith(doc["bound_detail"])]
    assert bound_line and re.search(r"\(\d[\d.]* [mµn]?s of \d[\d.]* [mµn]?s\)", bound_line[0]), bound_line
    text = runner.invoke(app, ["run", "transpose_naive", "--gpu", "h100-sxm", "--table", "advice"]).stdout
    assert "what to change on h100-sxm" in text and COALESCING in text


def test_run_without_a_product_has_the_same_keys_null():
    """One shape whatever the options: the time fields and the advice are null, not absent."""
    on_product = _json("run", "transpose_naive", "--gpu", "h100-sxm")
    bare = _json("run", "transpose_naive")
    assert list(bare) == list(on_product)
    assert bare["advice"] is None and bare["predicted_time_s"] is None and bare["time"] is None


def test_several_products_each_get_their_advice():
    done = runner.invoke(app, ["run", "transpose_naive", "--gpu", "h100-sxm", "--gpu", "a100", "--table", "advice"])
    assert done.exit_code == 0, done.output
    lines = [line for line in done.stdout.splitlines() if COALESCING in line]
    assert [line.split()[0] for line in lines] == ["h100-sxm", "a100"]


def test_the_library_result_carries_the_advice():
    run = perfcalc.analyze(perfcalc.CatalogKernel("transpose_naive"), perfcalc.target(gpu="h100-sxm")).run
    assert run.advice is not None and run.advice.global_store_sectors_per_request == 32.0
    assert (
        run.to_dict()["advice"]["what_to_change"] == json.loads(json.dumps(run.to_dict()))["advice"]["what_to_change"]
    )
    assert perfcalc.analyze(perfcalc.CatalogKernel("transpose_naive"), perfcalc.target("9.0")).run.advice is None


@pytest.mark.skipif(toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler")
@pytest.mark.usefixtures("ptx_cache")
def test_app_says_what_to_change_per_kernel(tmp_path: Path):
    data = Path(__file__).parent / "data" / "cuda_app"
    out = tmp_path / "app.json"
    done = runner.invoke(
        app, ["app", str(data / "vector_add.cu"), "--gpu", "h100-sxm", "-f", "json", "-o", str(out), "--", "1000"]
    )
    assert done.exit_code == 0, done.output
    (launch,) = json.loads(out.read_text())["launches"]
    advice = launch["advice"]
    assert advice["global_load_sectors_per_request"] == (2 * (31 * 4 + 1)) / (2 * 32)  # 32 warps, 2 loads each
    assert not any(COALESCING[:20] in line for line in advice["what_to_change"])
    assert advice["what_to_change"][-1].startswith(launch["bound"]) or launch["bound"] in advice["what_to_change"][-1]
    table = runner.invoke(
        app, ["app", str(data / "vector_add.cu"), "--gpu", "h100-sxm", "--table", "advice", "--", "1000"]
    )
    assert table.exit_code == 0 and "What to change in each kernel" in table.stdout and "add" in table.stdout
