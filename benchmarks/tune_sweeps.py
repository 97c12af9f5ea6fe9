"""The three sweeps of issue 34's GPU comparison, and perfcalc's side of it.

    python benchmarks/tune_sweeps.py [--gpu h100-sxm --gpu h200 --gpu l4] [--workers N]
        [--only NAME] [--results DIR] [--hw benchmarks/hw/tune_h100/tune_times.json]

SWEEPS is read by the GPU side too (benchmarks/hw/tune_on_gpu.py, standard library and CuPy
there), so both sweep the same points: the example tiled GEMM over five axes (768 points), the
corpus's templated matmul over its tile (4) and the corpus's reduction over its block size (6).
Here each sweep runs through `perfcalc tune` (the library call, the process pool), its table is
written to DIR/NAME.csv and, with --hw, the configuration perfcalc picks for the H100 is
compared with the fastest the H100 measured: the measured time of perfcalc's pick over the
measured best (1.00 = the same point; issue 34 asks for <= 1.10).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

SWEEPS: list[dict[str, Any]] = [
    {
        "name": "gemm_tiled",
        "file": "examples/tune/gemm_tiled.cu",
        "kernel": "gemm_tiled",
        "axes": {
            "BM": [16, 32, 64, 128],
            "BN": [16, 32, 64, 128],
            "BK": [8, 16, 32],
            "TM": [1, 2, 4, 8],
            "TN": [1, 2, 4, 8],
        },
        "grid": ("N/BN", "N/BM"),
        "block": ("BN/TN", "BM/TM"),
        "scalars": {"N": 1024},
        "arrays": {"A": "N*N", "B": "N*N", "C": "N*N"},
        "args": ["A", "B", "C", "N"],
    },
    {
        "name": "matmul_template",
        "file": "tests/data/cuda_corpus/matmul_template.cu",
        "kernel": "MatrixMulCUDA<BLOCK>",
        "axes": {"BLOCK": [4, 8, 16, 32]},
        "grid": ("N/BLOCK", "N/BLOCK"),
        "block": ("BLOCK", "BLOCK"),
        "scalars": {"N": 1024},
        "arrays": {"C": "N*N", "A": "N*N", "B": "N*N"},
        "args": ["C", "A", "B", "N", "N"],
        "arg_names": ["C", "A", "B", "wA", "wB"],
    },
    {
        "name": "reduce6",
        "file": "tests/data/cuda_corpus/reduce_two_pass.cu",
        "kernel": "reduce6<BLOCK>",
        "axes": {"BLOCK": [32, 64, 128, 256, 512, 1024]},
        "grid": ("N/(2*BLOCK)",),
        "block": ("BLOCK",),
        "scalars": {"N": 1 << 24},
        "arrays": {"in": "N", "out": "N//64"},
        "args": ["in", "out", "N"],
        "arg_names": ["in", "out", "n"],
        "zero": ["out"],
    },
]


def points_of(sweep: dict[str, Any]) -> list[dict[str, int]]:
    """The axes' product, the last axis fastest (perfcalc.tune.space's order)."""
    names = list(sweep["axes"])
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*sweep["axes"].values())]


def _value(expr: str, names: dict[str, int]) -> int:
    return int(eval(expr, {}, dict(names)))  # noqa: S307 (the table above, not user input)


def launch_of(sweep: dict[str, Any], point: dict[str, int]) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """(grid, block, kernel name) of a point, as the GPU side launches it."""
    names = {**sweep["scalars"], **point}
    grid = tuple(_value(e, names) for e in sweep["grid"]) + (1,) * (3 - len(sweep["grid"]))
    block = tuple(_value(e, names) for e in sweep["block"]) + (1,) * (3 - len(sweep["block"]))
    kernel = sweep["kernel"]
    for k, v in point.items():
        kernel = kernel.replace(k, str(v)) if "<" in kernel else kernel
    return grid, block, kernel


def sweep_spec(sweep: dict[str, Any], gpus: list[str]) -> Any:
    """The `perfcalc.tune.Sweep` of one of SWEEPS for these products (the launch the GPU side makes)."""
    from perfcalc.tune import Sweep

    arg_names = sweep.get("arg_names", sweep["args"])
    arrays = tuple(f"{arg_names[sweep['args'].index(a)]}=float32:{c}" for a, c in sweep["arrays"].items())
    scalars = {
        n: str(sweep["scalars"][a]) for a, n in zip(sweep["args"], arg_names, strict=True) if a not in sweep["arrays"]
    }
    return Sweep(
        str(ROOT / sweep["file"]),
        sweep["kernel"],
        ",".join(sweep["grid"]),
        ",".join(sweep["block"]),
        tuple(gpus),
        arrays,
        scalars,
        constants={k: str(v) for k, v in sweep["scalars"].items()},  # N, for the expressions
    )


def run_here(sweep: dict[str, Any], gpus: list[str], workers: int | None, results: Path) -> Any:
    from perfcalc.report.render import render
    from perfcalc.report.tune_tables import points_table
    from perfcalc.tune import space_from, tune

    spec = sweep_spec(sweep, gpus)
    space = space_from([f"{k}={','.join(map(str, v))}" for k, v in sweep["axes"].items()])
    results.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    report = tune(spec, space, workers=workers, results=results / f"{sweep['name']}.jsonl")
    took = time.monotonic() - start
    (results / f"{sweep['name']}.csv").write_text(render([points_table(report)], "csv"))
    return report, took


def rows_on_file(results: Path, sweep: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows a (possibly unfinished) sweep's results file holds, without running anything."""
    lines = (results / f"{sweep['name']}.jsonl").read_text().splitlines()[1:]
    return [row for line in lines for row in json.loads(line)["rows"]]


def compare_on_file(rows: list[dict[str, Any]], sweep: dict[str, Any], hw_rows: list[dict[str, Any]], gpu: str) -> dict:
    """perfcalc's pick for `gpu` against the GPU's measured best, over the points both have (a
    finished sweep, or what an unfinished results file holds), with how well the predicted order
    follows the measured one (Spearman's rank correlation) and the time error."""
    measured = {r["point"]: r["median_s"] for r in hw_rows if r["sweep"] == sweep["name"] and r["status"] == "ok"}
    predicted = {r["point"]: r["time_s"] for r in rows if r["gpu"] == gpu and r["status"] == "ok"}
    both = sorted(set(measured) & set(predicted))
    pick = min(both, key=lambda p: predicted[p])
    best_all = min(measured, key=lambda p: measured[p])
    best_both = min(both, key=lambda p: measured[p])

    def ranks(values: list[float]) -> list[int]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0] * len(values)
        for k, i in enumerate(order):
            out[i] = k
        return out

    a, b, n = ranks([predicted[p] for p in both]), ranks([measured[p] for p in both]), len(both)
    ratios = [predicted[p] / measured[p] for p in both]
    return {
        "sweep": sweep["name"],
        "points": len(points_of(sweep)),
        "points_measured": len(measured),
        "points_predicted_and_measured": n,
        "pick": pick,
        "pick_values": {k: v for k, v in hw_rows_point(hw_rows, sweep, pick).items() if k in sweep["axes"]},
        "pick_measured_over_best_measured": measured[pick] / measured[best_all],
        "pick_measured_over_best_of_predicted_points": measured[pick] / measured[best_both],
        "measured_best": best_all,
        "measured_best_values": {
            k: v for k, v in hw_rows_point(hw_rows, sweep, best_all).items() if k in sweep["axes"]
        },
        "measured_best_predicted_over_measured": predicted.get(best_all, float("nan")) / measured[best_all],
        "pick_rank_on_gpu": sorted(both, key=lambda p: measured[p]).index(pick) + 1,
        "spearman": 1 - 6 * sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / (n * (n * n - 1)),
        "median_time_error": statistics.median(abs(x - 1) for x in ratios),
        "within_1.5x": sum(1 / 1.5 <= x <= 1.5 for x in ratios) / n,
    }


def hw_rows_point(rows: list[dict[str, Any]], sweep: dict[str, Any], point: int) -> dict[str, Any]:
    return next(r for r in rows if r["sweep"] == sweep["name"] and r["point"] == point)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="append", default=None)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--only", default=None)
    parser.add_argument("--results", type=Path, default=HERE / "tune_results")
    parser.add_argument("--hw", type=Path, default=None)
    parser.add_argument(
        "--on-file", action="store_true", help="with --hw: compare the rows the results files hold, run nothing"
    )
    args = parser.parse_args()
    gpus = args.gpu or ["h100-sxm", "h200", "l4"]
    hw = json.loads(args.hw.read_text())["rows"] if args.hw else None
    for sweep in SWEEPS:
        if args.only and sweep["name"] != args.only:
            continue
        if args.on_file:
            if hw is not None and (args.results / f"{sweep['name']}.jsonl").is_file():
                rows = rows_on_file(args.results, sweep)
                print(json.dumps(compare_on_file(rows, sweep, hw, "h100-sxm"), indent=1))
            continue
        report, took = run_here(sweep, gpus, args.workers, args.results)
        print(
            f"{sweep['name']}: {report.points} points x {len(gpus)} products in {took:.0f} s ({report.resumed} resumed)"
        )
        for b in report.best:
            print(
                f"  {b.gpu}: point {b.point} {b.values} {b.time_s * 1e6:.1f} us,",
                f"runner-up +{(b.margin or 0) * 100:.1f} %",
            )
        if hw is not None:
            print("  vs H100:", json.dumps(compare_on_file(list(report.rows), sweep, hw, "h100-sxm")))


if __name__ == "__main__":
    main()
