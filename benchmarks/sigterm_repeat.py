"""Issue 35's benchmark note: the SIGTERM-during-`report` test (a signal at each named moment of
the report's path), N consecutive runs, each in a fresh pytest process, with the machine's load
average beside each (the acceptance asks for a loaded machine: run it while something else keeps
the cores busy, e.g. the test suite or a fuzz class).

    python benchmarks/sigterm_repeat.py 200 > benchmarks/results_sigterm_repeat.txt
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

TEST = "tests/test_bad_input.py::test_report_under_sigterm_leaves_nothing_or_everything"


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    failed = 0
    start = time.monotonic()
    print(f"{TEST}, {runs} consecutive runs, {os.cpu_count()} cores", flush=True)
    for i in range(1, runs + 1):
        t0 = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST], capture_output=True, text=True
        )
        load = os.getloadavg()[0]
        verdict = "passed" if done.returncode == 0 else "FAILED"
        failed += done.returncode != 0
        print(f"run {i}: {verdict} in {time.monotonic() - t0:.1f} s, load average {load:.2f}", flush=True)
        if done.returncode != 0:
            print(done.stdout[-3000:], flush=True)
    print(f"{runs - failed} of {runs} passed, {failed} failed, {time.monotonic() - start:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
