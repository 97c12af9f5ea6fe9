"""How long perfcalc's commands take to answer, in fresh processes, against `python -c pass`
in the same run, each against its goal (issue #2: occupancy < 0.3 s; issue #13: `--help`
<= 0.12 s, every command that simulates nothing <= 0.2 s, `run` of a small catalog kernel
<= 0.3 s). A goal that is missed says so in the table.

Every command runs N times, round-robin (so background load hits all of them alike), after one
warm-up run of each with bytecode writing on (PYTHONDONTWRITEBYTECODE removed), so the times are
those of an installed package with its .pyc files; the median and the minimum are reported, with
the ratio to the interpreter's own start-up. `--importtime` adds the slowest imports of the
occupancy command (python -X importtime), which is where the time goes.

Run manually: .venv/bin/python benchmarks/bench_cli_latency.py [--runs 21] [--importtime] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _timing import publish

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results_occupancy_cli.md"
PY = sys.executable
CLI = str(Path(sys.executable).with_name("perfcalc"))

OCCUPANCY = [CLI, "occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"]
# (label, command, goal in seconds or None)
COMMANDS = [
    ("baseline: `python -c pass`", [PY, "-c", "pass"], None),
    ('`python -c "import numpy"`', [PY, "-c", "import numpy"], None),
    ('`python -c "import perfcalc.cli"` (typer + command modules)', [PY, "-c", "import perfcalc.cli"], None),
    ("`perfcalc --help`", [CLI, "--help"], 0.12),
    ("`perfcalc devices show 7.0` (no NumPy)", [CLI, "devices", "show", "7.0"], 0.2),
    ("**`perfcalc occupancy --cc 7.0 --block 256 --regs 32`**", OCCUPANCY, 0.2),
    (
        "`perfcalc occupancy --cc 7.0 --block 256 --regs 33` (hints searched)",
        [CLI, "occupancy", "--cc", "7.0", "--block", "256", "--regs", "33"],
        0.2,
    ),
    ("`perfcalc coalesce --stride 2`", [CLI, "coalesce", "--stride", "2"], 0.2),
    ("`perfcalc roofline --gpu v100`", [CLI, "roofline", "--gpu", "v100"], 0.2),
    ("`perfcalc run copy_stride -p n=4096` (simulates 16 blocks)", [CLI, "run", "copy_stride", "-p", "n=4096"], 0.3),
]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(runs: int) -> dict[str, list[float]]:
    for _label, command, _goal in COMMANDS:  # warm-up: compile and cache every module once
        subprocess.run(command, capture_output=True, env=ENV, check=True)
    times: dict[str, list[float]] = {label: [] for label, _, _ in COMMANDS}
    for _ in range(runs):
        for label, command, _goal in COMMANDS:
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, env=ENV)
            times[label].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"{label} failed: {done.stderr.decode()[-300:]}")
    return times


def slowest_imports(command: list[str], top: int = 12) -> list[tuple[str, int]]:
    """(module, cumulative microseconds) of the top-level imports the command pays for most."""
    module = "perfcalc" if command[0] == CLI else None
    argv = [PY, "-X", "importtime", "-m", module, *command[1:]] if module else command
    err = subprocess.run(argv, capture_output=True, text=True, env=ENV).stderr
    found = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _self, cumulative, name = line.split("|")
        if not name.startswith("  ") and cumulative.strip().isdigit():  # not nested in another import
            found.append((name.strip(), int(cumulative)))
    return sorted(found, key=lambda f: -f[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs per command (default 21)")
    parser.add_argument("--importtime", action="store_true", help="add the occupancy command's slowest imports")
    parser.add_argument("--write", action="store_true", help=f"write the table to {RESULTS.name}")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    times = measure(args.runs)
    load = f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    base = statistics.median(times[COMMANDS[0][0]])
    machine = f"{platform.machine()} sandbox, 2 cores, Python {platform.python_version()}"
    lines = [
        "## perfcalc start-up (benchmarks/bench_cli_latency.py)",
        "",
        f"Machine: {machine} ({load}). {args.runs} runs per command, round-robin in one run, after a "
        "warm-up that wrote every .pyc; wall time of a fresh process (subprocess.run).",
        "",
        "| command | median | min | median / baseline | goal |",
        "|---|---|---|---|---|",
    ]
    for label, _, goal in COMMANDS:
        median, best = statistics.median(times[label]), min(times[label])
        verdict = "" if goal is None else f"<= {goal:g} s: {'met' if median <= goal else '**NOT met**'}"
        lines.append(f"| {label} | {median * 1e3:.0f} ms | {best * 1e3:.0f} ms | {median / base:.1f}x | {verdict} |")
    if args.importtime:
        lines += ["", "Slowest top-level imports of the occupancy command (python -X importtime, cumulative):", ""]
        lines += [f"- `{name}`: {us / 1e3:.1f} ms" for name, us in slowest_imports(OCCUPANCY)]
    lines.append("")
    publish(lines, RESULTS, args.write)


if __name__ == "__main__":
    main()
