"""Here, after the H100 run: the cache model against the H100's counters, per launch.

    python benchmarks/hw/caches_compare.py [RUN_DIR [PRODUCT]]   (default caches_run, h100-sxm)

For every launch of caches_cases.py (corpus + catalog, the same inputs the H100 ran), the PTX
engine runs it with the L1/L2 model configured for the H100 SXM from the product data and the
occupancy of ptxas's allocation (analysis/caches.py); the model's L1 load hit rate, L2 hit rate
of the SMs' requests, DRAM bytes read and written are set beside Nsight Compute's. Writes
benchmarks/hw/caches_comparison.csv and prints the summary RESULTS.md quotes.

Which hardware figure each prediction is compared with:
- L1: l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct (global loads only).
- L2: the SMs' requests, (srcunit_tex read + write lookup hits) / (read + write sectors).
  ncu's headline lts__t_sector_hit_rate.pct also counts the traffic between the H100's two L2
  partitions (lts__t_sectors_op_read exceeds srcunit_tex_op_read by about half on a copy), which
  the model does not have; it is listed too, not compared.
- DRAM: dram__bytes_read.sum / dram__bytes_write.sum.
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from caches_cases import catalog_entries  # noqa: E402
from ptx_corpus_prepare import corpus_entries  # noqa: E402

from perfcalc.analysis.caches import cache_model  # noqa: E402
from perfcalc.model.occupancy import OccupancyInputs  # noqa: E402
from perfcalc.model.ptxas import entry_resources  # noqa: E402
from perfcalc.sim.engine import run_kernel  # noqa: E402
from perfcalc.sim.ptx.compile import compile_kernel  # noqa: E402
from perfcalc.specs import get_gpu, resolve_arch  # noqa: E402


def read_ncu(path: Path) -> list[dict[str, float]]:
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows: dict[str, dict[str, float]] = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        value = r["Metric Value"].replace(",", "")
        rows.setdefault(r["ID"], {})[r["Metric Name"]] = float(value) if value else float("nan")
    return [rows[k] for k in sorted(rows, key=int)]


def measured(m: dict[str, float]) -> dict[str, float | None]:
    reads = m["lts__t_sectors_srcunit_tex_op_read.sum"]
    writes = m["lts__t_sectors_srcunit_tex_op_write.sum"]
    hits = (
        m["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] + m["lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum"]
    )
    ld = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    return {
        "l1": m["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"] / 100 if ld else None,
        "l2": hits / (reads + writes) if reads + writes else None,
        "l2_all": m["lts__t_sector_hit_rate.pct"] / 100,
        "dram_r": m["dram__bytes_read.sum"],
        "dram_w": m["dram__bytes_write.sum"],
        "time_ns": m["gpu__time_duration.sum"],
    }


def predict(entry: dict, gpu: object, arch: object) -> tuple[object, float]:
    defines = {k: v for k, v in entry["defines"].items()}
    ck = compile_kernel(entry["text"], entry["kernel"], arch, defines, entry["source_name"])
    res = entry_resources(ck.ptxas_log, ck.fn.name)
    assert res is not None, f"ptxas reported nothing for {ck.fn.name}"
    occ = OccupancyInputs(
        math.prod(entry["block"]), res.registers_per_thread, res.static_shared_memory_bytes, entry["dynamic_shared"]
    )
    model = cache_model(gpu, arch, occ)
    t0 = time.perf_counter()
    r = run_kernel(
        entry["text"],
        ck.kernel,
        entry["grid"],
        entry["block"],
        entry["args"],
        arch,
        entry["dynamic_shared"],
        defines=defines,
        source_name=entry["source_name"],
        engine="ptx",
        caches=model,
    )
    return r.caches, time.perf_counter() - t0


def fmt(x: float | None, digits: int = 3) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def main(run_dir: Path, product: str = "h100-sxm") -> None:
    hw = read_ncu(run_dir / "ncu.csv")
    entries = corpus_entries() + catalog_entries()
    assert len(hw) == len(entries), (len(hw), len(entries))
    gpu = get_gpu(product)
    arch = resolve_arch(gpu.cc)
    out = []
    for entry, m in zip(entries, hw, strict=True):
        got = measured(m)
        rep, secs = predict(entry, gpu, arch)
        row = {
            "launch": entry["name"],
            "l1_hit_model": fmt(rep.l1_load_hit_rate),
            "l1_hit_h100": fmt(got["l1"]),
            "l2_hit_model": fmt(rep.l2_hit_rate),
            "l2_hit_h100_sm_requests": fmt(got["l2"]),
            "l2_hit_h100_ncu_headline": fmt(got["l2_all"]),
            "dram_read_model": rep.dram_bytes_read,
            "dram_read_h100": int(got["dram_r"]),
            "dram_write_model": rep.dram_bytes_written,
            "dram_write_h100": int(got["dram_w"]),
            "l2_dirty_at_end_model": rep.l2_dirty_bytes_at_end,
            "model_seconds": f"{secs:.2f}",
        }
        out.append(row)
        print(json.dumps(row), flush=True)
    name = "caches_comparison.csv" if product == "h100-sxm" else f"caches_comparison_{product}.csv"
    with (HERE / name).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    summarize(out)


def summarize(rows: list[dict]) -> None:
    def pairs(a: str, b: str) -> list[tuple[float, float]]:
        return [(float(r[a]), float(r[b])) for r in rows if r[a] != "" and r[b] != ""]

    for name, a, b in (
        ("L1 load hit rate", "l1_hit_model", "l1_hit_h100"),
        ("L2 hit rate (SM requests)", "l2_hit_model", "l2_hit_h100_sm_requests"),
    ):
        p = pairs(a, b)
        err = [abs(x - y) for x, y in p]
        within = sum(e <= 0.10 for e in err)
        print(
            f"{name}: {len(p)} launches, median |diff| {statistics.median(err) * 100:.1f} "
            f"points, within 10 points {within}/{len(p)}"
        )
    for name, a, b, floor in (
        ("DRAM read", "dram_read_model", "dram_read_h100", 64 << 10),
        ("DRAM write", "dram_write_model", "dram_write_h100", 64 << 10),
    ):
        p = pairs(a, b)
        big = [(x, y) for x, y in p if max(x, y) >= floor]
        ok = sum(abs(x - y) <= 0.2 * y for x, y in big)
        print(
            f"{name}: {len(big)} launches with >= {floor >> 10} KiB either side, within 20 % "
            f"{ok}/{len(big)}; below that, {len(p) - len(big)} launches"
        )


if __name__ == "__main__":
    main(
        Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "caches_run",
        sys.argv[2] if len(sys.argv) > 2 else "h100-sxm",
    )
