"""Run every program of a public corpus as it is, through `perfcalc app` (issue 31).

    python benchmarks/corpus_app.py PATH-TO-A-HECBENCH-CHECKOUT [--jobs 2] [--only REGEX]
        [--seconds 60] [--gpu h100-sxm] [--write] [--args TABLE.yaml]

For each program `src/*-cuda/` of the HeCBench suite (github zjin-lcf/HeCBench, BSD-3-Clause): its
sources and flags from its Makefile (`make -n -B`, as benchmarks/corpus_compile.py reads them), its
arguments from the Makefile's `run` target (`make -n run`), or from benchmarks/corpus_app_args.yaml
where that table gives smaller ones for the CPU; then `perfcalc.app` runs its main() in the program's
folder (it reads its data files from there) within `--seconds`. Outcomes: passed (exit 0, and
"PASS" printed where the program prints PASS or FAIL), failed (its own check failed or it exited
non-zero), refused (perfcalc refused it by name: the class is counted), out of time, no data (an
argument names a data file the checkout holds only as a DVC/LFS pointer; not counted). Per program:
the outcome, the launches and the simulated seconds; only figures are written
(benchmarks/results_corpus_app.md and .csv), never the suite's code.
"""

from __future__ import annotations

import argparse
import collections
import csv
import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ARGS = HERE / "corpus_app_args.yaml"
sys.path.insert(0, str(HERE))

from corpus_compile import _commit, _flags  # noqa: E402

from perfcalc.app import AppReport  # noqa: E402
from perfcalc.app.build import is_nvcc_option  # noqa: E402


def sources_and_flags(program: Path) -> tuple[list[str], list[str], list[str], list[str], str | None]:
    """(sources, -I folders, -D defines, nvcc options that change device code) from `make -n -B`,
    and why there are none (-rdc=true is left out: perfcalc app does not device-link)."""
    done = subprocess.run(["make", "-n", "-B"], cwd=program, capture_output=True, text=True, timeout=60)
    sources: list[str] = []
    includes: list[str] = []
    defines: list[str] = []
    options: list[str] = []
    for line in done.stdout.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if "-c" not in words:
            continue
        found = [w for w in words if re.search(r"\.(cu|cpp|cc|c)$", w)]
        inc, dfs, extra = _flags(words[1:], str(program))
        options += [o for o in extra if is_nvcc_option(o) and o not in options]
        sources += [f for f in found if f not in sources]
        includes += [i for i in inc if i not in includes]
        defines += [f"-D{n}" + ("" if v is None else f"={v}") for n, v in dfs if f"-D{n}" not in defines]
    if not sources:
        return [], [], [], [], "its Makefile printed no compile command here"
    return sources, includes, defines, options, None


def makefile_arguments(program: Path) -> list[str] | None:
    """The arguments of the Makefile's `run` target (sized for a GPU)."""
    done = subprocess.run(["make", "-n", "run"], cwd=program, capture_output=True, text=True, timeout=60)
    for line in reversed(done.stdout.splitlines()):
        try:
            words = shlex.split(line) if line.strip() else []
        except ValueError:
            continue
        if words and words[0].startswith("./"):
            return words[1:]
    return None


def scaled(args: list[str], factor: int) -> list[str]:
    """The Makefile's arguments made smaller for the CPU: every whole number of 100 or more
    divided by `factor` (a power of two stays one; a multiple of 32 stays one), others kept."""
    out = []
    for a in args:
        if not re.fullmatch(r"\d+", a) or int(a) < 100:
            out.append(a)
            continue
        n = int(a)
        if n & (n - 1) == 0:
            m = max(n // factor, 1)
        else:
            m = max(n // factor, 1)
            if n % 32 == 0:
                m = max(m // 32 * 32, 32)
        out.append(str(m))
    return out


def candidate_arguments(program: Path, table: dict[str, object]) -> list[list[str]]:
    """The table's arguments for the program where it has them; else the Makefile's made 64 and
    then 1024 times smaller (GPU-sized runs take hours on the engine)."""
    given = table.get(program.name)
    if given is not None:
        return [shlex.split(str(given))]
    found = makefile_arguments(program)
    if found is None:
        return []
    tries = [scaled(found, 64), scaled(found, 1024)]
    return [t for i, t in enumerate(tries) if t not in tries[:i]]


def run_one(
    program: str, gpu: str | None, seconds: float, args_table: Path = ARGS, cache_budget: float = 5.0
) -> dict[str, object]:
    from perfcalc.errors import PerfcalcError

    folder = Path(program)
    table = yaml.safe_load(args_table.read_text()) if args_table.is_file() else {}
    row: dict[str, object] = {"program": folder.name}
    start = time.monotonic()
    try:
        sources, includes, defines, options, why = sources_and_flags(folder)
        tries = candidate_arguments(folder, table or {})
        absent = [a for a in (tries[0] if tries else []) if _names_a_file(a) and not (folder / a).exists()]
        if absent:
            row.update(outcome="no data", reason="its data file is not in the checkout", message=absent[0])
            return row
        if why is not None or not tries:
            row.update(outcome="refused", reason=why or "no `run` target to take arguments from")
            return row
        report = _first_that_finishes(sources, tries, gpu, includes, defines, options, (seconds, cache_budget), folder)
    except PerfcalcError as exc:
        message = " ".join(str(exc).split())
        timed_out = "time limit" in message or "past its limit" in message or "would take about" in message
        row.update(
            outcome="out of time" if timed_out else "refused", reason=reason_class(message), message=message[:300]
        )
        return row
    finally:
        row["seconds"] = round(time.monotonic() - start, 2)
    assert isinstance(report, AppReport)
    text = (report.stdout or "") + (report.stderr or "")
    checked = re.search(r"\b(PASS|FAIL)", text)
    passed = report.exit_status == 0 and (checked is None or "FAIL" not in text)
    tail = [ln for ln in text.strip().splitlines() if ln.strip()][-1:] or [""]
    row.update(
        message="" if passed else tail[0][:200],
        outcome="passed" if passed else "failed",
        checked=checked is not None,
        exit_status=report.exit_status,
        launches=len(report.launches),
        kernels=len(report.kernel_summary),
        predicted_time_s=report.predicted_time_s,
        args=" ".join(report.program_args),
        launch_rows=[_launch_row(folder.name, launch) for launch in report.launches[:LAUNCHES_KEPT]],
    )
    return row


LAUNCHES_KEPT = 50  # per program: what the GPU run profiles (ncu -c 50) and compares


def _launch_row(program: str, launch: object) -> dict[str, object]:
    """What the hardware comparison needs of one launch: its kernel, geometry, counters, the
    predicted time and bound."""
    d = launch.to_dict()  # type: ignore[attr-defined]
    sim, time_ = launch.sim, launch.time  # type: ignore[attr-defined]  # None where it faulted
    return {
        "program": program,
        "index": d["index"],
        "kernel": d["short_name"],
        "grid": d["grid"],
        "block": d["block"],
        "registers": d["registers_per_thread"],
        "counters": d.get("counters") or {},  # all of them; the GPU comparison picks its ten
        "predicted_time_s": d["predicted_time_s"],
        "bound": d["bound"],
        "l2_hit_rate": d["l2_hit_rate"],
        "dram_bytes": d["dram_bytes"],
        "cache_sample": d.get("cache_sample"),
        # what the time model was given and what each of its terms came to, for the calibration
        # half's analysis without running the programs again
        "active_blocks_per_sm": d["active_blocks_per_sm"],
        "instructions": dict(sim.instructions) if sim is not None else {},
        "waves": time_.waves if time_ is not None else None,
        "terms": {t.name: t.time_s for t in time_.terms} if time_ is not None else {},
        # the time model's whole input (model/time_model.KernelWork), to try a rule on the
        # calibration half's launches without running them again
        "work": _work(sim, d["active_blocks_per_sm"]) if time_ is not None else None,
    }


def _work(sim: object, active_blocks_per_sm: int) -> dict[str, object]:
    """The launch's KernelWork as plain data (KernelWork(**row["work"]) rebuilds it, tuples as lists)."""
    from perfcalc.analysis.timing import kernel_work

    return dataclasses.asdict(kernel_work(sim, active_blocks_per_sm))  # type: ignore[arg-type]


def _first_that_finishes(
    sources: list[str],
    tries: list[list[str]],
    gpu: str | None,
    includes: list[str],
    defines: list[str],
    options: list[str],
    limits: tuple[float, float],
    folder: Path,
) -> object:
    """The run with the first arguments that finish within `seconds` (the last try's error)."""
    from perfcalc.app import app
    from perfcalc.app.session import ProgramFailed

    for i, args in enumerate(tries):
        try:
            return app(
                sources,
                args,
                gpu,
                None,
                includes,
                defines,
                max_seconds=limits[0],
                cwd=str(folder),
                nvcc_options=options,
                cache_budget_s=limits[1],
            )
        except ProgramFailed:
            if i == len(tries) - 1:
                raise
    raise AssertionError("no arguments to try")


def _names_a_file(word: str) -> bool:
    """Whether a program argument names a file (a path, or a name with an extension)."""
    return "/" in word or bool(re.fullmatch(r"[\w.+-]+\.[A-Za-z][\w]{0,5}", word))


def reason_class(message: str) -> str:
    if "past its time limit" in message or "would take about" in message:
        return "ran past the time limit (--seconds): a launch, or the whole program"
    for fragment, name in (
        ("a library with no source", "calls a library with no source (cuBLAS, cuRAND, ...)"),
        ("does not implement", "calls a CUDA runtime function the stand-in does not implement"),
        ("is not implemented by the PTX engine", "a PTX instruction the engine does not implement"),
        ("does not compile", "does not compile here"),
        ("not installed here", "includes a header not installed here"),
    ):
        if fragment in message:
            return name
    return "other: " + re.sub(r'"[^"]*"|\d+', "N", message)[:80]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default=None)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--gpu", default="h100-sxm")
    parser.add_argument(
        "--cache-budget",
        type=float,
        default=5.0,
        help="seconds of L1/L2-model work per launch (perfcalc app --cache-budget; counters stay exact)",
    )
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--programs", type=Path, default=None, help="a file of program names, one per line")
    parser.add_argument("--suffix", default="", help="written as results_corpus_app{SUFFIX}.md, .csv, _launches.jsonl")
    parser.add_argument(
        "--args",
        type=Path,
        default=ARGS,
        help="the table of arguments (program: argument line) instead of corpus_app_args.yaml: e.g. the "
        "arguments of an earlier run whose launches the GPU timed, so a model change is compared on the same launches",
    )
    args = parser.parse_args()
    if args.args != ARGS and not args.args.is_file():  # a table asked for is never dropped silently
        print(f"corpus_app: --args {args.args}: no such file (a YAML table, program: argument line)", file=sys.stderr)
        raise SystemExit(2)
    if args.programs is not None and not args.programs.is_file():
        print(f"corpus_app: --programs {args.programs}: no such file (program names, one a line)", file=sys.stderr)
        raise SystemExit(2)
    programs = sorted(
        str(p) for p in (args.checkout.resolve() / "src").iterdir() if p.name.endswith("-cuda") and p.is_dir()
    )
    if args.only:
        programs = [p for p in programs if re.search(args.only, Path(p).name)]
    if args.programs:
        wanted = {name: i for i, name in enumerate(args.programs.read_text().split())}
        # run in the file's order (e.g. the likeliest to finish first, where time is short)
        programs = sorted((p for p in programs if Path(p).name in wanted), key=lambda p: wanted[Path(p).name])
    start = time.monotonic()
    # each program's row is appended as it finishes: a run that stops goes on where it was
    progress = HERE / f".corpus_app{args.suffix}.progress.jsonl"
    done = {}
    if progress.is_file():
        for line in progress.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line cut short
            done[row["program"]] = row
    todo = [p for p in programs if Path(p).name not in done]
    print(f"{len(done)} programs read back from {progress.name}, {len(todo)} to run", file=sys.stderr)
    with ProcessPoolExecutor(args.jobs) as pool, open(progress, "a") as log:
        futures = {pool.submit(run_one, p, args.gpu, args.seconds, args.args, args.cache_budget): p for p in todo}
        for future in as_completed(futures):
            row = future.result()
            done[str(row["program"])] = row
            log.write(json.dumps(row, default=str) + "\n")
            log.flush()
    rows = [done[Path(p).name] for p in sorted(programs)]
    report = summary(args.checkout, rows, time.monotonic() - start, args)
    print(report)
    if args.write:
        results, table, launches = (
            HERE / f"results_corpus_app{args.suffix}{ext}" for ext in (".md", ".csv", "_launches.jsonl")
        )
        results.write_text(report)
        keys = ["program", "outcome", "checked", "exit_status", "launches", "kernels", "predicted_time_s"]
        keys += ["seconds", "args", "reason", "message"]
        with open(table, "w", newline="") as f:
            writer = csv.DictWriter(f, keys, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        with open(launches, "w") as f:
            for r in rows:
                for launch in r.get("launch_rows") or []:  # type: ignore[union-attr]
                    f.write(json.dumps(launch, default=str) + "\n")


def summary(checkout: Path, rows: list[dict[str, object]], took: float, args: argparse.Namespace) -> str:
    import platform

    outcomes = collections.Counter(str(r["outcome"]) for r in rows)
    n = len(rows)
    # each program's own wall time, summed: the same whether the run was resumed or not
    spent = sum(float(r.get("seconds") or 0) for r in rows)  # type: ignore[arg-type]
    lines = [
        "# HeCBench run whole through `perfcalc app` (`python benchmarks/corpus_app.py`)",
        "",
        f"Checkout: {checkout.name} at {_commit(checkout)}; {n} programs. Modelled GPU: {args.gpu}; "
        f"{args.seconds:g} s per program, cache-model budget {args.cache_budget:g} s per launch; "
        f"{platform.machine()}, {os.cpu_count()} cores; {spent:.0f} s of program runs "
        f"({args.jobs} at a time; this invocation {took:.0f} s).",
        "",
        "| outcome | programs | share |",
        "|---|---|---|",
    ]
    for name in ("passed", "failed", "refused", "out of time", "no data"):
        lines.append(f"| {name} | {outcomes.get(name, 0)} | {100 * outcomes.get(name, 0) / max(n, 1):.1f} % |")
    checked = sum(1 for r in rows if r["outcome"] == "passed" and r.get("checked"))
    runnable = n - outcomes.get("no data", 0)
    lines += [
        "",
        f"Of the {runnable} programs whose data the checkout holds, {outcomes.get('passed', 0)} passed "
        f"({100 * outcomes.get('passed', 0) / max(runnable, 1):.1f} %).",
    ]
    lines += ["", f"Of the passed programs, {checked} print PASS/FAIL and passed their own check.", ""]
    lines += ["## Refusals and time-outs by reason", "", "| reason | programs |", "|---|---|"]
    reasons = collections.Counter(
        reason_class(str(r.get("message"))) if r["outcome"] == "out of time" else str(r.get("reason"))
        for r in rows
        if r["outcome"] in ("refused", "out of time")
    )
    lines += [f"| {k} | {v} |" for k, v in reasons.most_common()]
    gpu = _gpu_outcomes()
    failed = [r for r in rows if r["outcome"] == "failed"]
    also = [r for r in failed if gpu.get((str(r["program"]), str(r.get("args", "")))) is False]
    lines += [
        "",
        "## Failed: the last line each printed",
        "",
        f"{len(also)} of the {len(failed)} fail on an H100 too, built by their own Makefile and run with the "
        f"same arguments (benchmarks/hw/hecbench_failed_h100/: {GPU_RUNS_NOTE}): the program's failure with "
        "these arguments, not perfcalc's.",
        "",
        "| program | last line | on the H100, same arguments |",
        "|---|---|---|",
    ]
    verdict = {True: "passes", False: "fails too", None: "not run"}
    lines += [
        f"| {r['program']} | {str(r.get('message', ''))[:100]} | "
        f"{verdict[gpu.get((str(r['program']), str(r.get('args', ''))))]} |"
        for r in failed
    ]
    return "\n".join(lines) + "\n"


GPU_RUNS = HERE / "hw" / "hecbench_failed_h100" / "failed"
GPU_RUNS_NOTE = "the programs that failed here in an earlier run, arguments in arguments.json"


def _gpu_outcomes() -> dict[tuple[str, str], bool]:
    """(program, arguments) -> whether the H100 run with those arguments passed: exit 0 and
    no FAIL printed."""
    runs, arguments = GPU_RUNS / "runs_small.jsonl", GPU_RUNS / "arguments.json"
    if not runs.is_file() or not arguments.is_file():
        return {}
    given = json.loads(arguments.read_text())
    out: dict[tuple[str, str], bool] = {}
    for line in runs.read_text().splitlines():
        row = json.loads(line)
        if row["program"] in given and not row["tail"].startswith("not started"):  # a Makefile's odd `run`
            out[(row["program"], given[row["program"]])] = row["rc"] == 0 and not re.search(r"\bFAIL", row["tail"])
    return out


if __name__ == "__main__":
    main()
