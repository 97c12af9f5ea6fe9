"""Device side: how many flops Nsight Compute counts for one PTX instruction whose SASS is a
sequence (division, sqrt, reciprocal, the MUFU approximations), on normal operands.

    python3 benchmarks/hw/sass_flops_on_gpu.py OUT_DIR [--arch sm_90]

Each probe kernel applies one PTX instruction, written as inline PTX (so ptxas, not nvcc's
front end, decides its SASS), to operands in [1, 2) and stores the result; a `mov` probe is the
baseline. Nsight Compute counts smsp__sass_thread_inst_executed_op_{f,d}{add,mul,fma}_pred_on
per launch; divided by the threads, that is the instruction's thread-level flops as the GPU
counts them (FFMA/DFMA x2). Writes OUT_DIR/sass_flops.csv (ncu's CSV), probe.cu and, where
cuobjdump is installed, probe.sass.txt. Issue 31: the PTX engine counted these as 0 flops.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

# (probe name, PTX instruction, operand type, operands)
FORMS = [
    ("mov_f32", "mov.f32", "f32", 1),
    ("div_rn_f32", "div.rn.f32", "f32", 2),
    ("div_rn_ftz_f32", "div.rn.ftz.f32", "f32", 2),
    ("div_full_f32", "div.full.f32", "f32", 2),
    ("div_full_ftz_f32", "div.full.ftz.f32", "f32", 2),
    ("div_approx_f32", "div.approx.f32", "f32", 2),
    ("div_approx_ftz_f32", "div.approx.ftz.f32", "f32", 2),
    ("rcp_rn_f32", "rcp.rn.f32", "f32", 1),
    ("rcp_rn_ftz_f32", "rcp.rn.ftz.f32", "f32", 1),
    ("rcp_approx_f32", "rcp.approx.f32", "f32", 1),
    ("rcp_approx_ftz_f32", "rcp.approx.ftz.f32", "f32", 1),
    ("sqrt_rn_f32", "sqrt.rn.f32", "f32", 1),
    ("sqrt_rn_ftz_f32", "sqrt.rn.ftz.f32", "f32", 1),
    ("sqrt_approx_f32", "sqrt.approx.f32", "f32", 1),
    ("sqrt_approx_ftz_f32", "sqrt.approx.ftz.f32", "f32", 1),
    ("rsqrt_approx_f32", "rsqrt.approx.f32", "f32", 1),
    ("rsqrt_approx_ftz_f32", "rsqrt.approx.ftz.f32", "f32", 1),
    ("ex2_approx_f32", "ex2.approx.f32", "f32", 1),
    ("ex2_approx_ftz_f32", "ex2.approx.ftz.f32", "f32", 1),
    ("lg2_approx_f32", "lg2.approx.f32", "f32", 1),
    ("lg2_approx_ftz_f32", "lg2.approx.ftz.f32", "f32", 1),
    ("sin_approx_f32", "sin.approx.f32", "f32", 1),
    ("sin_approx_ftz_f32", "sin.approx.ftz.f32", "f32", 1),
    ("cos_approx_f32", "cos.approx.f32", "f32", 1),
    ("cos_approx_ftz_f32", "cos.approx.ftz.f32", "f32", 1),
    ("tanh_approx_f32", "tanh.approx.f32", "f32", 1),
    ("mov_f64", "mov.f64", "f64", 1),
    ("div_rn_f64", "div.rn.f64", "f64", 2),
    ("rcp_rn_f64", "rcp.rn.f64", "f64", 1),
    ("sqrt_rn_f64", "sqrt.rn.f64", "f64", 1),
    ("rsqrt_approx_f64", "rsqrt.approx.f64", "f64", 1),
    ("rcp_approx_ftz_f64", "rcp.approx.ftz.f64", "f64", 1),
]
N = 1 << 15


def probe_kernel(name: str, op: str, type_: str, operands: int) -> str:
    """One probe: `op` (inline PTX, so ptxas decides its SASS) on a[i] (and b[i]), stored to out[i]."""
    c, reg = ("float", "f") if type_ == "f32" else ("double", "d")
    ins = f'"{reg}"(a[i])' + (f', "{reg}"(b[i])' if operands == 2 else "")
    regs = "%0, %1" + (", %2" if operands == 2 else "")
    return (
        f'extern "C" __global__ void {name}(const {c} *a, const {c} *b, {c} *out, int n) {{\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f'  if (i < n) {{ {c} r; asm volatile("{op} {regs};" : "={reg}"(r) : {ins}); out[i] = r; }}\n'
        "}"
    )


# a device array of n values in [1, 2): the operands every probe reads
FILLED = [
    "template <typename T> static T *filled(int n, int seed) {",
    "  T *h = new T[n]; for (int i = 0; i < n; ++i) h[i] = T(1) + T((i * 37 + seed) % 1000) / T(1000);",
    "  T *d; cudaMalloc(&d, n * sizeof(T)); cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice);",
    "  delete[] h; return d; }",
]


def source() -> str:
    out = ["#include <cstdio>", "#include <cuda_runtime.h>"]
    out += [probe_kernel(*form) for form in FORMS]
    out += FILLED
    out.append("int main() {")
    out.append(f"  const int n = {N};")
    out.append("  float *fa = filled<float>(n, 1), *fb = filled<float>(n, 2), *fo; cudaMalloc(&fo, n * 4);")
    out.append("  double *da = filled<double>(n, 3), *db = filled<double>(n, 4), *dout; cudaMalloc(&dout, n * 8);")
    for name, _op, t, _k in FORMS:
        args = "fa, fb, fo" if t == "f32" else "da, db, dout"
        out.append(f"  {name}<<<n / 256, 256>>>({args}, n);")
    return "\n".join([*out, *MAIN_END]) + "\n"


METRICS = ",".join(
    f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for p in "fd" for op in ("add", "mul", "fma")
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "probe.cu").write_text(source())
    exe = build_probe(args.out, "probe", args.arch)
    subprocess.run([str(exe)], check=True)
    with open(args.out / "sass_flops.csv", "w") as f:
        subprocess.run(["ncu", "--metrics", METRICS, "--csv", "--print-units", "base", str(exe)], stdout=f, check=True)
    write_sass_listing(exe, args.out / "probe.sass.txt")
    exe.unlink()
    print("done", N, "threads a probe")


# the end of every probe's main(): wait for the kernels, say whether any of them failed
MAIN_END = (
    '  cudaError_t e = cudaDeviceSynchronize(); printf("%s\\n", cudaGetErrorString(e)); return e != 0;',
    "}",
)


def build_probe(out: Path, stem: str, arch: str) -> Path:
    """OUT/STEM.cu (written by the caller) built with nvcc -O3 for `arch`: the executable's path."""
    exe = out / stem
    subprocess.run(["nvcc", f"-arch={arch}", "-O3", "-o", str(exe), str(out / f"{stem}.cu")], check=True)
    return exe


def write_sass_listing(exe: Path, path: Path) -> None:
    """cuobjdump's SASS of `exe` into `path`, where cuobjdump is installed."""
    try:
        sass = subprocess.run(["cuobjdump", "-sass", str(exe)], capture_output=True, text=True, check=True).stdout
        path.write_text(sass)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"no SASS listing: {exc}")


if __name__ == "__main__":
    main()
