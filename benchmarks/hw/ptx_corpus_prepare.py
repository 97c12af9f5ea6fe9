"""Here, before the H100 run: compile every corpus launch exactly as the PTX engine does (host code
blanked, NVRTC 13.5 -> PTX), assemble the PTX with the same version's ptxas for sm_90 (the cubin
the H100 runs, and `ptxas -v`'s registers), and write each launch's inputs and parameter bytes.

    python benchmarks/hw/ptx_corpus_prepare.py .hw_corpus

The folder (ignored by git) travels to the GPU machine with `device run --carry .hw_corpus`;
benchmarks/hw/ptx_corpus_on_h100.sh runs it there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import corpus  # noqa: E402

from perfcalc.sim.ptx import nvrtc  # noqa: E402
from perfcalc.sim.ptx.compile import compile_cached, compile_target  # noqa: E402
from perfcalc.sim.ptx.hoststrip import HOST_HEADERS, choose_kernel, strip_host  # noqa: E402
from perfcalc.sim.ptx.kernels import find_entry, kernel_parameters  # noqa: E402
from perfcalc.sim.ptx.parse import parse_module  # noqa: E402
from perfcalc.sim.ptx.run import _scalar_bytes  # noqa: E402
from perfcalc.specs import get_arch  # noqa: E402


def ptxas_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("nvidia")
    for root in spec.submodule_search_locations or []:
        candidate = Path(root) / "cu13" / "bin" / "ptxas"
        if candidate.is_file():
            return candidate
    raise SystemExit("ptxas not found: pip install nvidia-cuda-nvcc==13.5.*")


def corpus_entries() -> list[dict]:
    """Every corpus launch as a launch entry (see prepare)."""
    entries = []
    for name, entry in corpus.manifest().items():
        entries.append(
            {
                "name": name,
                "text": corpus.source(entry),
                "source_name": str(corpus.CORPUS / entry["file"]),
                "kernel": entry.get("kernel"),
                "defines": entry.get("defines") or {},
                "grid": entry["grid"],
                "block": entry["block"],
                "dynamic_shared": entry.get("dynamic_shared", 0),
                "args": corpus.inputs(name, entry),
                "specs": entry["args"],
            }
        )
    return entries


def prepare(out: Path, entries: list[dict], save_inputs: bool = True) -> None:
    """Compile each launch entry (name, text, source_name, kernel, defines, grid, block,
    dynamic_shared, args, specs, and optionally `device`: keys passed to the GPU side as they
    are) to PTX and an sm_90 cubin, and write launches.json +
    inputs.npz; without save_inputs each array keeps its corpus spec instead, for the GPU
    machine to build (realistic sizes are too large to carry)."""
    out.mkdir(parents=True, exist_ok=True)
    arch = get_arch("9.0")
    ptxas = ptxas_path()
    launches = []
    arrays: dict[str, np.ndarray] = {}
    for entry in entries:
        name, text, source_name = entry["name"], entry["text"], entry["source_name"]
        device = strip_host(text)
        kernel = choose_kernel(device, entry["kernel"])
        options = [f"--gpu-architecture={compile_target(arch)}", "-lineinfo", "-std=c++17", "-default-device"]
        for key, value in sorted(entry["defines"].items()):
            options.append(f"-D{key}" if value is None else f"-D{key}={value}")
        options += [f"-I{Path(source_name).parent}"] + [f"-I{d}" for d in nvrtc.include_dirs()]
        compiled = compile_cached(device.text, Path(source_name).name, options, [kernel], HOST_HEADERS)
        module = parse_module(compiled.ptx)
        fn = find_entry(module, kernel, compiled.lowered)
        ptx_file = out / f"{name}.ptx"
        ptx_file.write_text(compiled.ptx)
        log = subprocess.run(
            [str(ptxas), "-arch=sm_90", "-v", "-o", str(out / f"{name}.cubin"), str(ptx_file)],
            capture_output=True,
            text=True,
            check=True,
        )
        args = entry["args"]
        params = []
        for (cname, ctype), p in zip(kernel_parameters(device.text, kernel), fn.params, strict=True):
            value = args[cname]
            if "*" in ctype:
                if save_inputs:
                    arrays[f"{name}::{cname}"] = value
                params.append({"array": cname, "bytes": int(value.nbytes), "spec": entry["specs"][cname]})
            else:
                params.append({"raw": _scalar_bytes(cname, ctype, value, p.ptx_type, p.size).hex()})
        constants = {
            k: np.ascontiguousarray(v).tobytes().hex()
            for k, v in args.items()
            if k in {v_.name for v_ in module.variables} and isinstance(v, np.ndarray)
        }
        launches.append(
            {
                "name": name,
                "entry": fn.name,
                "kernel": kernel,
                "grid": entry["grid"],
                "block": entry["block"],
                "dynamic_shared": entry["dynamic_shared"],
                "params": params,
                "constants": constants,
                "ptxas_log": log.stderr + log.stdout,
                "compiler": compiled.compiler,
                **entry.get("device", {}),
            }
        )
    if save_inputs:
        np.savez_compressed(out / "inputs.npz", **arrays)
    (out / "launches.json").write_text(json.dumps(launches, indent=1))
    print(f"{len(launches)} launches prepared in {out}")


def main(out: Path) -> None:
    prepare(out, corpus_entries())


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ".hw_corpus"))
