"""Generators and the one check of perfcalc's fuzzing suite (issue #14).

Each class makes a case from a `random.Random` (so a case is reproduced from its seed) and
`run_case` checks the promise every input gets: exit 0, or exit 2 with one `error:` line (a
source error may add its quoted line and caret); never a traceback; within a time bound; and
nothing left on disk but the files a successful command was asked to write. The fast slice is
`tests/test_fuzz.py` (in CI); the long run is `python benchmarks/fuzz.py` (FUZZING.md).
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BOUND_S = 30

NASTY_TEXT = [
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "nan",
    "inf",
    "-inf",
    "9" * 30,
    "2147483648",
    "9223372036854775808",
    "-9223372036854775809",
    "1.5",
    "0x10",
    "abc",
    "a\nerror: x",
    "\x1b[31m",
    "\x00",
    "é",
    "..",
    "/",
    "//",
    "-",
    "--",
    "%s",
    "{}",
    "'",
    '"',
    "\\",
    "x" * 5000,
    "1,2,3",
    "0,0",
    "65536,65536,65536",
    "1e-300",
    "-0",
    "true",
    "None",
]
NASTY_INT = [
    0,
    -1,
    1,
    2,
    31,
    32,
    33,
    255,
    256,
    1023,
    1024,
    1025,
    65535,
    65536,
    2**31 - 1,
    2**31,
    2**32,
    2**62,
    2**63 - 1,
    2**63,
    10**30,
]
NASTY_FLOAT = [0.0, -0.0, 1e-300, 1e300, float("nan"), float("inf"), float("-inf"), 0.5, -1.5]


@dataclass
class Case:
    """One input: a command line (argv) and files to create first (name -> bytes)."""

    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    writes: tuple[str, ...] = ()  # outputs the command may leave when it succeeds
    fifo: tuple[str, ...] = ()
    dirs: tuple[str, ...] = ()
    links: dict[str, str] = field(default_factory=dict)  # name -> what it points to
    env: dict[str, str] = field(default_factory=dict)  # environment variables set for the command


@dataclass
class Outcome:
    ok: bool
    why: str
    seconds: float


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise _Hang()

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def one_error(stderr: str) -> bool:
    """One `error:` line; a source error may add the quoted line and its caret (indented)."""
    lines = stderr.rstrip("\n").split("\n")
    return (
        stderr.endswith("\n")
        and lines[0].startswith("error: ")
        and len(lines) <= 3
        and all(line.startswith("    ") for line in lines[1:])
    )


def run_case(case: Case, bound_s: int = BOUND_S) -> Outcome:
    """Run `case` in-process in a fresh directory and check the promise (module docstring)."""
    from typer.testing import CliRunner

    from perfcalc.cli import app

    with tempfile.TemporaryDirectory() as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        try:
            for name, data in case.files.items():
                Path(name).write_bytes(data)
            for name in case.fifo:
                os.mkfifo(name)
            for name in case.dirs:
                os.mkdir(name)
            for name, points_to in case.links.items():
                os.symlink(points_to, name)
            before = _tree()
            start = time.monotonic()
            try:
                with _alarm(bound_s):
                    result = CliRunner().invoke(app, case.argv, env=case.env or None)
            except _Hang:
                return Outcome(False, f"hang: over {bound_s} s", time.monotonic() - start)
            seconds = time.monotonic() - start
            if isinstance(result.exception, _Hang):
                return Outcome(False, f"hang: over {bound_s} s", seconds)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                return Outcome(
                    False, f"traceback: {type(result.exception).__name__}: {str(result.exception)[:200]}", seconds
                )
            if result.exit_code not in (0, 2):
                return Outcome(False, f"exit {result.exit_code}: {result.stderr[-300:]}", seconds)
            if result.exit_code == 2 and not one_error(result.stderr):
                return Outcome(False, f"not one error line: {result.stderr[:300]!r}", seconds)
            left = _tree() - before
            allowed = set()
            if result.exit_code == 0:
                allowed = {os.path.normpath(w) for w in case.writes}
                allowed |= {os.path.normpath(case.links[w]) for w in case.writes if w in case.links}
            if left - allowed:
                return Outcome(False, f"left behind: {sorted(left - allowed)}", seconds)
            return Outcome(True, f"exit {result.exit_code}", seconds)
        finally:
            os.chdir(here)


def _tree() -> set[str]:
    found = set()
    for folder, dirs, files in os.walk("."):
        for name in dirs + files:
            found.add(os.path.normpath(os.path.join(folder, name)))
    return found


# --- generators, one per class ------------------------------------------------------------


def _value(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.4:
        return rng.choice(NASTY_TEXT)
    if pick < 0.8:
        return str(rng.choice(NASTY_INT))
    return repr(rng.choice(NASTY_FLOAT))


_COMMANDS: dict[str, list[str]] = {
    "occupancy": [
        "--cc",
        "--gpu",
        "--block",
        "--regs",
        "--smem",
        "--dyn-smem",
        "--carveout",
        "--cache-config",
        "--sweep",
        "--block-barriers",
        "--format",
    ],
    "coalesce": [
        "--cc",
        "--pattern",
        "--stride",
        "--word",
        "--offset",
        "--base",
        "--struct-size",
        "--field-offset",
        "--tile-width",
        "--pad",
        "--index",
        "--active",
        "--cache",
        "--format",
    ],
    "banks": [
        "--cc",
        "--pattern",
        "--stride",
        "--word",
        "--offset",
        "--index",
        "--tile-width",
        "--pad",
        "--bank-mode",
        "--format",
    ],
    "roofline": ["--gpu", "--intensity", "--kernel", "--param", "--format"],
    "matmul": ["--width", "--tile", "--gpu", "--cc", "--regs", "--latency-cycles", "--format"],
    "run": ["--cc", "--gpu", "--param", "--regs", "--iteration-cap", "--cache", "--bank-mode", "--format"],
    "devices": [],
    "kernels": [],
}
_GOOD = {
    "--cc": ["7.0", "9.0", "1.0", "3.5"],
    "--gpu": ["h100-sxm", "v100", "g80"],
    "--block": ["256", "128"],
    "--regs": ["32"],
    "--format": ["json", "csv", "table"],
    "--pattern": ["stride", "index", "tile-row", "aos", "random"],
    "--kernel": ["matmul_naive", "copy_stride"],
    "--param": ["Width=64", "n=1024", "stride=2"],
    "--index": ["lane*2", "lane", "31-lane"],
    "--width": ["64", "128"],
}


def cli_case(rng: random.Random) -> Case:
    """A command with a random subset of its options, each a good or a nasty value."""
    command = rng.choice(list(_COMMANDS))
    argv = [command]
    if command == "run":
        argv.append(rng.choice(["copy_stride", "matmul_tiled", "reduce_interleaved", "nope", ""]))
        argv += ["--max-seconds", "5"]
    if command == "devices" and rng.random() < 0.7:
        argv += ["show", rng.choice(["9.0", "h100-sxm", _value(rng)])]
    if command == "kernels" and rng.random() < 0.7:
        argv.append(rng.choice(["matmul_tiled", _value(rng)]))
    if command == "matmul":
        argv.append("--no-simulate" if rng.random() < 0.7 else "--max-seconds=5")
    for option in rng.sample(_COMMANDS[command], k=min(len(_COMMANDS[command]), rng.randint(0, 5))):
        good = _GOOD.get(option)
        argv += [option, rng.choice(good) if good and rng.random() < 0.5 else _value(rng)]
    return Case(argv)


def _shipped_device() -> str:
    return (ROOT / "devices" / "cc_9_0.yaml").read_text()


def device_case(rng: random.Random) -> Case:
    """The shipped CC 9.0 file with keys removed, retyped, nested, aliased or re-encoded."""
    data = yaml.safe_load(_shipped_device())
    keys = list(data)
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(keys)
        pick = rng.random()
        if pick < 0.2:
            data.pop(key, None)
        elif pick < 0.5:
            data[key] = rng.choice([*NASTY_INT, *NASTY_FLOAT, *NASTY_TEXT[:12], [], {}, None, [1, 2], True])
        elif pick < 0.6:
            data[rng.choice(["extra", "x" * 300, "é"])] = 1
        else:
            value = data.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                data[key] = value * rng.choice([0, -1, 2, 1024, 10**20])
    text = yaml.safe_dump(data, allow_unicode=True)
    pick = rng.random()
    if pick < 0.1:
        depth = rng.choice([10, 100, 1000, 30000])
        text = "[" * depth + "]" * depth
    elif pick < 0.2:
        text += (
            "laughs: &a ["
            + ",".join(["x"] * 10)
            + "]\n"
            + "".join(f"l{i}: &a{i} [{','.join(['*a' if i == 0 else f'*a{i - 1}'] * 10)}]\n" for i in range(9))
        )
    elif pick < 0.3:
        cut = rng.randint(0, len(text))
        text = text[:cut]
    encoded = text.encode(rng.choice(["utf-8", "utf-8", "utf-16", "latin-1"]), errors="replace")
    command = rng.choice(
        [
            ["occupancy", "--cc", "dev.yaml", "--block", "256", "--regs", "32"],
            ["devices", "show", "dev.yaml"],
            ["coalesce", "--cc", "dev.yaml", "--stride", "2"],
        ]
    )
    return Case(command, {"dev.yaml": encoded})


def product_case(rng: random.Random) -> Case:
    """A product file holding the H100 SXM entry with keys removed, retyped or added."""
    data = yaml.safe_load((ROOT / "devices" / "products.yaml").read_text())
    product = dict(next(p for p in data["products"] if p["key"] == "h100-sxm"))
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(list(product))
        pick = rng.random()
        if pick < 0.2:
            product.pop(key)
        elif pick < 0.8:
            product[key] = rng.choice([*NASTY_INT, *NASTY_FLOAT, *NASTY_TEXT[:12], [], {}, None, [1, 2], True])
        else:
            product[rng.choice(["x", "peak", "é"])] = 1
    data["products"] = [product]
    command = rng.choice(
        [
            ["roofline", "--gpu", "g.yaml"],
            ["devices", "show", "g.yaml"],
            ["occupancy", "--gpu", "g.yaml", "--block", "256", "--regs", "32"],
            ["matmul", "--gpu", "g.yaml", "--no-simulate", "--width", "256"],
        ]
    )
    return Case(command, {"g.yaml": yaml.safe_dump(data).encode()})


_PTXAS_LINES = [
    "ptxas info    : 0 bytes gmem",
    "ptxas info    : Compiling entry function '{name}' for 'sm_{arch}'",
    "ptxas info    : Function properties for {name}",
    "    {a} bytes stack frame, {b} bytes spill stores, {c} bytes spill loads",
    "ptxas info    : Used {a} registers, used {b} barriers, {c} bytes smem, {d} bytes cmem[0]",
    "ptxas info    : Used {a} registers, {b}+{c} bytes smem, {d} bytes cmem[0]",
    "ptxas error   : Entry function '{name}' uses too much shared data",
]


def ptxas_case(rng: random.Random) -> Case:
    """Lines in ptxas -v's shapes with names and numbers drawn from the nasty pools."""
    names = [
        "_Z15MatrixMulKernelPfS_S_i",
        "_Z5scaleIfLi128EEvPKT_PS0_i",
        "kernel",
        "",
        "_Z" + "P" * rng.choice([10, 2000, 6000]) + "i",
        "a" * 40000,
        "k'x",
        "k\u2019",
    ]
    lines = []
    for _ in range(rng.randint(1, 8)):
        template = rng.choice(_PTXAS_LINES)
        fill = {"name": rng.choice(names), "arch": rng.choice(["90", "75", "x", "1000"])}
        for slot in "abcd":
            fill[slot] = rng.choice([str(n) for n in NASTY_INT] + ["9" * rng.choice([5, 25, 40000]), "-3", "x"])
        lines.append(template.format(**fill))
    return Case(
        ["occupancy", "--cc", rng.choice(["9.0", "7.5", "1.0"]), "--block", "256", "--ptxas", "p.log"],
        {"p.log": "\n".join(lines).encode()},
    )


_OPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "<", "==", "and", "or"]
_FUNCS = ["min", "max", "abs", "ceil", "floor", "ceil_div", "log2", "sqrt", "exp", "int"]


def expression(rng: random.Random, depth: int = 0) -> str:
    """A random expression over `lane` from the evaluator's grammar, plus things it refuses."""
    if depth > 4 or rng.random() < 0.3:
        return rng.choice(
            [
                "lane",
                "lane",
                "0",
                "1",
                "2",
                "-1",
                "31",
                "64",
                str(rng.choice(NASTY_INT)),
                "1.5",
                "1e308",
                "x",
                "__import__",
                "'a'",
                "[1]",
            ]
        )
    pick = rng.random()
    if pick < 0.5:
        return f"({expression(rng, depth + 1)} {rng.choice(_OPS)} {expression(rng, depth + 1)})"
    if pick < 0.7:
        return f"{rng.choice(['-', '~', 'not ', '+'])}{expression(rng, depth + 1)}"
    if pick < 0.9:
        args = ", ".join(expression(rng, depth + 1) for _ in range(rng.randint(0, 3)))
        return f"{rng.choice(_FUNCS)}({args})"
    return f"({expression(rng, depth + 1)} if {expression(rng, depth + 1)} else {expression(rng, depth + 1)})"


def expression_case(rng: random.Random) -> Case:
    text = expression(rng)
    if rng.random() < 0.05:
        text = "(" * rng.choice([50, 300]) + text + ")" * rng.choice([50, 300])
    return Case([rng.choice(["coalesce", "banks"]), "--cc", "7.0", "--index", text])


def _catalog() -> dict:
    return yaml.safe_load((ROOT / "kernels.yaml").read_text())["kernels"]


_TOKEN = re.compile(r"\w+|[^\w\s]|\s+")
_INSERTS = [
    "__syncthreads();",
    "while (1) {}",
    "x",
    "0",
    "-1",
    "2147483647",
    "1e38f",
    ";",
    "{",
    "}",
    "(",
    "[0]",
    "/ 0",
    "<< 40",
    "#if 1\n",
    "#define Q (Q+Q)\n",
    "\\\n",
    "goto l;",
    "for (;;) __syncthreads();",
    "__shared__ float s[1 << 30];",
    "return;",
    "atomicAdd(",
]


def _mutate(tokens: list[str], rng: random.Random) -> None:
    """Delete, duplicate or replace one to three tokens in place."""
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(tokens))
        pick = rng.random()
        if pick < 0.3:
            del tokens[i]
        elif pick < 0.5:
            tokens.insert(i, tokens[rng.randrange(len(tokens))])
        elif pick < 0.8:
            tokens[i] = rng.choice(_INSERTS)
        elif tokens[i].isdigit():
            tokens[i] = str(rng.choice(NASTY_INT))


def kernel_case(rng: random.Random, engine: str = "source") -> Case:
    """A catalog kernel with a few tokens deleted, duplicated, swapped or replaced, run with
    arrays and scalars shaped after its catalog entry."""
    spec = rng.choice(list(_catalog().values()))
    tokens = _TOKEN.findall(spec["source"])
    _mutate(tokens, rng)
    argv = [
        "run",
        "--source",
        "k.cu",
        "--kernel",
        spec["kernel"],
        "--grid",
        "2",
        "--block",
        "64",
        "--engine",
        engine,
        "--max-seconds",
        "10",
        "--iteration-cap",
        "100000",
    ]
    for arg in spec["args"]:
        if arg["role"] == "scalar":
            argv += ["-p", f"{arg['name']}={rng.choice([1, 16, 64, 4096])}"]
        else:
            argv += ["--array", f"{arg['name']}={arg.get('dtype', 'float32')}:65536"]
    return Case(argv, {"k.cu": "".join(tokens).encode()})


def corpus_call(rng: random.Random) -> Callable[[], object]:
    """A PTX-engine corpus launch (real CUDA C++: templates, cooperative groups, shuffles) with a
    few tokens of its file mutated, run through the library with the corpus's own inputs."""
    import corpus

    from perfcalc.sim import run_kernel

    entries = corpus.manifest()
    name = rng.choice(sorted(entries))
    entry = entries[name]
    tokens = _TOKEN.findall(corpus.source(entry))
    _mutate(tokens, rng)
    text = "".join(tokens)
    args = corpus.inputs(name, entry)
    return lambda: run_kernel(
        text,
        entry.get("kernel"),
        tuple(entry["grid"]),
        tuple(entry["block"]),
        args,
        "9.0",
        dynamic_shared_memory_bytes=entry.get("dynamic_shared", 0),
        defines=entry.get("defines"),
        engine="ptx",
        source_name=entry["file"],
        max_seconds=20,
        iteration_cap=100_000,
    )


def output_case(rng: random.Random) -> Case:
    """An answer written to every kind of place: links, FIFOs, folders, odd and long names."""
    target = rng.choice(
        [
            "o.csv",
            "",
            "new/",
            "missing/o.csv",
            "a" * 300,
            "dir",
            "link",
            "fifo",
            "dir/o.csv",
            ".",
            "-",
            "o\nx.csv",
            "link-to-missing",
            "dir/",
        ]
    )
    case = Case([], dirs=("dir",), fifo=("fifo",), links={"link": "target.csv", "link-to-missing": "missing/x.csv"})
    argv = rng.choice(
        [
            ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"],
            ["roofline", "--gpu", "v100"],
            ["coalesce", "--cc", "7.0", "--stride", "2"],
        ]
    )
    argv += ["--format", rng.choice(["csv", "json", "markdown"]), "--output", target]
    writes = [target]
    if argv[0] == "roofline" and rng.random() < 0.5:
        plot = rng.choice(["r.png", "r.pdf", "r.txt", "missing/r.png", "dir"])
        argv += ["--plot", plot]
        writes.append(plot)
    case.argv, case.writes = argv, tuple(writes)
    return case


_SIGNAL_COMMANDS = [
    ["coalesce", "--stride", "2", "--all-cc"],
    ["banks", "--cc", "9.0", "--stride", "3"],
    ["occupancy", "--cc", "8.6", "--block", "256", "--regs", "40", "--sweep", "all"],
    ["devices", "show", "h100-sxm"],
    ["roofline", "--gpu", "a100", "--kernel", "matmul_tiled"],
]


def run_signal_case(rng: random.Random, bound_s: int = BOUND_S) -> Outcome:
    """A command writing a file gets SIGTERM or SIGINT at a random moment (in-process, with the
    handler `perfcalc` installs): it exits 0 (done first), 130 or 143, prints one line, and
    leaves nothing or the complete file, byte for byte what an undisturbed run writes."""
    import threading

    from typer.testing import CliRunner

    from perfcalc.cli import Stopped, app, on_signal

    argv = [*rng.choice(_SIGNAL_COMMANDS), "--format", rng.choice(["csv", "json"]), "-o", "out"]
    which = rng.choice([signal.SIGTERM, signal.SIGINT])
    share = rng.uniform(0.0, 1.2)  # of an undisturbed run's time
    streams = (sys.stdin, sys.stdout, sys.stderr)  # a signal inside CliRunner's stream swap leaves them
    with tempfile.TemporaryDirectory() as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            reference = time.monotonic()
            undisturbed = CliRunner().invoke(app, argv)
            delay = share * (time.monotonic() - reference)
            if undisturbed.exit_code != 0 or not Path("out").exists():
                why = undisturbed.exception if undisturbed.exception is not None else undisturbed.stderr[-200:]
                return Outcome(False, f"the undisturbed run failed: exit {undisturbed.exit_code}: {why!r}", 0.0)
            expected = Path("out").read_bytes()
            os.remove("out")
            start = time.monotonic()
            # to the main thread, as a signal reaches perfcalc (one thread) from outside: a
            # process-directed one could land in the timer's thread, past the main's mask
            timer = threading.Timer(delay, signal.pthread_kill, (threading.main_thread().ident, which))
            try:
                timer.start()
                with _alarm(bound_s):
                    result = CliRunner().invoke(app, argv)
                    timer.join()
                    time.sleep(0.001)  # a signal sent just after the command lands here
            except Stopped:  # outside the command (main() answers it with one line)
                timer.join()
                result = None
            seconds = time.monotonic() - start
            left = sorted(os.listdir("."))
            if left not in ([], ["out"]):
                return Outcome(False, f"left behind: {left}", seconds)
            if left and Path("out").read_bytes() != expected:
                return Outcome(False, "an incomplete or different output file", seconds)
            if result is None:
                return Outcome(True, "signal outside the command", seconds)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                return Outcome(False, f"traceback: {type(result.exception).__name__}", seconds)
            if result.exit_code not in (0, 130, 143):
                return Outcome(False, f"exit {result.exit_code}: {result.stderr[-200:]}", seconds)
            if result.exit_code and not one_error(result.stderr):
                return Outcome(False, f"not one error line: {result.stderr[:200]!r}", seconds)
            return Outcome(True, f"exit {result.exit_code}", seconds)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
            sys.stdin, sys.stdout, sys.stderr = streams  # the harness's, whatever the signal interrupted
            os.chdir(here)


def library_call(rng: random.Random) -> Callable[[], object]:
    """A public library function with arguments from the nasty pools."""
    import numpy as np

    import perfcalc
    from perfcalc.memory.patterns import warp_pattern
    from perfcalc.sim import run_kernel
    from perfcalc.specs import get_arch

    nasty = [
        *NASTY_INT,
        *NASTY_FLOAT,
        *NASTY_TEXT[:20],
        None,
        [],
        {},
        [1, 2],
        True,
        object(),
        np.arange(32),
        np.arange(32) * 2**60,
        np.zeros(5),
        np.arange(32) * 0.5,
        np.arange(64).reshape(2, 32),
        np.arange(32, dtype=np.uint64) * 2**59,
    ]
    pick = rng.randrange(7)
    if pick >= 5:
        access = perfcalc.global_access if pick == 5 else perfcalc.shared_access
        extra = {
            "op": rng.choice(["load", "store", *nasty]),
            "active": rng.choice([None, *nasty]),
            ("cache" if pick == 5 else "bank_mode"): rng.choice([None, "l1", "l2", 4, 8, *nasty]),
        }
        chosen = dict(rng.sample(sorted(extra.items(), key=str), k=rng.randint(0, 3)))
        return lambda: access(
            rng.choice(["9.0", "7.0", "3.5", "2.0", "1.2", *nasty[:6]]),
            rng.choice([np.arange(32) * 4, *nasty]),
            rng.choice([4, 8, 16, 1, 12, *nasty]),
            **chosen,
        )
    if pick == 0:
        return lambda: perfcalc.occupancy(
            rng.choice(["9.0", "7.0", *nasty[:5]]),
            rng.choice([256, *nasty]),
            rng.choice([32, *nasty]),
            block_barriers=rng.choice([1, *nasty]),
        )
    if pick == 1:
        return lambda: get_arch(rng.choice(nasty))
    if pick == 2:
        return lambda: warp_pattern(
            rng.choice(["stride", "index", "aos", *NASTY_TEXT[:5]]),
            rng.choice([4, *nasty]),
            stride=rng.choice([1, *nasty]),
            index=rng.choice(["lane", *NASTY_TEXT[:8]]),
        )
    if pick == 3:
        from perfcalc.expr import evaluate

        return lambda: evaluate(expression(rng), {"lane": np.arange(32)})
    source = "__global__ void k(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1.0f; }\n"
    args = {"x": rng.choice([np.zeros(64, np.float32), np.zeros(1, np.int8), None, 3]), "n": rng.choice([4, *nasty])}
    return lambda: run_kernel(
        rng.choice([source, None, "", "x"]),
        rng.choice(["k", None, 3]),
        rng.choice([1, 2, *nasty]),
        rng.choice([32, 64, *nasty]),
        args,
        rng.choice(["9.0", *nasty[:4]]),
        bank_mode=rng.choice([None, 4, 8, "abc"]),
        iteration_cap=rng.choice([1000, True, -1]),
        max_seconds=10,
    )


def run_library_call(call: Callable[[], object], bound_s: int = BOUND_S) -> Outcome:
    """A library call may return or raise perfcalc's errors; nothing else (a NumPy warning
    counts as something else: it announces a wrong number)."""
    import warnings

    from perfcalc.errors import PerfcalcError

    start = time.monotonic()
    try:
        with _alarm(bound_s), warnings.catch_warnings():
            warnings.simplefilter("error")
            call()
    except PerfcalcError:
        pass
    except _Hang:
        return Outcome(False, f"hang: over {bound_s} s", time.monotonic() - start)
    except Exception as exc:  # noqa: BLE001 - that is what the suite looks for
        return Outcome(False, f"foreign exception {type(exc).__name__}: {str(exc)[:200]}", time.monotonic() - start)
    return Outcome(True, "ok", time.monotonic() - start)


_ENV_VARS = ("PERFCALC_CACHE_DIR", "PERFCALC_PTXAS", "PERFCALC_NVRTC", "PERFCALC_NVCC", "PERFCALC_COMPILER")
_SCALE = (
    b"__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }\n"
)


def environment_case(rng: random.Random) -> Case:
    """Issue 36: every environment variable perfcalc reads, set to a nasty value (or a file of
    the wrong kind: a folder, a FIFO, a text file), under a command that reads it."""
    name = rng.choice(_ENV_VARS)
    pick = rng.random()
    files, dirs, fifo = {"k.cu": _SCALE, "text.txt": b"not a program\n"}, ("folder",), ()
    if pick < 0.5:
        value = _value(rng)
    elif pick < 0.7:
        value = rng.choice(["folder", "text.txt", "k.cu", "missing/path", "/dev/null"])
    elif pick < 0.8:
        value, fifo = "pipe", ("pipe",)
    else:
        value = rng.choice(["auto", "nvcc", "nvrtc", "NVCC", "gcc", ""])
    argv = ["run", "--source", "k.cu", "--grid", "1", "--block", "32", "--array", "x=float32:32", "-p", "n=32"]
    argv += ["--engine", rng.choice(["ptx", "auto"]), "--max-seconds", "20"]
    value = value.replace("\x00", "")  # the OS refuses NUL in the environment before perfcalc sees it
    return Case(argv, files=files, dirs=dirs, fifo=fifo, env={name: value})


_TUNE_GOOD = ["BLOCK=32,64", "BLOCK=32..64:*2", "U=1,2"]


def tune_case(rng: random.Random) -> Case:
    """perfcalc tune with nasty axes, constraints and launch expressions (issue 34's surface)."""
    axes = [rng.choice(_TUNE_GOOD) if rng.random() < 0.5 else f"{rng.choice(['BLOCK', 'U', ''])}={_value(rng)}"]
    argv = ["tune", "k.cu", "--kernel", "scale", "--gpu", rng.choice(["h100-sxm", "l4", _value(rng)])]
    for axis in axes:
        argv += ["--space", axis]
    if rng.random() < 0.3:
        argv += ["--where", rng.choice(["BLOCK >= 32", _value(rng)])]
    argv += ["--grid", rng.choice(["n/BLOCK", "1", _value(rng)]), "--block", rng.choice(["BLOCK", "32", _value(rng)])]
    argv += ["--let", "n=64", "-p", rng.choice(["n=n", "n=64", f"n={_value(rng)}"])]
    argv += ["--array", rng.choice(["x=float32:n", "x=float32:64", f"x={_value(rng)}"]), "--backend", "serial"]
    if rng.random() < 0.2:
        argv += ["--workers", _value(rng)]
    return Case(argv, files={"k.cu": _SCALE})


CLASSES: dict[str, Callable[[random.Random], Case]] = {
    "environment variables": environment_case,
    "tune spaces": tune_case,
    "cli options": cli_case,
    "device files": device_case,
    "product files": product_case,
    "ptxas logs": ptxas_case,
    "expressions": expression_case,
    "kernel sources (source engine)": kernel_case,
    "outputs": output_case,
}
