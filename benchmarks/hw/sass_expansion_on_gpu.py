"""Device side: how many SASS instructions one PTX instruction becomes, and how long a warp waits
for its result, for the PTX forms whose SASS is a sequence (64-bit integer arithmetic,
conversions, division, square roots, the MUFU approximations).

    python3 benchmarks/hw/sass_expansion_on_gpu.py OUT_DIR [--arch sm_90] [--settled]

Each probe kernel applies one PTX instruction K = 32 times in a dependent chain (r = op(r, b),
inline PTX so that ptxas, not nvcc's front end, decides the SASS) to values loaded from memory and
stores the result; a baseline kernel of the same type does the load and the store alone. Nsight
Compute's `smsp__inst_executed.sum` (warp-level instructions) of a probe minus its baseline,
divided by K and the warps, is the instruction's SASS count per warp as the GPU issues it. One
thread's `clock64()` around the chain, divided by K, is its dependent latency in cycles. Writes
OUT_DIR/expansion.csv (ncu's CSV), OUT_DIR/latency.txt, probe.cu and probe.sass.txt.

The first run's clock64 figures include the wait for the loaded operands (the first use of `r`
is inside the timed chain). `--settled` branches on the loaded values before the first clock64
read, so the warp has its operands when the clock starts: the dependent latency alone, written
to OUT_DIR/latency_settled.txt (probe_settled.cu; no Nsight Compute run).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sass_flops_on_gpu import FILLED, MAIN_END, build_probe, write_sass_listing  # noqa: E402

K = 32
N = 1 << 15
# (probe name, PTX instruction, C type, register letter, operands)
FORMS = [
    ("base_u64", None, "unsigned long long", "l", 2),
    ("add_u64", "add.u64", "unsigned long long", "l", 2),
    ("mul_lo_u64", "mul.lo.u64", "unsigned long long", "l", 2),
    ("mul_hi_u64", "mul.hi.u64", "unsigned long long", "l", 2),
    ("mad_lo_u64", "mad.lo.u64", "unsigned long long", "l", 3),
    ("shl_b64", "shl.b64", "unsigned long long", "l", -1),
    ("base_u32", None, "unsigned", "r", 2),
    ("add_u32", "add.u32", "unsigned", "r", 2),
    ("mul_lo_u32", "mul.lo.u32", "unsigned", "r", 2),
    ("mul_hi_u32", "mul.hi.u32", "unsigned", "r", 2),
    ("base_f32", None, "float", "f", 2),
    ("fma_f32", "fma.rn.f32", "float", "f", 3),
    ("div_rn_f32", "div.rn.f32", "float", "f", 2),
    ("div_full_f32", "div.full.f32", "float", "f", 2),
    ("rcp_rn_f32", "rcp.rn.f32", "float", "f", 1),
    ("sqrt_rn_f32", "sqrt.rn.f32", "float", "f", 1),
    ("sqrt_approx_f32", "sqrt.approx.f32", "float", "f", 1),
    ("rsqrt_approx_f32", "rsqrt.approx.f32", "float", "f", 1),
    ("ex2_approx_f32", "ex2.approx.f32", "float", "f", 1),
    ("ex2_approx_ftz_f32", "ex2.approx.ftz.f32", "float", "f", 1),
    ("lg2_approx_f32", "lg2.approx.f32", "float", "f", 1),
    ("sin_approx_f32", "sin.approx.f32", "float", "f", 1),
    ("cos_approx_f32", "cos.approx.f32", "float", "f", 1),
    ("tanh_approx_f32", "tanh.approx.f32", "float", "f", 1),
    ("base_f64", None, "double", "d", 2),
    ("add_f64", "add.rn.f64", "double", "d", 2),
    ("fma_f64", "fma.rn.f64", "double", "d", 3),
    ("div_rn_f64", "div.rn.f64", "double", "d", 2),
    ("rcp_rn_f64", "rcp.rn.f64", "double", "d", 1),
    ("sqrt_rn_f64", "sqrt.rn.f64", "double", "d", 1),
]
# conversions in pairs (there and back, so that the chain stays in one type): (name, to, back, C, reg)
PAIRS = [
    ("cvt_f64_u64_pair", "cvt.rn.f64.u64", "cvt.rzi.u64.f64", "unsigned long long", "l", "d"),
    ("cvt_f32_u64_pair", "cvt.rn.f32.u64", "cvt.rzi.u64.f32", "unsigned long long", "l", "f"),
    ("cvt_f64_f32_pair", "cvt.f64.f32", "cvt.rn.f32.f64", "float", "f", "d"),
    ("cvt_f32_s32_pair", "cvt.rn.f32.s32", "cvt.rzi.s32.f32", "int", "r", "f"),
]


def _step(op: str, reg: str, operands: int) -> str:
    if operands == -1:  # a shift: the amount is a 32-bit register
        return f'asm volatile("{op} %0, %0, %1;" : "+{reg}"(r) : "r"(s));'
    srcs = {1: "%0", 2: "%0, %1", 3: "%0, %1, %1"}[operands]
    inputs = "" if operands == 1 else f' : "{reg}"(b)'
    return f'asm volatile("{op} %0, {srcs};" : "+{reg}"(r){inputs});'


def _settle(c: str, settled: bool) -> str:
    """With `settled`, a branch on the loaded values (never taken: they are in [1, 2)), so the warp
    waits for them before the first clock64 read, not inside the timed chain."""
    return f"  if (r == ({c})0 || b == ({c})0) {{ out[i] = b; return; }}\n" if settled else ""


def probe_kernel(name: str, op: str | None, c: str, reg: str, operands: int, settled: bool = False) -> str:
    body = "" if op is None else "\n".join("    " + _step(op, reg, operands) for _ in range(K))
    return (
        f'extern "C" __global__ void {name}(const {c} *a, const {c} *bb, {c} *out, long long *cycles, int n) {{\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (i >= n) return;\n  {c} r = a[i], b = bb[i]; unsigned s = (unsigned)i & 7u; (void)b; (void)s;\n"
        f"{_settle(c, settled)}"
        "  long long t0 = clock64();\n"
        f"{body}\n"
        "  long long t1 = clock64();\n"
        "  out[i] = r; if (i == 0) cycles[0] = t1 - t0;\n"
        "}"
    )


def pair_kernel(name: str, to: str, back: str, c: str, reg: str, mid: str, settled: bool = False) -> str:
    mid_c = {"d": "double", "f": "float", "l": "unsigned long long", "r": "int"}[mid]
    step = (
        f'asm volatile("{to} %0, %1;" : "={mid}"(m) : "{reg}"(r)); '
        f'asm volatile("{back} %0, %1;" : "={reg}"(r) : "{mid}"(m));'
    )
    body = "\n".join("    " + step for _ in range(K))
    return (
        f'extern "C" __global__ void {name}(const {c} *a, const {c} *bb, {c} *out, long long *cycles, int n) {{\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (i >= n) return;\n  {c} r = a[i]{', b = r' if settled else ''}; {mid_c} m;\n"
        f"{_settle(c, settled)}"
        "  long long t0 = clock64();\n"
        f"{body}\n"
        "  long long t1 = clock64();\n"
        "  out[i] = r; if (i == 0) cycles[0] = t1 - t0;\n"
        "}"
    )


def source(settled: bool = False) -> str:
    out = ["#include <cstdio>", "#include <cuda_runtime.h>"]
    out += [probe_kernel(*form, settled=settled) for form in FORMS]
    out += [pair_kernel(*pair, settled=settled) for pair in PAIRS]
    out += FILLED
    out.append("int main() {")
    out.append(f"  const int n = {N};")
    out.append("  long long *cyc; cudaMalloc(&cyc, 8); long long h;")
    types = {"float": "f", "double": "d", "unsigned long long": "l", "unsigned": "u", "int": "i"}
    for c, t in types.items():
        out.append(f"  {c} *a_{t} = filled<{c}>(n, 1), *b_{t} = filled<{c}>(n, 2), *o_{t}; cudaMalloc(&o_{t}, n * 8);")
    names = [(f[0], f[2]) for f in FORMS] + [(p[0], p[3]) for p in PAIRS]
    for name, c in names:
        t = types[c]
        out.append(f"  {name}<<<n / 256, 256>>>(a_{t}, b_{t}, o_{t}, cyc, n); cudaDeviceSynchronize();")
        out.append(f'  cudaMemcpy(&h, cyc, 8, cudaMemcpyDeviceToHost); printf("{name} %lld cycles for {K}\\n", h);')
    return "\n".join([*out, *MAIN_END]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--settled", action="store_true", help="latencies with the operands arrived (module docstring)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    name = "probe_settled" if args.settled else "probe"
    (args.out / f"{name}.cu").write_text(source(args.settled))
    exe = build_probe(args.out, name, args.arch)
    with open(args.out / ("latency_settled.txt" if args.settled else "latency.txt"), "w") as f:
        subprocess.run([str(exe)], stdout=f, check=True)
    if not args.settled:  # the counts are the same either way: Nsight Compute runs once
        with open(args.out / "expansion.csv", "w") as f:
            subprocess.run(
                ["ncu", "--metrics", "smsp__inst_executed.sum", "--csv", "--print-units", "base", str(exe)],
                stdout=f,
                check=True,
            )
        write_sass_listing(exe, args.out / "probe.sass.txt")
    exe.unlink()
    print("done", N, "threads a probe")


if __name__ == "__main__":
    main()
