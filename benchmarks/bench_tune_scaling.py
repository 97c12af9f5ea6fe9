"""How `perfcalc tune` scales with workers (issue 34).

    python benchmarks/bench_tune_scaling.py [--workers 1,2] [--backend process] [--write]
        [--space small|large] [--record FILE.json] [--no-fill]

The sweep: the example GEMM (examples/tune/gemm_tiled.cu) at N=128 on the H100. `small`: 218
points (five axes, every block of one warp to 1,024 threads), about a second of work each here.
`large`: 2,000 points (BM, BN in 8..128, BK in 4..64, TM, TN in 1..8, no filter: a point whose
block cannot launch is reported as such, as a real sweep's are), the many-core run's sweep;
`sample`: 108 points of that grid spanning its ranges, for the passes with few workers.
A first pass with the most workers fills the compile cache (every later pass compiles nothing,
as a re-run of a sweep does; --no-fill skips it where an earlier call filled it); then one timed
pass per worker count, each from an empty results file. The table is checked to be the same
bytes at every worker count. Speed-up = time with 1 worker / time with N. --record keeps each
pass's seconds and table digest in a JSON file (read back, so passes can be split over calls:
a 1-worker pass of the large sweep takes longer than one device call may). --budget S makes each
pass one segment of at most S seconds: it writes its points to a results file beside the record
(`perfcalc tune --results`), stops when the time is up and is resumed by the next call with the
same arguments; a pass's time is then the sum of its segments, each with its own start (Python,
perfcalc, Ray and its workers), so a split pass is timed slower than one run would be.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import time
from pathlib import Path

from _timing import publish
from tune_sweeps import ROOT, SWEEPS

RESULTS = Path(__file__).with_name("results_tune_scaling.md")


SPACES = {
    # a warp at least, at most 1,024 threads: 218 points
    "small": (
        ["BM=16,32,64,128", "BN=16,32,64,128", "BK=8,16", "TM=1,2,4,8", "TN=2,4"],
        ["BM/TM*BN/TN >= 32", "BM/TM*BN/TN <= 1024"],
    ),
    # 5 x 5 x 5 x 4 x 4 = 2,000 points, unfiltered
    "large": (["BM=8,16,32,64,128", "BN=8,16,32,64,128", "BK=4,8,16,32,64", "TM=1,2,4,8", "TN=1,2,4,8"], []),
    # 3 x 3 x 3 x 2 x 2 = 108 points of the large sweep's grid, spanning its ranges: the passes
    # with few workers, which the large sweep's 2,000 points would keep past a device call's limit
    "sample": (["BM=8,32,128", "BN=8,32,128", "BK=4,16,64", "TM=1,4", "TN=1,8"], []),
}


def sweep_and_space(name: str = "small") -> tuple[object, object]:
    from perfcalc.tune import Sweep, space_from

    gemm = SWEEPS[0]
    sweep = Sweep(
        str(ROOT / gemm["file"]),
        gemm["kernel"],
        ",".join(gemm["grid"]),
        ",".join(gemm["block"]),
        ("h100-sxm",),
        tuple(f"{a}=float32:N*N" for a in "ABC"),
        {"N": "128"},
    )
    axes, where = SPACES[name]
    return sweep, space_from(axes, where)


def main() -> None:
    import hashlib
    import json

    from perfcalc.report.render import render
    from perfcalc.report.tune_tables import points_table
    from perfcalc.tune import tune

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--backend", default="process")
    parser.add_argument("--space", choices=sorted(SPACES), default="small")
    parser.add_argument("--record", type=Path, help="JSON file of passes (read, then added to)")
    parser.add_argument("--no-fill", action="store_true", help="the compile cache is already filled")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--fill-workers", type=int, help="workers of the filling pass (default: the most asked)")
    parser.add_argument("--budget", type=float, help="seconds a pass may run in this call (resumed by the next)")
    args = parser.parse_args()
    if args.budget is not None and (args.budget <= 0 or not args.record):
        parser.error(
            f"--budget {args.budget:g}: needs seconds above 0 and --record (the pass's points are kept beside it)"
        )
    wanted = sorted({int(w) for w in args.workers.split(",")}, reverse=True)
    sweep, space = sweep_and_space(args.space)
    points = len(space.points())  # type: ignore[attr-defined]
    record = json.loads(args.record.read_text()) if args.record and args.record.is_file() else {"passes": {}}
    if not args.no_fill:
        start = time.perf_counter()
        filling = args.fill_workers or max(wanted)
        tune(sweep, space, backend=args.backend, workers=filling)  # type: ignore[arg-type]
        record["fill_s"] = time.perf_counter() - start
        print(f"fill with {filling} workers: {record['fill_s']:.1f} s", flush=True)
    for n in wanted:
        if args.budget is not None:
            if str(n) in record["passes"]:
                continue  # finished by an earlier call
            report, took, segments = _segment(sweep, space, args, n, record)
            if report is None:
                continue
        else:
            start = time.perf_counter()
            report = tune(sweep, space, backend=args.backend, workers=n)  # type: ignore[arg-type]
            took, segments = time.perf_counter() - start, 1
        table = render([points_table(report)], "csv")
        record["passes"][str(n)] = {
            "seconds": took,
            "segments": segments,
            "table_sha256": hashlib.sha256(table.encode()).hexdigest(),
        }
        print(f"{n} workers: {took:.1f} s", flush=True)
        if args.record:
            args.record.write_text(json.dumps(record, indent=1))
    record.update(machine=platform.machine(), cores=os.cpu_count(), python=platform.python_version())
    record.update(points=points, backend=args.backend, space=args.space)
    if args.record:
        args.record.write_text(json.dumps(record, indent=1))
    publish(_table(record, args), RESULTS, args.write)


class _OutOfTime(Exception):
    pass


def _segment(
    sweep: object, space: object, args: argparse.Namespace, n: int, record: dict[str, object]
) -> tuple[object | None, float, int]:
    """One segment of a pass of n workers, at most args.budget seconds, resuming the points an
    earlier call's segments left in the results file; the report once every point is done."""
    import json

    from perfcalc.tune import tune

    split = record.setdefault("split", {})
    assert isinstance(split, dict)
    done_s: list[float] = split.setdefault(str(n), [])
    results = args.record.with_name(f"{args.record.stem}_pass{n}.jsonl")

    def out_of_time(signum: int, frame: object) -> None:
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, out_of_time)
    signal.setitimer(signal.ITIMER_REAL, args.budget)
    start = time.perf_counter()
    report = None
    try:
        report = tune(sweep, space, backend=args.backend, workers=n, results=results)  # type: ignore[arg-type]
    except _OutOfTime:
        pass
    finally:  # the backend shuts down what it started (a local Ray cluster, the process pool)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    done_s.append(time.perf_counter() - start)
    args.record.write_text(json.dumps(record, indent=1))
    kept = sum(1 for line in results.read_text().splitlines()[1:] if line.strip()) if results.is_file() else 0
    print(f"{n} workers: segment {len(done_s)} of {done_s[-1]:.1f} s, {kept} points kept", flush=True)
    return report, sum(done_s), len(done_s)


def _table(record: dict[str, object], args: argparse.Namespace) -> list[str]:
    passes = record["passes"]
    assert isinstance(passes, dict)
    counts = sorted(int(n) for n in passes)
    lines = [
        "# perfcalc tune: speed-up with workers",
        "",
        f"`python benchmarks/bench_tune_scaling.py --workers {','.join(map(str, counts))} "
        f"--backend {args.backend} --space {args.space}`; {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; {record['points']} points; one timed pass per worker count after a pass "
        "that fills the compile cache.",
        "",
        "| workers | seconds | points per second | speed-up over 1 |",
        "|---|---|---|---|",
    ]
    base = passes["1"]["seconds"] if "1" in passes else None
    for n in counts:
        took = passes[str(n)]["seconds"]
        speed = f"{base / took:.2f}" if base else "-"
        lines.append(f"| {n} | {took:.1f} | {int(str(record['points'])) / took:.2f} | {speed} |")
    if not passes:
        split = record.get("split", {})
        assert isinstance(split, dict)
        done = ", ".join(f"{n} worker(s): {len(s)} segment(s), {sum(s):.1f} s" for n, s in split.items())
        return [*lines, "", f"No pass finished yet ({done or 'none started'})."]
    same = len({p["table_sha256"] for p in passes.values()}) == 1
    lines += ["", f"Tables identical at every worker count: {'yes' if same else 'NO'}."]
    return lines


if __name__ == "__main__":
    main()
