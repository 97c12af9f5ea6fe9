"""On the GPU machine: how many results per SM per clock the special-function unit (MUFU) gives
for each approximate instruction, against FFMA's in the same run (issue 32: a candidate SFU pipe
term of the time model).

    python3 benchmarks/hw/sfu_throughput_on_gpu.py OUT_DIR [--arch sm_90]

Each form runs in a kernel of 2 blocks of 1,024 threads per SM, every thread 8 independent chains
of the instruction (so latency is hidden and the pipe is the limit), `ITERS` times; CUDA events
time it (best of 5). FFMA's rate is known (128 lanes per SM per clock on CC 9.0, products.yaml's
fp32_cores_per_sm): a form's rate is 128 x FFMA's time / its time, so the clock the GPU ran at
cancels. Writes OUT_DIR/sfu_probe.cu and OUT_DIR/sfu_throughput.txt.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sass_flops_on_gpu import MAIN_END, build_probe  # noqa: E402

FORMS = [
    ("fma_f32", "fma.rn.f32 %0, %0, %0, %0;"),
    ("ex2_approx_ftz_f32", "ex2.approx.ftz.f32 %0, %0;"),
    ("ex2_approx_f32", "ex2.approx.f32 %0, %0;"),
    ("lg2_approx_ftz_f32", "lg2.approx.ftz.f32 %0, %0;"),
    ("rsqrt_approx_ftz_f32", "rsqrt.approx.ftz.f32 %0, %0;"),
    ("sqrt_approx_ftz_f32", "sqrt.approx.ftz.f32 %0, %0;"),
    ("rcp_approx_ftz_f32", "rcp.approx.ftz.f32 %0, %0;"),
    ("sin_approx_ftz_f32", "sin.approx.ftz.f32 %0, %0;"),
    ("cos_approx_ftz_f32", "cos.approx.ftz.f32 %0, %0;"),
    ("tanh_approx_f32", "tanh.approx.f32 %0, %0;"),
]
CHAINS = 8
ITERS = 2048


def source() -> str:
    out = ["#include <cstdio>", "#include <cuda_runtime.h>"]
    for name, asm in FORMS:
        step = "\n".join(f'        asm volatile("{asm}" : "+f"(a{c}));' for c in range(CHAINS))
        inits = " ".join(f"float a{c} = 0.5f + 1e-4f * (threadIdx.x + {c});" for c in range(CHAINS))
        total = " + ".join(f"a{c}" for c in range(CHAINS))
        out.append(
            f"__global__ void k_{name}(float* out, int iters) {{\n    {inits}\n"
            f"    for (int i = 0; i < iters; ++i) {{\n{step}\n    }}\n"
            f"    out[blockIdx.x * blockDim.x + threadIdx.x] = {total};\n}}"
        )
    out.append("int main() {")
    out.append("  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);")
    out.append("  int blocks = 2 * sms; float* buf; cudaMalloc(&buf, blocks * 1024 * sizeof(float));")
    out.append("  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); float ms, best;")
    for name, _ in FORMS:
        out.append(f"  k_{name}<<<blocks, 1024>>>(buf, {ITERS}); best = 1e30f;")
        out.append("  for (int r = 0; r < 5; ++r) {")
        out.append(f"    cudaEventRecord(a); k_{name}<<<blocks, 1024>>>(buf, {ITERS}); cudaEventRecord(b);")
        out.append("    cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms; }")
        out.append(f'  printf("{name} %.6f ms\\n", best);')
    return "\n".join([*out, *MAIN_END]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sfu_probe.cu").write_text(source())
    exe = build_probe(args.out, "sfu_probe", args.arch)
    done = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    times = {line.split()[0]: float(line.split()[1]) for line in done.splitlines() if line.endswith(" ms")}
    ffma = times["fma_f32"]
    lines = [done.strip(), "", "form, results per SM per clock (128 x FFMA's time / the form's time)"]
    lines += [f"{name} {128 * ffma / t:.2f}" for name, t in times.items()]
    (args.out / "sfu_throughput.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
