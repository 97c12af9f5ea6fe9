"""Full CC 9.0 occupancy sweep: perfcalc's vectorised engine vs a compiled C++ loop over
NVIDIA's cuda_occupancy.h, in one run, as a ratio (issue #2 goal: within 5x of compiled C).

Sweep: block 32..1024 step 32 x registers 0..255 x dynamic shared memory 0..228 KB step 1 KB
= 32 x 256 x 229 = 1,875,968 configurations (228 KB is above 9.0's 227 KB opt-in, so the last
column launches nothing, as the header reports). Both sides must agree on the sum of active
blocks and of limiter bitmasks, or the timing is meaningless and the script fails.

Also times one `perfcalc occupancy` answer in a fresh process (goal < 0.3 s), through the CLI
when it is installed, else through the library call.

Run manually: .venv/bin/python benchmarks/bench_occupancy_sweep.py [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from occ_driver import build as driver  # noqa: E402

from perfcalc.model.occupancy import occupancy_grid  # noqa: E402
from perfcalc.specs import get_arch  # noqa: E402

REPEATS = 5
RESULTS = ROOT / "benchmarks" / "results_occupancy.md"


def sweep_axes():
    blocks = np.arange(32, 1025, 32)[:, None, None]
    regs = np.arange(0, 256)[None, :, None]
    dynamic = (np.arange(0, 229) * 1024)[None, None, :]
    return blocks, regs, dynamic


def time_numpy(arch):
    blocks, regs, dynamic = sweep_axes()
    times, grid = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        grid = occupancy_grid(arch, blocks, regs, 0, dynamic, check_launch=False)
        times.append(time.perf_counter() - start)
    checks = (
        int(grid.active_blocks.size),
        int(grid.active_blocks.sum(dtype=np.int64)),
        int(grid.limiter_mask.sum(dtype=np.int64)),
    )
    return min(times), statistics.median(times), checks


def time_compiled(arch, exe):
    request = f"sweep {driver.device_fields(arch)} 255 1024 {228 * 1024} {REPEATS}"
    status, configs, seconds, blocks, masks = driver.run(exe, [request])[0]
    if status != 0:
        raise RuntimeError(f"cuda_occupancy.h returned status {status} in the sweep")
    return seconds, (configs, blocks, masks)


PLAIN_LOOP = ROOT / "benchmarks" / "occ_plain_loop.cpp"


def time_plain_loop(arch, out_dir: Path):
    """The strongest compiled baseline: occ_plain_loop.cpp, -O3 -march=native, same sweep."""
    exe = out_dir / "occ_plain_loop"
    include, compiler = driver.find_header_dir(), driver.find_compiler()
    subprocess.run(
        [compiler, "-O3", "-march=native", "-std=c++14", f"-I{include}", "-o", str(exe), str(PLAIN_LOOP)],
        check=True,
        capture_output=True,
    )
    argv = [str(exe), *driver.device_fields(arch).split(), "255", "1024", str(228 * 1024), str(REPEATS), "0"]
    configs, blocks, masks, seconds, status = subprocess.run(
        argv, check=True, capture_output=True, text=True
    ).stdout.split()
    if int(status) != 0:
        raise RuntimeError(f"cuda_occupancy.h returned status {status} in the plain loop")
    return float(seconds), (int(configs), int(blocks), int(masks))


def _median_run(command):
    """Median wall time of a fresh process, with .pyc files written as an installed package has them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command, check=True, capture_output=True, env=env)  # warm-up: write the .pyc files
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_one_answer():
    """(label, median seconds) for the library call and, when installed, the CLI command."""
    rows = [
        (
            "python -c \"import perfcalc; perfcalc.occupancy('7.0', 256, 32)\"",
            _median_run([sys.executable, "-c", "import perfcalc; perfcalc.occupancy('7.0', 256, 32)"]),
        )
    ]
    cli = shutil.which("perfcalc") or str(Path(sys.executable).with_name("perfcalc"))
    if subprocess.run([cli, "occupancy", "--help"], capture_output=True).returncode == 0:
        command = [cli, "occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"]
        rows.append(("perfcalc occupancy --cc 7.0 --block 256 --regs 32", _median_run(command)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write the table to {RESULTS.name}")
    args = parser.parse_args()
    arch = get_arch("9.0")
    with tempfile.TemporaryDirectory() as tmp:
        exe = driver.build(Path(tmp), optimize="-O2")
        driver_seconds, driver_checks = time_compiled(arch, exe)
        c_seconds, c_checks = time_plain_loop(arch, Path(tmp))
    np_best, np_median, np_checks = time_numpy(arch)
    if not c_checks == driver_checks == np_checks:
        raise SystemExit(
            f"results differ: (configs, sum blocks, sum masks) plain loop {c_checks}, test driver "
            f"{driver_checks}, perfcalc {np_checks}"
        )
    answers = time_one_answer()
    ratio = np_best / c_seconds
    machine = (
        f"{platform.machine()} sandbox, 2 cores shared, Python {platform.python_version()}, NumPy {np.__version__}"
    )
    table = "\n".join(
        [
            "## Occupancy engine (benchmarks/bench_occupancy_sweep.py)",
            "",
            f"Machine: {machine}. Best of {REPEATS} runs each, same process run.",
            "",
            "| measurement | time | ratio |",
            "|---|---|---|",
            f"| CC 9.0 full sweep, {c_checks[0]:,} configurations, a plain loop over cuda_occupancy.h "
            f"(`occ_plain_loop.cpp`, g++ -O3 -march=native) | {c_seconds * 1e3:.1f} ms | 1.00 (baseline) |",
            f"| same sweep, the tests' request driver (`tests/occ_driver`, g++ -O2; not the baseline) "
            f"| {driver_seconds * 1e3:.1f} ms | {driver_seconds / c_seconds:.2f} |",
            f"| same sweep, perfcalc `occupancy_grid` (NumPy broadcasting; "
            f"median {np_median * 1e3:.1f} ms) "
            f"| {np_best * 1e3:.1f} ms | {ratio:.2f} (goal <= 5) |",
            *(
                f"| one answer in a fresh process: `{label}` (median) | {seconds * 1e3:.0f} ms | goal < 300 ms |"
                for label, seconds in answers
            ),
            "",
            f"All three agree: {c_checks[1]:,} active blocks and limiter-bitmask sum "
            f"{c_checks[2]:,} "
            "over the sweep. The NumPy engine beats the C loop because broadcasting computes each "
            "limit only over the axes it depends on (registers over block x registers, shared "
            "memory over the 229 sizes) and only the final min and limiter bits over all "
            "configurations; the C loop evaluates every step of the header per configuration.",
            "",
        ]
    )
    print(table)
    if args.write:
        RESULTS.write_text(table)
        print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
