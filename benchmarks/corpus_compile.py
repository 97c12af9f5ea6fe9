"""Compile every CUDA file of a public corpus as its own build does, and list its kernels (issue 30).

    python benchmarks/corpus_compile.py PATH-TO-A-HECBENCH-CHECKOUT [--jobs 2] [--only REGEX]
        [--compiler auto|nvcc|nvrtc] [--write]

For each program `src/*-cuda/` of the HeCBench suite (github zjin-lcf/HeCBench, BSD-3-Clause) the
compile commands are read from its own Makefile (`make -n -B`: nothing is built, the commands are
printed), and each `.cu` file is compiled by perfcalc's library exactly with those -I, -D, -std and
device flags (`perfcalc.sim.ptx.compile.compile_file`, for CC 9.0). A program whose Makefile does
not print its commands here (it needs a file or tool that is not in the checkout) has each of its
`.cu` files compiled with `-I` of its own folder, and is counted apart. For each compiled file:
the kernels in its PTX, and whether every `__global__` function it defines without a template,
and every template instantiation it launches, is among them. For each refusal: its class.

Only figures and refusal classes are written (benchmarks/results_corpus_compile.md and .csv),
never the suite's code.
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results_corpus_compile.md"
TABLE = HERE / "results_corpus_compile.csv"


@dataclass(frozen=True)
class Job:
    program: str
    folder: str
    file: str
    include_dirs: tuple[str, ...]
    defines: tuple[tuple[str, str | None], ...]
    extra: tuple[str, ...]
    from_makefile: bool


def _flags(words: list[str], folder: str) -> tuple[list[str], list[tuple[str, str | None]], list[str]]:
    """-I, -D and the flags that change device code (-std, --extended-lambda, relaxed constexpr,
    relocatable device code) from one compile command."""
    from perfcalc.app.build import is_nvcc_option

    includes: list[str] = []
    defines: list[tuple[str, str | None]] = []
    extra: list[str] = []
    it = iter(words)
    for w in it:
        if w in ("-I", "-D", "-std", "--std", "-isystem"):
            value = next(it, "")
            w = w + ("=" if w.endswith("std") else "") + value
        if w.startswith("-I") or w.startswith("-isystem"):
            d = w[2:] if w.startswith("-I") else w[len("-isystem") :]
            includes.append(os.path.normpath(os.path.join(folder, d)))
        elif w.startswith("-D") and len(w) > 2:
            name, eq, value = w[2:].partition("=")
            defines.append((name, value if eq else None))
        elif is_nvcc_option(w):  # the device-code options perfcalc app passes on (one definition)
            extra.append(w)
        elif w in ("-rdc=true", "--relocatable-device-code=true", "-dc", "-rdc"):
            extra.append("-rdc=true")
    return includes, defines, list(dict.fromkeys(extra))


def jobs_of(program: Path) -> tuple[list[Job], str | None]:
    """The program's compile jobs from `make -n -B`; without them, every .cu file with -I. and
    the reason the Makefile gave none."""
    folder = str(program)
    why = None
    try:
        done = subprocess.run(["make", "-n", "-B"], cwd=folder, capture_output=True, text=True, timeout=60)
        lines = done.stdout.splitlines()
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["make failed"])[-1][:160]
    except (OSError, subprocess.SubprocessError) as exc:
        lines, why = [], f"make could not run: {exc}"
    found = []
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        sources = [w for w in words if w.endswith(".cu")]
        if not sources or not any(w in ("-c", "-dc") for w in words):
            continue
        includes, defines, extra = _flags(words[1:], folder)
        for s in sources:
            found.append(Job(program.name, folder, s, tuple(includes), tuple(defines), tuple(extra), True))
    if found:
        return list({(j.file): j for j in found}.values()), None
    every = sorted(program.rglob("*.cu"))
    # a .cu file another one #includes (Rodinia's main.cu + kernel.cu) is built through that one
    included = {m for p in every for m in re.findall(r'#\s*include\s*"([^"]+\.cu)"', p.read_text(errors="replace"))}
    files = [str(p.relative_to(program)) for p in every if p.name not in {Path(i).name for i in included}]
    defines = tuple(script_defines(program))
    return [
        Job(program.name, folder, f, (folder,), defines, (), False) for f in files
    ], why or "make printed no nvcc -c"


def script_defines(program: Path) -> list[tuple[str, str | None]]:
    """The -D flags a program's Python script passes to the PyTorch extension build that compiles
    its .cu files (`load(..., extra_cuda_cflags=[..., f'-DNAME={VALUE}'])`), the script's own
    `VALUE = literal` lines filled in: such a program's Makefile only runs the script."""
    found: list[tuple[str, str | None]] = []
    for script in sorted(program.glob("*.py")):
        text = script.read_text(errors="replace")
        values = dict(re.findall(r"^(\w+)\s*=\s*([\w.+-]+)\s*$", text, re.M))
        for flags in re.findall(r"extra_cuda_cflags\s*=\s*\[([^\]]*)\]", text):
            for name, value in re.findall(r"f?['\"]-D(\w+)(?:=([^'\"]*))?['\"]", flags):
                value = re.sub(r"\{(\w+)\}", lambda m, known=values: known.get(m.group(1), m.group(0)), value)
                found.append((name, value or None))
    return found


def compile_job(job: Job, compiler: str | None) -> dict[str, object]:
    from perfcalc.errors import PerfcalcError
    from perfcalc.sim.ptx.compile import compile_file
    from perfcalc.sim.ptx.kernels import _squeezed, base_name
    from perfcalc.specs import get_arch

    start = time.monotonic()
    row: dict[str, object] = {"program": job.program, "file": job.file, "from_makefile": job.from_makefile}
    try:
        built = compile_file(
            os.path.join(job.folder, job.file),
            get_arch("9.0"),
            job.include_dirs,
            dict(job.defines),
            job.extra,
            compiler,
        )
    except PerfcalcError as exc:
        message = " ".join(str(exc).split())
        row.update(outcome="refused", refusal=refusal_class(message), message=message[:300])
        row["nvcc_alone"] = nvcc_alone(job)
    else:
        bases = {base_name(k) for k in built.kernels}
        squeezed = {_squeezed(k.split("::")[-1]) for k in built.kernels}
        launched_bases = {base_name(k) for k in built.launched}
        # a kernel the file defines and launches is compiled (an unlaunched template is not)
        missing = [k for k in built.defined if k in launched_bases and base_name(k) not in bases]
        # a launch whose template arguments are all literals or built-in types: that very one
        unlaunched = [
            k for k in built.launched if "<" in k and _concrete(k) and _squeezed(k.split("::")[-1]) not in squeezed
        ]
        row.update(
            outcome="compiled",
            compiler=built.compiler,
            kernels=len(built.kernels),
            defined=len(built.defined),
            missing_kernels=";".join(missing),
            missing_instantiations=";".join(unlaunched),
            mended="; ".join(built.notes),
        )
    row["seconds"] = round(time.monotonic() - start, 2)
    return row


def nvcc_alone(job: Job) -> str:
    """The same nvcc and host compiler on the file as its own flags give them, without perfcalc
    (no stand-in headers, no blanking, no pre-included header): "compiles", or its first error.
    A refusal where this fails too is the compiler's, not perfcalc's."""
    from perfcalc.sim.ptx import toolchain

    tools = toolchain.route(None)
    if tools is None:
        return "no nvcc here"
    flags = [f"-I{d}" for d in job.include_dirs] + [
        f"-D{k}" + (f"={v}" if v is not None else "") for k, v in job.defines
    ]
    command = [str(tools.nvcc), "-ptx", "-arch=compute_90", "-ccbin", str(tools.host), *job.extra, *flags, job.file]
    done = subprocess.run(command + ["-o", os.devnull], cwd=job.folder, capture_output=True, text=True, timeout=300)
    if done.returncode == 0:
        return "compiles"
    errors = [ln for ln in (done.stdout + done.stderr).splitlines() if "error" in ln]
    return "fails: " + " ".join((errors or ["(no message)"])[0].split())[:160]


_BUILTIN = {
    "int", "unsigned", "float", "double", "char", "short", "long", "bool", "signed", "true", "false",
    "half", "__half", "half2", "__half2", "__nv_bfloat16", "nv_bfloat16", "int8_t", "uint8_t", "int16_t",
    "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t", "float2", "float4", "int2", "int4",
}  # fmt: skip


def _concrete(launch: str) -> bool:
    """Whether a launch's template arguments are all numbers or built-in types (not a template
    parameter, an enumerator or a constant, which the demangler prints otherwise)."""
    args = launch[launch.index("<") :]
    return all(w in _BUILTIN or w[0].isdigit() for w in re.findall(r"[A-Za-z_]\w*|\d\w*", args))


CLASSES = (
    ("texture references", "texture or surface references (removed in CUDA 12)"),
    ("surface references", "texture or surface references (removed in CUDA 12)"),
    ("stood in by empty ones", "fails after a header not installed here was stood in (the message names it)"),
    ("not installed here", "device code needs a name from a header not installed here"),
    ("time limit", "compile past its time limit"),
    ("memory limit", "compile past its memory limit"),
)


def refusal_class(message: str) -> str:
    for fragment, name in CLASSES:
        if fragment in message:
            return name
    m = re.search(r"(?:error|catastrophic error): (.*)", message)
    text = m.group(1) if m else re.sub(r"^nvcc could not compile \S+: ", "", message)
    text = re.sub(r'"[^"]*"', '"..."', text)
    return "other: " + text[:90]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default=None, help="programs whose folder name matches this regex")
    parser.add_argument("--compiler", default=None, choices=("auto", "nvcc", "nvrtc"))
    parser.add_argument("--write", action="store_true", help="write results_corpus_compile.md and .csv")
    args = parser.parse_args()
    programs = sorted(p for p in (args.checkout / "src").iterdir() if p.name.endswith("-cuda") and p.is_dir())
    if args.only:
        programs = [p for p in programs if re.search(args.only, p.name)]
    jobs: list[Job] = []
    no_makefile: dict[str, str] = {}
    for p in programs:
        found, why = jobs_of(p)
        jobs += found
        if why is not None:
            no_makefile[p.name] = why
    start = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(compile_job, jobs, [args.compiler] * len(jobs)))
    took = time.monotonic() - start
    report = summary(args.checkout, programs, rows, no_makefile, took)
    print(report)
    if args.write:
        RESULTS.write_text(report)
        with open(TABLE, "w", newline="") as f:
            keys = ["program", "file", "from_makefile", "outcome", "compiler", "kernels", "defined"]
            keys += [
                "missing_kernels",
                "missing_instantiations",
                "mended",
                "refusal",
                "message",
                "nvcc_alone",
                "seconds",
            ]
            writer = csv.DictWriter(f, keys, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)


def _commit(checkout: Path) -> str:
    """The checkout's commit: its git HEAD where it is its own repository, else a `COMMIT` file
    in it (a checkout exported from a mirror)."""
    top = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode == 0 and Path(top.stdout.strip()).resolve() == checkout.resolve():
        found = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True)
        return found.stdout.strip()
    marker = checkout / "COMMIT"
    return marker.read_text().strip() if marker.is_file() else "(unknown commit)"


def summary(
    checkout: Path, programs: list[Path], rows: list[dict[str, object]], no_make: dict[str, str], took: float
) -> str:
    import platform

    from perfcalc.sim.ptx import toolchain

    files = len(rows)
    compiled = [r for r in rows if r["outcome"] == "compiled"]
    refused = [r for r in rows if r["outcome"] == "refused"]
    by_program: dict[str, list[dict[str, object]]] = collections.defaultdict(list)
    for r in rows:
        by_program[str(r["program"])].append(r)
    whole = sum(1 for rs in by_program.values() if all(r["outcome"] == "compiled" for r in rs))
    made = [r for r in rows if r["from_makefile"]]
    made_ok = sum(1 for r in made if r["outcome"] == "compiled")
    missing = [r for r in compiled if r.get("missing_kernels") or r.get("missing_instantiations")]
    mended = [r for r in compiled if r.get("mended")]
    tools = toolchain.route(None)
    lines = [
        "# HeCBench compiled as its Makefiles build it (`python benchmarks/corpus_compile.py`)",
        "",
        f"Checkout: {checkout.name} at {_commit(checkout)}; {len(programs)} programs (`src/*-cuda`).",
        f"Compiler: {tools.name if tools else 'NVRTC (no host compiler)'}, for CC 9.0. Machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; {took:.0f} s.",
        "",
        "| what | count | share |",
        "|---|---|---|",
        f"| `.cu` files | {files} | |",
        f"| files compiled | {len(compiled)} | {100 * len(compiled) / max(files, 1):.1f} % |",
        f"| files whose compile command came from the Makefile | {len(made)} | |",
        f"| of those, compiled | {made_ok} | {100 * made_ok / max(len(made), 1):.1f} % |",
        f"| programs with every file compiled | {whole} of {len(by_program)} | "
        f"{100 * whole / max(len(by_program), 1):.1f} % |",
        f"| compiled after mending (a header stood in, host code blanked) | {len(mended)} | |",
        f"| compiled files missing a kernel they define or launch | {len(missing)} | |",
        f"| programs whose Makefile printed no compile command here | {len(no_make)} | |",
        "",
        "## Refusals by class",
        "",
        "| class | files |",
        "|---|---|",
    ]
    for name, count in collections.Counter(str(r["refusal"]) for r in refused).most_common():
        lines.append(f"| {name} | {count} |")
    alone = [str(r.get("nvcc_alone", "")) for r in refused]
    header = sum(1 for a in alone if "No such file" in a or "cannot open source file" in a)
    same = sum(1 for a in alone if a.startswith("fails")) - header
    lines += [
        "",
        "The same nvcc on each refused file with the file's own flags and nothing of perfcalc's (no stand-in, "
        f"no blanking): {same} of {len(refused)} fail with an error of their own (nvcc refuses the code itself), "
        f"{header} stop at a header not installed here (perfcalc stood it in and the code after it still needed "
        f"it), {sum(1 for a in alone if a == 'compiles')} compile.",
    ]
    lines += [
        f"- compiles without perfcalc: {r['program']}/{r['file']}" for r in refused if r.get("nvcc_alone") == "compiles"
    ]
    if missing:
        lines += ["", "## Compiled files missing a kernel", ""]
        lines += [
            f"- {r['program']}/{r['file']}: {r.get('missing_kernels') or ''} {r.get('missing_instantiations') or ''}"
            for r in missing
        ]
    lines += ["", "## Programs whose Makefile printed no compile command (their .cu files compiled with -I.)", ""]
    lines += [f"- {name}: {why}" for name, why in sorted(no_make.items())]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
