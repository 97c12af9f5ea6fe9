"""Here, before `hecbench_app_on_device.sh`: pack HeCBench programs for `perfcalc app` on the
device machine's CPUs (issue 31), within the 64 MiB a call carries.

    python benchmarks/hw/hecbench_app_pack.py PATH-TO-A-HECBENCH-CHECKOUT LIST [.hw_app]

LIST names the programs (one a line). Packed into .hw_app/hec_small.tar.xz: each program's files
of at most 1 MiB (and its headers of any size: bm3d's CImg.h), `src/include`, `src/data`, the
sibling folders its files name as `../NAME/` (the suite shares sources and data between
versions), and a COMMIT file naming the checkout's commit. Data files over 1 MiB stay behind: a
program that needs one fails there, and its row says so.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hecbench_prepare import LARGEST, program_files  # noqa: E402

HEADERS = (".h", ".hpp", ".cuh")  # kept whatever their size: bm3d's CImg.h is 1.9 MiB


def main() -> None:
    if len(sys.argv) < 3:
        print("usage: hecbench_app_pack.py PATH-TO-A-HECBENCH-CHECKOUT LIST [.hw_app]", file=sys.stderr)
        raise SystemExit(2)
    checkout, listing = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    out = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(".hw_app")
    if not (checkout / "src").is_dir() or not listing.is_file():
        print(f"hecbench_app_pack: {checkout} has no src/ or {listing} is no file of program names", file=sys.stderr)
        raise SystemExit(2)
    src = checkout / "src"
    files: list[Path] = []
    siblings: set[str] = set()
    for name in listing.read_text().split():
        found, named = program_files(src / name, large_ok=HEADERS)
        files += found
        siblings |= named
    for extra in sorted(siblings | {"include", "data"}):
        folder = src / extra
        if folder.is_dir() and not extra.endswith("-cuda") and not extra.startswith("."):
            files += [f for f in sorted(folder.rglob("*")) if f.is_file() and f.stat().st_size <= LARGEST]
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True)
    out.mkdir(exist_ok=True)
    with tarfile.open(out / "hec_small.tar.xz", "w:xz") as tar:
        for f in dict.fromkeys(files):
            tar.add(f, arcname=str(f.relative_to(checkout)))
        data = (commit.stdout.strip() or "(unknown commit)").encode() + b"\n"
        info = tarfile.TarInfo("COMMIT")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    print(f"{len(files)} files -> {out / 'hec_small.tar.xz'}")


if __name__ == "__main__":
    main()
