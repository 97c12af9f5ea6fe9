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


def _rewrite(section: str, found: dict[str, object], what: str, why: str) -> None:
    """Replace one section of the golden file (the other is kept), listing what changed and
    recording why in `regenerated`."""
    kept = json.loads(golden.GOLDEN.read_text())
    before = kept[section]
    changed = sorted(k for k in found if found[k] != before.get(k))
    print(f"{len(changed)} of {len(found)} {what} changed", file=sys.stderr)
    for key in changed:
        print(f"  {key}: {', '.join(_changed_paths(before.get(key, {}), found[key])[:8])}")
    kept[section] = found
    kept.setdefault("regenerated", []).append({section: changed, "why": why})
    golden.GOLDEN.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="COMMIT", help="write tests/data/golden/outputs.json for COMMIT")
    parser.add_argument(
        "--commands-changed",
        metavar="WHY",
        help="rewrite the commands' answers only (the corpus's are kept), recording why in `regenerated`",
    )
    parser.add_argument(
        "--corpus-changed",
        metavar="WHY",
        help="rewrite the PTX corpus's counters and outputs only (the commands' are kept), recording why",
    )
    args = parser.parse_args()
    if args.corpus_changed:
        _rewrite("corpus", golden.corpus_outputs(), "corpus launches", args.corpus_changed)
        return
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
    if args.commands_changed:
        _rewrite("commands", outputs, "commands' answers", args.commands_changed)
        return
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


def _changed_paths(a: object, b: object, at: str = "") -> list[str]:
    """Where two JSON values differ (dotted paths), for the record of a regeneration."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [p for k in sorted(set(a) | set(b)) for p in _changed_paths(a.get(k), b.get(k), f"{at}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _changed_paths(x, y, f"{at}[{i}]")]
    return [] if a == b else [at or "."]


if __name__ == "__main__":
    main()
