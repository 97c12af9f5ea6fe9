"""The PTX-engine corpus (tests/data/cuda_corpus/): its manifest, its inputs, and one run.

Shared by tests/test_ptx_corpus.py and benchmarks/hw/ptx_corpus_h100.py, so the simulator and
the H100 see the same bytes. Inputs are drawn from a generator seeded by the launch's name.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import numpy as np
import yaml

CORPUS = Path(__file__).parent / "data" / "cuda_corpus"
_ARRAY = re.compile(r"^(zeros |arange )?(\w+)\[(\d+)\](?:\s+(-?[\d.e+]+)\.\.(-?[\d.e+]+))?$")
_VECTORS = {"float2": (np.float32, 2), "float4": (np.float32, 4), "int4": (np.int32, 4)}


def manifest() -> dict[str, dict[str, Any]]:
    return yaml.safe_load((CORPUS / "corpus.yaml").read_text())


def _rng(name: str, arg: str) -> np.random.Generator:
    seed = int.from_bytes(hashlib.sha256(f"{name}/{arg}".encode()).digest()[:8], "little")
    return np.random.default_rng(seed)


def _array(spec: str, rng: np.random.Generator) -> np.ndarray:
    m = _ARRAY.match(spec.strip())
    if m is None:
        raise ValueError(f"cannot read the argument spec {spec!r}")
    kind, dtype_name, count, lo, hi = m.group(1), m.group(2), int(m.group(3)), m.group(4), m.group(5)
    if dtype_name in _VECTORS:
        base, lanes = _VECTORS[dtype_name]
        flat = _array(f"{(kind or '')}{np.dtype(base).name}[{count * lanes}]" + (f" {lo}..{hi}" if lo else ""), rng)
        dt = np.dtype([(c, base) for c in "xyzw"[:lanes]], align=True)
        return flat.view(dt)
    dt = np.dtype("bool" if dtype_name == "bool" else dtype_name)
    if kind == "zeros ":
        return np.zeros(count, dt)
    if kind == "arange ":
        return np.arange(count).astype(dt)
    if dt == np.bool_:
        return rng.random(count) < 0.5
    if dt.kind == "f":
        low, high = (float(lo), float(hi)) if lo else (-1.0, 1.0)
        return rng.uniform(low, high, count).astype(dt)
    if lo:
        low, high = int(float(lo)), int(float(hi))
    else:
        low, high = (0, 256) if dt.itemsize == 1 else (0, 100)
    return rng.integers(low, high, count, dtype=np.int64 if high < 2**63 else np.uint64, endpoint=False).astype(dt)


def _struct(name: str) -> np.ndarray:
    if name == "affine":  # Affine<float>{2.0f, -1.0f}
        return np.array((2.0, -1.0), dtype=np.dtype([("a", "f4"), ("b", "f4")]))
    if name == "empty":  # Square{}: an empty class is one byte
        return np.zeros((), dtype=np.dtype([("pad", "u1")]))
    if name == "params":  # Params{2.0f, 3, 1.5f, 1}: float, int, float, short -> 16 bytes
        dt = np.dtype(
            {
                "names": ["scale", "offset", "clampHi", "mode"],
                "formats": ["f4", "i4", "f4", "i2"],
                "offsets": [0, 4, 8, 12],
                "itemsize": 16,
            }
        )
        value = np.zeros((), dtype=dt)  # padding bytes zero, not whatever memory held
        value[()] = (2.0, 3, 1.5, 1)
        return value
    raise ValueError(f"unknown struct generator {name}")


def _generated(name: str, which: str, rng: np.random.Generator, sizes: list[int]) -> np.ndarray:
    """Arrays a generator builds; `sizes` (from `gen NAME SIZE...`) scale it for the time check,
    without them the corpus's own sizes."""
    if which == "particles":
        count = sizes[0] if sizes else 1024
        dt = np.dtype([("x", "f4"), ("v", "f4"), ("m", "f4")])
        p = np.zeros(count, dt)
        p["x"], p["v"] = rng.uniform(-1, 1, count), rng.uniform(-1, 1, count)
        p["m"] = rng.uniform(0.5, 2.0, count)
        return p
    if which.startswith("csr_"):  # rows x rows (256 x 256), 1..8 entries per row
        rows = sizes[0] if sizes else 256
        g = _rng(name, "csr")
        per_row = g.integers(1, 9, rows)
        row_ptr = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int32)
        cols = g.integers(0, rows, int(row_ptr[-1])).astype(np.int32)
        vals = g.uniform(-1, 1, int(row_ptr[-1])).astype(np.float32)
        return {"csr_rowptr": row_ptr, "csr_cols": cols, "csr_vals": vals}[which]
    if which.startswith("graph_"):  # 1024 vertices, 0..5 edges each; vertices 0..63 at level 0
        vertices, frontier = sizes if sizes else (1024, 64)
        g = _rng(name, "graph")
        degree = g.integers(0, 6, vertices)
        row_ptr = np.concatenate([[0], np.cumsum(degree)]).astype(np.int32)
        adj = g.integers(0, vertices, int(row_ptr[-1])).astype(np.int32)
        level = np.full(vertices, -1, np.int32)
        level[:frontier] = 0
        return {"graph_rowptr": row_ptr, "graph_adj": adj, "graph_level": level}[which]
    raise ValueError(f"unknown generator {which}")


def argument(name: str, arg: str, spec: Any) -> Any:
    """One argument of launch `name` from its spec (the same bytes wherever it is built)."""
    rng = _rng(name, arg)
    if isinstance(spec, (int, float)):
        return spec
    if spec.startswith("struct "):
        return _struct(spec.split()[1])
    if spec.startswith("gen "):
        words = spec.split()
        return _generated(name, words[1], rng, [int(w) for w in words[2:]])
    return _array(spec, rng)


def inputs(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The launch's arguments: NumPy arrays (fresh copies) and scalars, by parameter name."""
    return {arg: argument(name, arg, spec) for arg, spec in entry["args"].items()}


def source(entry: dict[str, Any]) -> str:
    return (CORPUS / entry["file"]).read_text()


def run_on_ptx_engine(name: str, entry: dict[str, Any], arch: str = "9.0"):  # type: ignore[no-untyped-def]
    """(SimResult, the arguments after the run) for one corpus launch."""
    from perfcalc.sim import run_kernel

    args = inputs(name, entry)
    result = run_kernel(
        source(entry),
        entry.get("kernel"),
        tuple(entry["grid"]),
        tuple(entry["block"]),
        args,
        arch,
        dynamic_shared_memory_bytes=entry.get("dynamic_shared", 0),
        defines=entry.get("defines"),
        engine="ptx",
        source_name=str(CORPUS / entry["file"]),
    )
    return result, args


def written_arrays(entry: dict[str, Any], args: dict[str, Any]) -> dict[str, np.ndarray]:
    """Every array argument (the kernel may have written it), as raw bytes for comparison."""
    return {
        k: v
        for k, v in args.items()
        if isinstance(v, np.ndarray) and v.ndim == 1 and not entry["args"][k].startswith("struct ")
    }
