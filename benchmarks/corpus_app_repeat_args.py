"""Here, for benchmarks/corpus_app.py: arguments for the HeCBench programs that ran out of time,
where the program's own usage line names a repeat count: the same arguments corpus_app.py tries
last (the Makefile's, 1,024 times smaller) with the repeat count set to 1. Repeating a timed loop
does not change what one launch computes, only how many times; the program's own check still
runs. Written to benchmarks/corpus_app_args.yaml (kept entries are left as they are).

    python benchmarks/corpus_app_repeat_args.py PATH-TO-A-HECBENCH-CHECKOUT
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml
from corpus_app import ARGS, HERE, makefile_arguments, scaled

USAGE = re.compile(r'[Uu]sage:?\s*(?:\./)?%s\s+([^"\\]*)')
REPEAT = re.compile(r"<\s*(repeat|repetitions?|iterations?|iters?|nrepeat|num_?iterations|runs)\s*>", re.I)


def repeat_position(folder: Path) -> int | None:
    """Which argument the usage line calls the repeat count (0-based), if it says."""
    for path in sorted(folder.glob("*.c*")):
        for m in USAGE.finditer(path.read_text(errors="replace")):
            words = re.findall(r"<[^>]*>|\[[^\]]*\]|\S+", m.group(1))
            for i, w in enumerate(words):
                if REPEAT.fullmatch(w):
                    return i
    return None


def main() -> None:
    checkout = Path(sys.argv[1]) / "src"
    progress = HERE / ".corpus_app.progress.jsonl"
    rows = [json.loads(line) for line in progress.read_text().splitlines()]
    late = [r["program"] for r in rows if r["outcome"] == "out of time"]
    table = (yaml.safe_load(ARGS.read_text()) if ARGS.is_file() else None) or {}
    added = 0
    for name in late:
        folder = checkout / name
        found = makefile_arguments(folder)
        where = repeat_position(folder)
        if name in table or found is None or where is None or where >= len(found):
            continue
        args = scaled(found, 1024)
        args[where] = "1"
        table[name] = " ".join(args)
        added += 1
    head = "# Arguments for benchmarks/corpus_app.py (program: its argument line); see corpus_app_repeat_args.py\n"
    ARGS.write_text(head + yaml.safe_dump(dict(sorted(table.items())), sort_keys=False, width=200))
    print(f"{added} programs given a repeat count of 1; {len(table)} in {ARGS.name}")


if __name__ == "__main__":
    main()
