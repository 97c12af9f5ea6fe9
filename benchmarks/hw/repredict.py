"""Here: a corpus_app launches file priced again by today's time model, from each launch's
recorded model input (`work`), without running the programs again.

    python benchmarks/hw/repredict.py LAUNCHES.jsonl[.xz] GPU > NEW.jsonl

A time-model change that leaves the counting alone gives, this way, what a new corpus run would
(the engine's counts and the cache model's traffic are what `work` holds); a counting change
needs the run. Launches without `work` (faulted, or recorded before corpus_app kept it) are
copied as they are. Compare NEW.jsonl with hecbench_compare.py as any launches file.
"""

from __future__ import annotations

import json
import lzma
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from perfcalc.model.time_model import KernelWork, predict_time  # noqa: E402
from perfcalc.specs import get_arch, get_gpu  # noqa: E402
from perfcalc.specs.timing import timing_rates  # noqa: E402


def _tuples(value: Any) -> Any:
    """JSON's lists back to the tuples KernelWork holds (it has no list fields)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def kernel_work(recorded: dict[str, Any]) -> KernelWork:
    """The KernelWork a row's `work` was written from (corpus_app.py: dataclasses.asdict)."""
    return KernelWork(**{k: _tuples(v) for k, v in recorded.items()})


def main() -> None:
    path, product = Path(sys.argv[1]), sys.argv[2]
    gpu = get_gpu(product)
    arch = get_arch(gpu.cc)
    rates = timing_rates(arch)
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt") as lines:
        for line in lines:
            row = json.loads(line)
            if row.get("work"):
                time = predict_time(kernel_work(row["work"]), gpu, arch, rates)
                row["predicted_time_s"] = time.predicted_time_s
                row["bound"] = time.bound
                row["terms"] = {t.name: t.time_s for t in time.terms}
            print(json.dumps(row))


if __name__ == "__main__":
    main()
