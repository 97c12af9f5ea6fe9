"""Write (or check) the answers kept for issue 29's refactor: tests/golden.py's commands and the
PTX corpus, run on the perfcalc that `import perfcalc` finds.

    PYTHONPATH=<checkout of the commit before> python benchmarks/golden_outputs.py --write COMMIT

Run from this repository's root (the commands name files under tests/data).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import golden  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="COMMIT", help="write tests/data/golden/outputs.json for COMMIT")
    args = parser.parse_args()
    from typer.testing import CliRunner

    import perfcalc
    from perfcalc.cli import app
    from perfcalc.sim.ptx import nvrtc

    print(f"perfcalc from {Path(perfcalc.__file__).parent}", file=sys.stderr)
    runner = CliRunner()
    outputs = {}
    start = time.monotonic()
    for command in golden.commands(nvrtc.available()):
        done = runner.invoke(app, command)
        if done.exit_code != 0:
            raise SystemExit(f"{' '.join(command)}: exit {done.exit_code}: {done.output[-500:]}")
        outputs[" ".join(command)] = golden.normalise(done.stdout)
    corpus = golden.corpus_outputs() if nvrtc.available() else {}
    print(
        f"{len(outputs)} commands and {len(corpus)} corpus launches in {time.monotonic() - start:.1f} s",
        file=sys.stderr,
    )
    if args.write:
        golden.GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        golden.GOLDEN.write_text(
            json.dumps({"commit": args.write, "commands": outputs, "corpus": corpus}, indent=1, sort_keys=True) + "\n"
        )


if __name__ == "__main__":
    main()
