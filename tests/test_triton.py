"""`perfcalc run --triton FILE.py::KERNEL` (issue 33 point 4): Triton kernels written here
(tests/data/triton/) compiled without a GPU and run on the PTX engine.

Expected values: a GPU's outputs and Nsight Compute counters for the cubins the installed
Triton makes, launched with the same inputs (benchmarks/hw/triton_prepare.py, triton_on_h100.sh;
raw files in benchmarks/hw/triton_run/ for Triton 3.9.0 on an H100, triton_run_h200/ for 3.8.0
on an H200: each run's triton.txt), NumPy references, and Triton's JIT specialisation rules.
Skipped, with the reason, where Triton is not installed (it is an optional extra:
perfcalc[triton]), and the GPU comparisons where no run used the installed Triton's code.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcalc.cli import app as cli
from perfcalc.errors import InputError
from perfcalc.sim.ptx.triton_run import triton_available

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "benchmarks" / "hw"
TRITON = ROOT / "tests" / "data" / "triton"
needs_triton = pytest.mark.skipif(
    not triton_available(), reason="Triton is not installed (pip install perfcalc[triton])"
)
sys.path.insert(0, str(HW))


def _gpu_run() -> Path | None:
    """The GPU run of the installed Triton's code (another version compiles other code)."""
    if not triton_available():
        return None
    import triton
    from triton_compare import made_by

    return next((r for r in (HW / "triton_run", HW / "triton_run_h200") if made_by(r) == triton.__version__), None)


RUN = _gpu_run()
needs_gpu_run = pytest.mark.skipif(
    RUN is None, reason="no GPU run of this Triton version's code is kept (benchmarks/hw/triton_run*/triton.txt)"
)


@functools.cache  # the cases' inputs take ~6 s to make: once per session, not once per test
def _cases() -> tuple[dict, ...]:
    from triton_prepare import cases

    return tuple(cases())


def _case(name: str) -> dict:
    return next(c for c in _cases() if c["name"] == name)


@functools.cache  # outputs and counters are read from one run per kernel (CI's time: ~5 s a run)
def _run(name: str) -> tuple[dict, object]:
    from perfcalc.sim.ptx.triton_run import run_triton
    from perfcalc.specs import get_arch

    case = _case(name)
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case["args"].items()}
    result = run_triton(TRITON / case["file"], case["kernel"], case["grid"], None, args, get_arch("9.0"))
    return args, result


@needs_triton
@needs_gpu_run
@pytest.mark.parametrize(
    ("name", "out"),
    [
        ("vector_add", "out_ptr"),
        ("matmul", "c_ptr"),
        ("matmul_bf16", "c_ptr"),
        ("dot_tf32", "c_ptr"),
        ("cumsum", "y_ptr"),
        ("cumsum", "j_ptr"),
        ("bias_relu_bf16", "y_ptr"),
        ("softmax", "y_ptr"),
        ("layernorm", "y_ptr"),
        ("attention", "o_ptr"),
    ],
)
def test_outputs_equal_the_gpus_bit_for_bit(name: str, out: str) -> None:
    """matmul, matmul_bf16 and dot_tf32 are tl.dot: Triton's sm_80 code (cp.async, ldmatrix,
    mma.sync in f16, bf16, tf32) run by the engine with the H100's tensor-core arithmetic, equal
    to the GPU running the same code; cumsum's float scan order and bias_relu_bf16's bf16
    conversions too. softmax, layernorm and attention go through ex2.approx, div.full and
    sqrt.approx (sm_90's MUFU: sim/ptx/mufu.py) and a division ptxas fuses with an add
    (contract.py): checked on the H200 run of Triton 3.8.0's code (the H100 run of 3.9.0's came
    before the MUFU tables)."""
    assert RUN is not None
    args, _ = _run(name)
    want = np.load(RUN / "outputs.npz")[f"{name}::{out}"]
    assert args[out].tobytes() == want.tobytes()


@needs_triton
@needs_gpu_run
@pytest.mark.parametrize("name", ["vector_add", "matmul", "softmax", "reduction"])
def test_global_and_tensor_counters_equal_nsight_compute(name: str) -> None:
    """Global requests and sectors, loads and stores, and tensor-pipe instructions per launch."""
    sys.path.insert(0, str(HW))
    from ptx_corpus_compare import ncu_values

    index = [c["name"] for c in _cases()].index(name)
    assert RUN is not None
    hw = ncu_values(RUN / "ncu.csv")[index]
    _, result = _run(name)
    c = result.counters  # type: ignore[attr-defined]
    assert c.global_load_requests == hw["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    assert c.global_load_transactions == hw["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert c.global_store_requests == hw["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
    assert c.global_store_transactions == hw["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
    tensor = sum(n for k, n in c.warp_instructions.items() if k.startswith("tensor_"))
    assert tensor == hw["smsp__inst_executed_pipe_tensor.sum"]


@needs_triton
def test_the_jit_specialisation_is_derived_from_the_arguments() -> None:
    """As Triton's JIT: an int of 1 becomes a constant, one divisible by 16 gets tt.divisibility,
    arrays (256-byte aligned) are marked divisible by 16, floats are not specialised."""
    from perfcalc.sim.ptx.triton_run import _jit_function, _signature

    fn = _jit_function(TRITON / "vector_add.py", "add")
    x = np.zeros(4, np.float32)
    sig, constants, attrs = _signature(fn, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 1, "BLOCK": 256})
    assert sig == {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "constexpr", "BLOCK": "constexpr"}
    assert constants == {"n": 1, "BLOCK": 256}
    sig, _, attrs = _signature(fn, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 32, "BLOCK": 256})
    assert sig["n"] == "i32" and attrs[(3,)] == [["tt.divisibility", 16]] and (0,) in attrs
    sig, _, attrs = _signature(fn, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 33, "BLOCK": 256})
    assert sig["n"] == "i32" and (3,) not in attrs


@needs_triton
def test_cli_runs_a_triton_kernel_and_reports_its_lines() -> None:
    runner = CliRunner()
    r = runner.invoke(
        cli,
        [
            "run",
            "--triton",
            f"{TRITON / 'vector_add.py'}::add",
            "--grid",
            "4",
            *("--array", "x_ptr=float32:1000", "--array", "y_ptr=float32:1000", "--array", "out_ptr=float32:1000"),
            *("-p", "n=1000", "-p", "BLOCK=256", "-p", "num_warps=2", "--format", "json"),
        ],
    )
    assert r.exit_code == 0, r.output
    import json

    doc = json.loads(r.stdout)
    assert doc["launch"]["block"] == [64]  # num_warps=2: 64 threads a program
    # n = 1000 is not a multiple of 16, so the JIT gives no divisibility and the masked loads stay
    # scalar: BLOCK 256 / 64 threads = 4 loads per thread, per array, in each of the 8 warps
    assert doc["counters"]["global_load_requests"] == 2 * 8 * 4
    lines = {s["code"]: s for s in doc["per_site"]}  # counts at the Python source's own lines
    assert lines["x = tl.load(x_ptr + offs, mask=mask)"]["counters"]["global_load_requests"] == 8 * 4


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--triton", "nofile.py"], "FILE.py::KERNEL"),
        (["--triton", "nofile.py::k", "--grid", "1"], "no file"),
        (["--triton", f"{TRITON / 'vector_add.py'}::nope", "--grid", "1"], "no @triton.jit function 'nope'"),
        (["--triton", f"{TRITON / 'vector_add.py'}::add", "--grid", "1", "--source", "k.cu"], "leave out --source"),
    ],
)
def test_bad_triton_input_is_one_line_and_exit_2(args: list[str], says: str) -> None:
    if not triton_available() and "::" in args[1] and "nofile" not in args[1] and "--source" not in args:
        pytest.skip("Triton is not installed: the file cannot be imported")
    r = CliRunner().invoke(cli, ["run", *args])
    assert r.exit_code == 2
    assert says in r.output and "Traceback" not in r.output


def test_without_triton_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from perfcalc.sim.ptx import triton_run

    monkeypatch.setattr(triton_run, "triton_available", lambda: False)
    with pytest.raises(InputError, match=r"perfcalc\[triton\]"):
        triton_run._jit_function(TRITON / "vector_add.py", "add")
