"""Here, before the GPU run of issues 31 and 32: the HeCBench programs `perfcalc app` ran, copied
(sources only, no data) into a folder to carry, with what to run on the GPU.

    python benchmarks/hw/hecbench_prepare.py PATH-TO-A-HECBENCH-CHECKOUT .hw_hecbench [--partial]
        [--outcome failed]   (the programs whose own check failed under perfcalc: does the GPU pass it?)

Reads benchmarks/results_corpus_app.csv (benchmarks/corpus_app.py --write). For each program that
passed there: its folder's files under 1 MiB, the folders its files name as `../NAME/` (the suite
shares headers between versions) and `src/include`. `manifest.json` lists, per program, the
executable its Makefile's `run` target starts and two argument lists: `small`, the ones perfcalc
ran (so every launch can be compared one to one), and `full`, the Makefile's own (GPU-sized; the
time model's >= 1 ms regime), where every file they name is in the checkout.
"""

from __future__ import annotations

import csv
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results_corpus_app.csv"
LARGEST = 1 << 20


def run_command(program: Path) -> list[str] | None:
    """The words of the Makefile's `run` command (`./main ARGS`)."""
    done = subprocess.run(["make", "-n", "run"], cwd=program, capture_output=True, text=True, timeout=60)
    for line in reversed(done.stdout.splitlines()):
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words and words[0].startswith("./"):
            return words
    return None


SOURCES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", "")


def program_files(src: Path, large_ok: tuple[str, ...] = ()) -> tuple[list[Path], set[str]]:
    """A program folder's files of at most 1 MiB (and larger ones with a suffix in `large_ok`),
    and the sibling folders its sources name as `../NAME/`."""
    files: list[Path] = []
    siblings: set[str] = set()
    for f in sorted(src.rglob("*")):
        if not f.is_file() or f.suffix in (".o", ".dvc"):
            continue
        if f.stat().st_size > LARGEST and f.suffix not in large_ok:
            continue
        files.append(f)
        if f.suffix in SOURCES or f.name == "Makefile":
            siblings |= set(re.findall(r"\.\./([\w+.-]+)/", f.read_text(errors="replace")))
    return files, siblings


def copy_program(src: Path, out: Path) -> set[str]:
    """Copy a program's small files; the sibling folders they name."""
    files, siblings = program_files(src)
    for f in files:
        target = out / f.relative_to(src.parent)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
    return siblings


def main() -> None:
    checkout, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    if out.exists():
        shutil.rmtree(out)
    (out / "src").mkdir(parents=True)
    progress = HERE.parent / ".corpus_app.progress.jsonl"  # a run still going: the rows so far
    outcome = sys.argv[sys.argv.index("--outcome") + 1] if "--outcome" in sys.argv else "passed"
    if "--partial" in sys.argv and progress.is_file():
        rows = [json.loads(ln) for ln in progress.read_text().splitlines() if ln.strip()]
        rows = [r for r in rows if r["outcome"] == outcome]
    else:
        with open(RESULTS, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["outcome"] == outcome]
    manifest, wanted = [], {"include"}
    for row in rows:
        folder = checkout / "src" / row["program"]
        words = run_command(folder)
        if words is None:
            continue
        wanted |= copy_program(folder, out / "src")
        full = words[1:]
        files = [a for a in full if "/" in a]
        for a in {*files, *[w for w in shlex.split(row["args"]) if "/" in w]}:
            named = (folder / a).resolve()
            if named.is_file() and named.stat().st_size <= 16 * LARGEST:
                target = out / "src" / named.relative_to(checkout / "src")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(named, target)
        manifest.append(
            {
                "program": row["program"],
                "executable": words[0],
                "small": shlex.split(row["args"]),
                "full": full if all((folder / a).exists() for a in files) else None,
            }
        )
    for name in sorted(wanted - {"data"}):  # data: only the files the arguments name, above
        folder = checkout / "src" / name
        if folder.is_dir() and not (out / "src" / name).exists():
            copy_program(folder, out / "src")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"{len(manifest)} programs, {size / 2**20:.1f} MiB -> {out}")


if __name__ == "__main__":
    main()
