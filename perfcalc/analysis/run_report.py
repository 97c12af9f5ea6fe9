"""The answer of `analysis.analyze`: a frozen RunReport, one TargetRun per Target.

`to_dict()` is `perfcalc run --format json` (one Target: the run's document; several: the
kernel, its parameters and one document per Target under `runs`), so the CLI renders what the
library returns and no dict is assembled in the command (issue 29). The time fields are the
LaunchReport's (analysis/launch_report.py), serialised here only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfcalc.analysis.launch_advice import LaunchAdvice
from perfcalc.analysis.launch_report import LaunchReport
from perfcalc.model.occupancy import OccupancyResult
from perfcalc.model.predict import Prediction
from perfcalc.model.time_model import TIME_KEYS, time_fields
from perfcalc.results import Result, plain
from perfcalc.sim.counters import Counters
from perfcalc.sim.launch import SimResult
from perfcalc.sim.references import ResultCheck
from perfcalc.specs.counters import SITE_COUNTER_NAMES
from perfcalc.specs.target import Target


def compare(simulated: Mapping[str, int], predicted: Mapping[str, int] | None) -> dict[str, bool]:
    """Per predicted counter: does the run agree with the model?"""
    if predicted is None:
        return {}
    return {k: simulated.get(k, 0) == v for k, v in predicted.items()}


@dataclass(frozen=True)
class Registers:
    """The allocation occupancy used: ptxas's where the PTX engine compiled, else assumed."""

    per_thread: int
    static_shared_memory_bytes: int
    source: str  # "ptxas" | "assumed"
    note: str


@dataclass(frozen=True)
class ModelSummary:
    """The catalog's analytic model beside the counters: elements loaded and CGMA."""

    global_load_elements: int
    cgma: float | None


@dataclass(frozen=True)
class SiteRow:
    """One source line's counters (and the model's, for a catalog kernel); `inlined`: the code
    of __device__ functions inlined at this call site."""

    line: int
    code: str
    counters: Counters | None
    predicted: dict[str, int] | None
    inlined: bool = False

    def to_dict(self) -> dict[str, Any]:
        if self.counters is None:
            counters: Any = {n: 0 for n in SITE_COUNTER_NAMES}
        else:
            counters = plain(self.counters)
        row = {"line": self.line, "code": self.code, "counters": counters, "predicted": self.predicted}
        if self.inlined:
            row["inlined"] = True
        return row


@dataclass(frozen=True)
class TargetRun(Result):
    """One launch on one Target: the run, its check, the model, occupancy, caches and time."""

    target: Target
    kernel: str
    source_name: str
    params: dict[str, Any]
    grid: tuple[int, ...]  # as the launch gave it: a 1-D grid stays one number, as in <<<n, ...>>>
    block: tuple[int, ...]
    sim: SimResult = field(repr=False)
    result_check: ResultCheck | None
    tolerance: float | None
    prediction: Prediction | None
    per_site: tuple[SiteRow, ...]
    occupancy: OccupancyResult
    registers: Registers
    launch_report: LaunchReport | None
    notes: tuple[str, ...]
    model: ModelSummary | None = None
    advice: LaunchAdvice | None = None  # on a product: the limiter, bound, counted waste, hints

    @property
    def counters(self) -> Counters:
        return self.sim.counters

    @property
    def cc(self) -> str:
        return self.target.cc

    def launch_dict(self) -> dict[str, Any]:
        info = self.sim.launch
        warp = self.target.arch.warp_size
        return {
            "grid": list(self.grid),
            "block": list(self.block),
            "dynamic_shared_memory_bytes": info.dynamic_shared_memory_bytes,
            "blocks": info.blocks,
            "threads_per_block": info.threads_per_block,
            "threads": info.threads,
            "warps": info.blocks * -(-info.threads_per_block // warp),
        }

    def to_dict(self) -> dict[str, Any]:
        counters = plain(self.counters)
        predicted = self.prediction.counters() if self.prediction is not None else None
        doc: dict[str, Any] = {
            "kernel": self.kernel,
            "engine": self.sim.engine,
            "compiler": self.sim.compiler or None,
            "source": self.source_name,
            "cc": self.cc,
            "params": dict(self.params),
            "launch": self.launch_dict(),
            "counters": counters,
            "predicted": predicted,
            "match": compare(counters, predicted),
            "predicted_exact": None if self.prediction is None else self.prediction.exact,
            "model": None if self.model is None else plain(self.model),
            "per_site": [r.to_dict() for r in self.per_site],
            "result_check": self._check_dict(),
            "occupancy": {
                **plain(self.occupancy),
                "registers_per_thread": self.registers.per_thread,
                "static_shared_memory_bytes": self.registers.static_shared_memory_bytes,
                "registers_source": self.registers.source,
            },
            "caches": self._caches_dict(),
            "advice": plain(self.advice),
            "notes": list(self.notes),
        }
        return {**doc, **self._time_dict()}

    def _check_dict(self) -> dict[str, Any]:
        if self.result_check is not None:
            return dict(plain(self.result_check))
        return {"passed": None, "max_rel_error": None, "tolerance": self.tolerance}

    def _caches_dict(self) -> dict[str, Any] | None:
        """The L1/L2 model's report and the configuration it ran with."""
        rep, gpu = self.sim.caches, self.target.gpu
        if rep is None or gpu is None:
            return None
        cfg = rep.config
        return {
            "gpu": gpu.key,
            "gpu_name": gpu.name,
            "sms": cfg.sms,
            "l1_bytes": cfg.l1_bytes,
            "l2_bytes": None if gpu.l2_cache_kb is None else gpu.l2_cache_kb * 1024,
            "l1_hit_rate": rep.l1_load_hit_rate,
            "l2_hit_rate": rep.l2_hit_rate,
            "l2_bytes_read": rep.l2_bytes_read,
            "l2_bytes_written": rep.l2_bytes_written,
            "dram_bytes_read": rep.dram_bytes_read,
            "dram_bytes_written": rep.dram_bytes_written,
            "l2_dirty_bytes_at_end": rep.l2_dirty_bytes_at_end,
            "per_line": [
                {
                    "line": line,
                    "l1_hit_rate": c.l1_load_hit_rate,
                    "l2_hit_rate": c.l2_hit_rate,
                    "l2_bytes_read": c.l2_bytes_read,
                    "l2_bytes_written": c.l2_bytes_written,
                    "dram_bytes_read": c.dram_bytes_read,
                }
                for line, c in rep.per_site.items()
            ],
        }

    def _time_dict(self) -> dict[str, Any]:
        """The time fields of a run on a product (issue #9 part 5); without one the same keys,
        null, so the document has one shape whatever the options (issue 35)."""
        report = self.launch_report
        if report is None:
            return {"gpu": None, **dict.fromkeys(TIME_KEYS), "time": None}
        t, sample = report.time, report.sample
        return {
            "gpu": t.gpu,
            "cc": t.cc,
            **time_fields(t),
            "time": {
                "launch_overhead_s": t.launch_overhead_s,
                "error_band": None if t.error_band is None else vars(t.error_band),
                "waves": t.waves,
                "terms": [{"name": x.name, "time_s": x.time_s, "formula": x.formula} for x in t.terms],
                "omitted": list(t.omitted),
                "sampled": None
                if sample is None
                else {
                    "simulated_blocks": report.simulated_blocks,
                    "launch_blocks": report.launch_blocks,
                    "sm_stride": sample.sm_stride,
                    "waves": sample.waves,
                },
            },
        }


@dataclass(frozen=True)
class RunReport(Result):
    """analyze()'s answer: the kernel, its parameters, and one TargetRun per Target."""

    kernel: str
    params: dict[str, Any]
    runs: tuple[TargetRun, ...]

    @property
    def run(self) -> TargetRun:
        """The first (or only) Target's run."""
        return self.runs[0]

    def to_dict(self) -> dict[str, Any]:
        if len(self.runs) == 1:
            return self.runs[0].to_dict()
        return {"kernel": self.kernel, "params": dict(self.params), "runs": [r.to_dict() for r in self.runs]}
