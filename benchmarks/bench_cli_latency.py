"""How long `perfcalc occupancy --cc 7.0 --block 256 --regs 32` takes to answer, in a fresh
process, against `python -c pass` in the same run (issue #2 goal: under 0.3 s).

Every command runs N times, round-robin (so background load hits all of them alike); the
median and the minimum are reported, with the ratio to the interpreter's own start-up. The
breakdown rows (import numpy; import the CLI package; another command) show where the time
goes: the command imports its core modules lazily, so it pays for typer, numpy and the device
file, not for matplotlib, tabulate-free paths or other commands.

Run manually: .venv/bin/python benchmarks/bench_cli_latency.py [--runs 21] [--write]
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

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results_occupancy_cli.md"
PY = sys.executable
CLI = str(Path(sys.executable).with_name("perfcalc"))

COMMANDS = [
    ("baseline: `python -c pass`", [PY, "-c", "pass"]),
    ('`python -c "import numpy"`', [PY, "-c", "import numpy"]),
    ('`python -c "import perfcalc.cli"` (typer + command modules)', [PY, "-c", "import perfcalc.cli"]),
    ("`perfcalc devices show 7.0` (same CLI, no numpy)", [CLI, "devices", "show", "7.0"]),
    (
        "**`perfcalc occupancy --cc 7.0 --block 256 --regs 32`**",
        [CLI, "occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"],
    ),
    (
        "`perfcalc occupancy --cc 7.0 --block 256 --regs 33` (hints searched)",
        [CLI, "occupancy", "--cc", "7.0", "--block", "256", "--regs", "33"],
    ),
]


def measure(runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {label: [] for label, _ in COMMANDS}
    for _ in range(runs):
        for label, command in COMMANDS:
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True)
            times[label].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"{label} failed: {done.stderr.decode()[-300:]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs per command (default 21)")
    parser.add_argument("--write", action="store_true", help=f"write the table to {RESULTS.name}")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    times = measure(args.runs)
    load = f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    base = statistics.median(times[COMMANDS[0][0]])
    machine = f"{platform.machine()} sandbox, 2 cores shared with other work, Python {platform.python_version()}"
    lines = [
        "## `perfcalc occupancy` latency (benchmarks/bench_cli_latency.py)",
        "",
        f"Machine: {machine} ({load}). {args.runs} runs per command, round-robin in one "
        "run; wall time of a fresh process (subprocess.run), goal < 300 ms for the bold row.",
        "",
        "| command | median | min | median / baseline |",
        "|---|---|---|---|",
    ]
    for label, _ in COMMANDS:
        median, best = statistics.median(times[label]), min(times[label])
        lines.append(f"| {label} | {median * 1e3:.0f} ms | {best * 1e3:.0f} ms | {median / base:.1f}x |")
    median = {label: statistics.median(t) for label, t in times.items()}
    devices, occ = median[COMMANDS[3][0]], median[COMMANDS[4][0]]
    lines += [
        "",
        "The CLI's own floor, `perfcalc devices show 7.0` (typer and the YAML device file; "
        "no NumPy), is "
        f"{devices * 1e3:.0f} ms; `perfcalc occupancy` adds {(occ - devices) * 1e3:.0f} ms "
        "(NumPy, the engine and the hints). matplotlib is never imported without --plot.",
        "",
    ]
    table = "\n".join(lines)
    print(table)
    if args.write:
        RESULTS.write_text(table)
        print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
