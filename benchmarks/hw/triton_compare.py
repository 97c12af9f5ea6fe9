"""Here, after triton_on_h100.sh: the Triton kernels of tests/data/triton/ run by perfcalc against
a GPU's outputs, Nsight Compute counters, registers and times (the run must be of the installed
Triton's code: each run folder's triton.txt names its version).

    python benchmarks/hw/triton_compare.py [benchmarks/hw/triton_run | benchmarks/hw/triton_run_h200]

Writes outputs.csv, counters.csv and times.csv into the run folder and prints the summary
recorded in benchmarks/RESULTS.md. The timed launches (*_large) are predicted by `analyze` on
the product the run's gpu.txt names (h100-sxm or h200; sampled where large, as
`perfcalc run --triton --gpu` does).
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "hw"))

from ptx_corpus_compare import NCU, ncu_values  # noqa: E402
from triton_prepare import TRITON, cases  # noqa: E402

from perfcalc.analysis.analyze import RunOptions, SourceKernel, analyze  # noqa: E402
from perfcalc.sim.ptx.triton_run import run_triton  # noqa: E402
from perfcalc.specs import get_arch  # noqa: E402
from perfcalc.specs.target import resolve_target  # noqa: E402

UNORDERED = {"reduction"}  # float atomics: the order of the additions is the hardware's


def product_of(run: Path) -> tuple[str, str]:
    """The perfcalc product key and a short label for the GPU that made `run` (its gpu.txt)."""
    name = (run / "gpu.txt").read_text().splitlines()[0]
    for label, key in (("H200", "h200"), ("H100", "h100-sxm")):
        if label in name:
            return key, label
    raise ValueError(f"{run}/gpu.txt names {name!r}: perfcalc compares H100 and H200 runs")


def made_by(run: Path) -> str | None:
    """The Triton version that compiled `run`'s cubins (its triton.txt), None where not kept."""
    kept = run / "triton.txt"
    return kept.read_text().strip() if kept.is_file() else None


def why_not(run: Path) -> str | None:
    """Why `run` cannot be compared here, or None."""
    import triton

    if not (run / "gpu.txt").is_file():
        return f"{run}: no gpu.txt (not a triton_on_h100.sh run folder)"
    version = made_by(run)
    if version is not None and version != triton.__version__:
        return (
            f"{run} holds Triton {version}'s cubins; Triton {triton.__version__} is installed here: "
            "compile and run the corpus again (triton_prepare.py)"
        )
    return None


def main(run: Path) -> None:
    arch = get_arch("9.0")
    product, label = product_of(run)
    theirs = np.load(run / "outputs.npz")
    registers = json.loads((run / "registers.json").read_text())
    metrics = ncu_values(run / "ncu.csv")
    outputs, counters, times = [], [], []
    for case, hw in zip(cases(), metrics, strict=True):
        name = case["name"]
        if name.endswith("_large"):
            scalars = {k: v for k, v in case["args"].items() if not isinstance(v, np.ndarray)}
            arrays = tuple(f"{k}={v.dtype.name}:{v.size}" for k, v in case["args"].items() if isinstance(v, np.ndarray))
            kernel = SourceKernel(TRITON / case["file"], case["kernel"], case["grid"], None, arrays, scalars)
            report = analyze(kernel, resolve_target(None, product, default_product=False), RunOptions())
            t = report.run.launch_report.time if report.run.launch_report is not None else None
            predicted = t.predicted_time_s if t is not None else float("nan")
            measured = hw["gpu__time_duration.sum"] * 1e-9
            times.append((name, measured, predicted, predicted / measured, t.bound if t is not None else ""))
            continue
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case["args"].items()}
        result = run_triton(TRITON / case["file"], case["kernel"], case["grid"], None, args, arch)
        for k, v in args.items():
            want = theirs.get(f"{name}::{k}")
            if want is None or not isinstance(v, np.ndarray):
                continue
            if name in UNORDERED:
                ok = bool(np.allclose(v, want, rtol=1e-5, atol=1e-4))
                outputs.append((name, k, v.size, int(ok) * v.size, "within 1e-5 (atomic order)"))
            else:
                outputs.append(
                    (
                        name,
                        k,
                        v.size,
                        int((v.view(np.uint8) == want.view(np.uint8)).reshape(v.size, -1).all(1).sum()),
                        "bit for bit",
                    )
                )
        c = result.counters
        ours = {k: float(getattr(c, k)) for k in NCU}
        ours["tensor_instructions"] = float(sum(n for k, n in c.warp_instructions.items() if k.startswith("tensor_")))
        for k in NCU:
            want = sum(hw.get(m, 0.0) * w for m, w in NCU[k])
            counters.append((name, k, want, ours[k], want == ours[k]))
        want = hw.get("smsp__inst_executed_pipe_tensor.sum", 0.0)
        counters.append(
            (name, "tensor_instructions", want, ours["tensor_instructions"], want == ours["tensor_instructions"])
        )
        mine = _registers(result.ptxas_log, result.entry)
        counters.append((name, "registers", registers[name], mine, registers[name] == mine))
    _write(run / "outputs.csv", ("launch", "array", "elements", "equal", "how"), outputs)
    _write(run / "counters.csv", ("launch", "counter", label.lower(), "perfcalc", "equal"), counters)
    _write(run / "times.csv", ("launch", f"{label.lower()} s", "perfcalc s", "ratio", "bound"), times)
    for o in outputs:
        print(f"output {o[0]}.{o[1]}: {o[3]}/{o[2]} {o[4]}")
    pairs = [c for c in counters if c[1] != "registers"]
    print(f"counters: {sum(1 for c in pairs if c[4])}/{len(pairs)} equal")
    for c in counters:
        if not c[4]:
            print(f"  differs: {c[0]} {c[1]}: {label} {c[2]:g}, perfcalc {c[3]:g}")
    for t in times:
        print(f"time {t[0]}: {label} {t[1] * 1e6:.1f} us, perfcalc {t[2] * 1e6:.1f} us, x{t[3]:.2f} ({t[4]})")


def _registers(log: str | None, entry: str) -> int:
    from perfcalc.model.ptxas import entry_resources

    found = entry_resources(log or "", entry)
    return int(found.registers_per_thread) if found is not None else -1


def _write(path: Path, header: tuple[str, ...], rows: list[tuple]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "benchmarks" / "hw" / "triton_run"
    why = why_not(folder)
    if why is None:
        try:
            product_of(folder)
        except ValueError as e:
            why = str(e)
    if why:
        print(f"triton_compare: {why}", file=sys.stderr)
        sys.exit(2)
    main(folder)
