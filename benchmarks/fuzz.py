"""The long run of the fuzzing suite (issue #14): N cases of each class, seeded, each checked by
tests/fuzz_cases.py (exit 0 or one error line with exit 2, no traceback, within 30 s, nothing
left on disk), plus SIGTERM trials of `report`. Results are merged into
benchmarks/results_fuzz.json, one entry per class; FUZZING.md is written from it.

    python benchmarks/fuzz.py --cases 10000                      # every class
    python benchmarks/fuzz.py --cases 10000 --only expressions   # one class
    python benchmarks/fuzz.py --signals 100                      # SIGTERM trials only
    python benchmarks/fuzz.py --signals 500 --first 100          # 500 more, after the recorded 100
    python benchmarks/fuzz.py --write-md                         # FUZZING.md from the results
"""

from __future__ import annotations

import argparse
import collections
import json
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import fuzz_cases as F  # noqa: E402 - the generators live beside the tests that use them
import fuzz_programs as P  # noqa: E402
import fuzz_shapes as S  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results_fuzz.json"


def run_class(name: str, cases: int, first: int = 0) -> dict:
    failures: collections.Counter[str] = collections.Counter()
    examples: dict[str, list] = {}
    exits: collections.Counter[str] = collections.Counter()
    slowest = 0.0
    start = time.monotonic()
    for i in range(first, first + cases):
        rng = random.Random(f"{name}-{i}")
        if name == "library API":
            outcome = F.run_library_call(F.library_call(random.Random(f"lib-{i}")))
            argv: list[str] = []
        elif name == "PTX corpus mutations (library)":
            outcome = F.run_library_call(F.corpus_call(random.Random(f"corpus-{i}")))
            argv = []
        elif name == "outputs under signals":
            outcome = F.run_signal_case(random.Random(f"sig-{i}"))
            argv = []
        elif name in S.CHECKS or name in P.CHECKS:
            outcome = {**S.CHECKS, **P.CHECKS}[name](rng)
            argv = []
        else:
            case = (
                F.kernel_case(random.Random(f"ptx-{i}"), "ptx")
                if name == "kernel sources (ptx engine)"
                else {**F.CLASSES, **S.CASES}[name](rng)
            )
            outcome = F.run_case(case)
            argv = case.argv
        slowest = max(slowest, outcome.seconds)
        exits[outcome.why if outcome.ok else "failed"] += 1
        if not outcome.ok:
            key = outcome.why[:160]
            failures[key] += 1
            examples.setdefault(key, [i, [a[:80] for a in argv[:20]]])
    return {
        "cases": cases,
        "first_seed": first,
        "failures": sum(failures.values()),
        "outcomes": dict(exits),
        "slowest_case_s": round(slowest, 2),
        "wall_s": round(time.monotonic() - start, 1),
        "failure_kinds": [{"count": c, "why": k, "first": examples[k]} for k, c in failures.most_common()],
    }


def run_signals(trials: int, first: int = 0) -> dict:
    """SIGTERM at a random moment of `report`: nothing, or every file that one uninterrupted run
    of the same command writes, must be left. Trial i draws its moment from Random(f"signals-{i}")
    (the first 100, recorded on 2026-11-27, drew theirs from one Random("signals") stream), so a
    later sitting continues with --first."""
    command = [sys.executable, "-m", "perfcalc", "report", "--gpu", "h100-sxm", "--no-times", "-o", "rep"]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(command, cwd=tmp, check=True, capture_output=True, timeout=120)
        everything = sorted(p.name for p in Path(tmp, "rep").iterdir())
    seen: collections.Counter[str] = collections.Counter()
    bad = []
    start = time.monotonic()
    for trial in range(first, first + trials):
        rng = random.Random(f"signals-{trial}")
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.Popen(
                command,
                cwd=tmp,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            time.sleep(rng.uniform(0.05, 2.0))
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
            rep = Path(tmp, "rep")
            left = sorted(p.name for p in rep.iterdir()) if rep.exists() else None
            others = sorted(p.name for p in Path(tmp).iterdir() if p.name != "rep")
            state = "nothing" if left is None else "complete" if left == everything else "partial"
            seen[f"{state}, exit {proc.returncode}"] += 1
            if state == "partial" or others or proc.returncode not in (0, 143, -15):
                bad.append([trial, left, others, proc.returncode, err[-200:]])
    return {
        "cases": trials,
        "first_seed": first,
        "failures": len(bad),
        "outcomes": dict(seen),
        "wall_s": round(time.monotonic() - start, 1),
        "failure_kinds": bad[:10],
    }


def write_md(results: dict) -> None:
    lines = [
        "# Fuzzing",
        "",
        "perfcalc's fuzzing suite checks one promise on every generated input: exit 0, or "
        "exit 2 with one `error:` line (a source error may add its quoted line and caret); no "
        "traceback; within 30 s; nothing left on disk but the files a successful command was "
        "asked to write. Library calls may only return or raise perfcalc's own errors (a NumPy "
        "warning counts as a failure). Generators: `tests/fuzz_cases.py`; fast slice in CI: "
        "`tests/test_fuzz.py`; this long run: `python benchmarks/fuzz.py --cases 10000` "
        "(raw results: `benchmarks/results_fuzz.json`).",
        "",
        f"Last run: {results.get('_machine', '?')}.",
        "",
        "| class | cases | failures | outcomes | slowest case | wall |",
        "| --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for name, r in results.items():
        if name.startswith("_"):
            continue
        outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(r["outcomes"].items()))
        slowest = f"{r['slowest_case_s']} s" if "slowest_case_s" in r else "-"
        lines.append(f"| {name} | {r['cases']} | {r['failures']} | {outcomes} | {slowest} | {r['wall_s']} s |")
    lines += [
        "",
        "Signals: `report` under SIGTERM at a random moment (0.05-2 s); 'exit -15' is a "
        "signal that arrived while no perfcalc handler was installed: before it (Python "
        "still importing, nothing written) or after the command had finished (the report "
        "complete). 'outputs under signals' sends "
        "SIGINT or SIGTERM in-process at a random share of an undisturbed run's time.",
        *([""] + [f"- {note}" for note in results["_notes"]] if "_notes" in results else []),
    ]
    (ROOT / "FUZZING.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--only", action="append", help="a class name (repeatable)")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="first case number: runs seeds first..first+cases-1 and adds them to "
        "the class's recorded results (a long class in several sittings)",
    )
    parser.add_argument("--signals", type=int, default=0, help="SIGTERM trials of report")
    parser.add_argument("--write-md", action="store_true")
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    classes = [
        *F.CLASSES,
        *S.CASES,
        *S.CHECKS,
        *P.CHECKS,
        "library API",
        "kernel sources (ptx engine)",
        "outputs under signals",
        "PTX corpus mutations (library)",
    ]
    ran: set[str] = set()
    todo = args.only or ([] if args.signals or args.write_md else classes)
    for name in todo:
        if name not in classes:
            raise SystemExit(f"unknown class {name!r}; classes: {', '.join(classes)}")
        fresh = run_class(name, args.cases, args.first)
        results[name] = _merge(results.get(name), fresh) if args.first else fresh
        ran.add(name)
        print(name, {k: v for k, v in results[name].items() if k != "failure_kinds"}, flush=True)
        _save({k: results[k] for k in ran})
    if args.signals:
        fresh = run_signals(args.signals, args.first)
        name = "report under SIGTERM"
        results[name] = _merge(results.get(name), fresh) if args.first else fresh
        ran.add("report under SIGTERM")
        print(results["report under SIGTERM"], flush=True)
        _save({k: results[k] for k in ran})
    if args.write_md:
        write_md(results)


def _merge(old: dict | None, new: dict) -> dict:
    """Add a later sitting (seeds after the recorded ones) to a class's results."""
    if old is None or old.get("first_seed", 0) + old["cases"] != new["first_seed"]:
        raise SystemExit("--first must continue the recorded seeds of the class")
    outcomes = collections.Counter(old["outcomes"]) + collections.Counter(new["outcomes"])
    return {
        "cases": old["cases"] + new["cases"],
        "first_seed": old.get("first_seed", 0),
        "failures": old["failures"] + new["failures"],
        "outcomes": dict(outcomes),
        **(
            {"slowest_case_s": max(old["slowest_case_s"], new["slowest_case_s"])}
            if "slowest_case_s" in old and "slowest_case_s" in new
            else {}
        ),
        "wall_s": round(old["wall_s"] + new["wall_s"], 1),
        "failure_kinds": old["failure_kinds"] + new["failure_kinds"],
    }


def _save(results: dict) -> None:
    """Write the classes this process ran over the file as it is now: another process may have
    finished other classes meanwhile, and this one's copies of those are stale."""
    current = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    current.update(results)
    current["_machine"] = (
        f"{platform.node() and 'this sandbox'}, {platform.machine()}, Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}"
    )
    RESULTS.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
