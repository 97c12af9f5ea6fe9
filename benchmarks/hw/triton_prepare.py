"""Here, before the H100 run: the Triton kernels of tests/data/triton/ compiled exactly as
`perfcalc run --triton` compiles them (the JIT's specialisation; sm_80 code where Triton's sm_90
code uses wgmma/TMA), their PTX assembled for sm_90 by the nvcc wheel's ptxas, and each launch's
inputs and parameter bytes written in ptx_corpus_on_h100.py's format.

    python benchmarks/hw/triton_prepare.py .hw_triton

The folder (ignored by git) travels with `device run --carry .hw_triton`; triton_on_h100.sh runs
it there with ptx_corpus_on_h100.py (no Triton on the GPU machine: the driver API launches
the cubins).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TRITON = ROOT / "tests" / "data" / "triton"


def cases() -> list[dict]:
    """name, file, kernel, grid, arguments (arrays seeded here), launch options."""
    rng = np.random.default_rng(33)

    def f16(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float16).ravel()

    def f32(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32).ravel()

    def bf16(*shape: int) -> np.ndarray:  # bfloat16 bit patterns of normal values
        from perfcalc.sim.ptx.lowprec import bf16_round

        return bf16_round(rng.standard_normal(shape).astype(np.float32).astype(np.float64)).ravel()

    def gemm(name: str, kernel: str, n: int, make: Callable[..., np.ndarray], out_type: type) -> dict:
        """C = A @ B of n x n in 64 x 64 tiles (A, then B drawn: the order keeps the inputs)."""
        a, b = make(n, n), make(n, n)
        args = {"a_ptr": a, "b_ptr": b, "c_ptr": np.zeros(n * n, out_type), "M": n, "N": n, "K": n}
        args.update(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
        return dict(name=name, file=f"{kernel}.py", kernel=kernel, grid=(n // 64, n // 64), args=args)

    out = []
    for tag, n in (("", 10_000), ("_large", 1 << 24)):
        out.append(
            dict(
                name="vector_add" + tag,
                file="vector_add.py",
                kernel="add",
                grid=(-(-n // 1024),),
                args={"x_ptr": f32(n), "y_ptr": f32(n), "out_ptr": np.zeros(n, np.float32), "n": n, "BLOCK": 1024},
            )
        )
    for tag, n in (("", 256), ("_large", 2048)):
        out.append(gemm("matmul" + tag, "matmul", n, f16, np.float32))
    for tag, rows in (("", 128), ("_large", 8192)):
        out.append(
            dict(
                name="softmax" + tag,
                file="softmax.py",
                kernel="softmax",
                grid=(rows,),
                args={
                    "x_ptr": f32(rows, 1000),
                    "y_ptr": np.zeros(rows * 1000, np.float32),
                    "n_cols": 1000,
                    "BLOCK": 1024,
                },
            )
        )
    for tag, rows in (("", 64), ("_large", 8192)):
        out.append(
            dict(
                name="layernorm" + tag,
                file="layernorm.py",
                kernel="layernorm",
                grid=(rows,),
                args={
                    "x_ptr": f32(rows, 1000),
                    "w_ptr": f32(1000),
                    "b_ptr": f32(1000),
                    "y_ptr": np.zeros(rows * 1000, np.float32),
                    "n_cols": 1000,
                    "eps": 1e-5,
                    "BLOCK": 256,
                },
            )
        )
    for tag, n in (("", 100_000), ("_large", 1 << 24)):
        out.append(
            dict(
                name="reduction" + tag,
                file="reduction.py",
                kernel="total",
                grid=(-(-n // 1024),),
                args={"x_ptr": f32(n), "out_ptr": np.zeros(1, np.float32), "n": n, "BLOCK": 1024},
            )
        )
    for tag, n in (("", 512), ("_large", 4096)):
        out.append(
            dict(
                name="attention" + tag,
                file="attention.py",
                kernel="attention",
                grid=(n // 64,),
                args={
                    "q_ptr": f16(n, 64),
                    "k_ptr": f16(n, 64),
                    "v_ptr": f16(n, 64),
                    "o_ptr": np.zeros(n * 64, np.float32),
                    "n_ctx": n,
                    "sm_scale": 0.125,
                    "HEAD_DIM": 64,
                    "BLOCK_M": 64,
                    "BLOCK_N": 64,
                },
            )
        )
    for tag, n in (("", 128), ("_large", 2048)):
        out.append(gemm("matmul_bf16" + tag, "matmul_bf16", n, bf16, np.uint16))
        out.append(
            dict(
                name="dot_tf32" + tag,
                file="dot_tf32.py",
                kernel="dot_tf32",
                grid=(n // 64, n // 64),
                args={
                    "a_ptr": f32(n, n),
                    "b_ptr": f32(n, n),
                    "c_ptr": np.zeros(n * n, np.float32),
                    "K": n,
                    "N": n,
                    "BLOCK": 64,
                    "BLOCK_K": 32,
                },
            )
        )
    for tag, rows in (("", 16), ("_large", 65536)):
        out.append(
            dict(
                name="cumsum" + tag,
                file="cumsum.py",
                kernel="cumsum",
                grid=(rows,),
                args={
                    "x_ptr": f32(rows, 256),
                    "i_ptr": rng.integers(-100, 100, rows * 256).astype(np.int32),
                    "y_ptr": np.zeros(rows * 256, np.float32),
                    "j_ptr": np.zeros(rows * 256, np.int32),
                    "BLOCK": 256,
                },
            )
        )
    for tag, n in (("", 10_000), ("_large", 1 << 24)):
        out.append(
            dict(
                name="bias_relu_bf16" + tag,
                file="bias_relu_bf16.py",
                kernel="bias_relu_bf16",
                grid=(-(-n // 1024),),
                args={
                    "x_ptr": bf16(n),
                    "b_ptr": bf16(64),
                    "y_ptr": np.zeros(n, np.uint16),
                    "n": n,
                    "n_bias": 64,
                    "BLOCK": 1024,
                },
            )
        )
    return out


def main(folder: Path) -> None:
    from perfcalc.sim.ptx.ptxas import ptxas_binary
    from perfcalc.sim.ptx.run import _scalar_bytes
    from perfcalc.sim.ptx.triton_run import _split_options, compile_triton
    from perfcalc.specs import get_arch

    folder.mkdir(parents=True, exist_ok=True)
    arch = get_arch("9.0")
    ptxas = ptxas_binary()
    if ptxas is None:
        raise SystemExit("ptxas not found: pip install -e '.[cuda]'")
    launches, inputs = [], {}
    for case in cases():
        path = TRITON / case["file"]
        args, options = _split_options(path, case["kernel"], case["args"], None)
        tk = compile_triton(path, case["kernel"], args, arch, options)
        ck = tk.compiled
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "k.ptx"
            src.write_text(tk.ptx)
            target = ck.module.target if (ck.module.target or "").endswith("a") else "sm_90"
            cubin = folder / f"{case['name']}.cubin"
            subprocess.run([str(ptxas), f"-arch={target}", str(src), "-o", str(cubin)], check=True)
        params = []
        programs = int(np.prod(case["grid"]))
        scratch = dict(zip(tk.arguments[len(tk.arguments) - len(tk.scratch_bytes) :], tk.scratch_bytes, strict=True))
        for (name, ctype), p in zip(ck.params, ck.fn.params, strict=True):
            if name in scratch:
                inputs[f"{case['name']}::{name}"] = np.zeros(max(scratch[name] * programs, 1), np.uint8)
                params.append({"array": name})
            elif "*" in ctype and case["name"].endswith("_large"):  # timed only: made on the GPU machine
                a = args[name]
                params.append({"array": name, "make": ["zeros" if not a.any() else "random", a.dtype.str, a.size]})
            elif "*" in ctype:
                inputs[f"{case['name']}::{name}"] = args[name]
                params.append({"array": name})
            else:
                params.append({"raw": _scalar_bytes(name, ctype, args[name], p.ptx_type, p.size).hex()})
        launches.append(
            {
                "name": case["name"],
                "entry": ck.fn.name,
                "params": params,
                "grid": list(case["grid"]),
                "block": [32 * tk.num_warps],
                "dynamic_shared": tk.shared_bytes,
                "constants": {},
                "file": case["file"],
                "kernel": case["kernel"],
                "notes": list(tk.notes),
                "timed_only": case["name"].endswith("_large"),
            }
        )
        print(case["name"], ck.compiler, ck.module.target, tk.num_warps, "warps", tk.shared_bytes, "B shared")
    (folder / "launches.json").write_text(json.dumps(launches, indent=1))
    np.savez(folder / "inputs.npz", **inputs)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".hw_triton")
