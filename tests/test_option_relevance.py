"""Issue 37: an option the chosen path would ignore is refused in one line (cli/relevance.py), and a
catalog file whose list fields are not lists is a SpecError, not a TypeError from inside.

Expected values: which options each warp pattern reads is the definition of the pattern
(memory/patterns.py's formulas: tile-row reads tile width, pad and row, random reads segment and
seed, ...); an option the pattern does not read cannot change its answer, which the last test
checks by comparing the priced access with and without it through the library.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_bad_input import fails

from perfcalc.cli import app
from perfcalc.memory.patterns import PATTERN_OPTIONS, warp_pattern

ROOT = Path(__file__).resolve().parents[1]
FLAGS = {
    "stride": "3",
    "seed": "5",
    "struct_size": "16",
    "field_offset": "4",
    "tile_width": "8",
    "pad": "1",
    "row": "2",
    "column": "2",
    "segment": "256",
    "index": "lane*2",
}


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


@pytest.mark.parametrize("command", ["coalesce", "banks"])
@pytest.mark.parametrize("pattern", sorted(PATTERN_OPTIONS))
def test_every_option_another_pattern_reads_is_refused(command: str, pattern: str) -> None:
    needs = {"aos": ["--struct-size", "16"], "index": ["--index", "lane*3"]}.get(pattern, [])
    for option in sorted(set(FLAGS) - set(PATTERN_OPTIONS[pattern])):
        fails(
            command, "--pattern", pattern, *needs, _flag(option), FLAGS[option],
            fragments=(_flag(option), f"--pattern {pattern} ignores it"),
        )  # fmt: skip


def test_the_options_a_pattern_reads_are_still_taken() -> None:
    from typer.testing import CliRunner

    runner = CliRunner()
    for pattern, options in PATTERN_OPTIONS.items():
        argv = ["coalesce", "--pattern", pattern, "--cc", "9.0"]
        argv += ["--struct-size", "16"] if pattern == "aos" and "struct_size" not in options else []
        for option in options:
            argv += [_flag(option), FLAGS[option]]
        done = runner.invoke(app, argv)
        assert done.exit_code == 0, (argv, done.output)


def test_an_option_outside_the_pattern_cannot_change_its_addresses() -> None:
    """Why refusing is right: the pattern's addresses do not depend on the options it does not read."""
    for pattern, options in PATTERN_OPTIONS.items():
        base = {"struct_size": 16} if pattern == "aos" else {}
        base |= {"index": "lane*3"} if pattern == "index" else {}
        plain = warp_pattern(pattern, 4, **base)  # type: ignore[arg-type]
        for option in set(FLAGS) - set(options) - {"index", "struct_size"}:
            other = warp_pattern(pattern, 4, **base, **{option: int(FLAGS[option])})  # type: ignore[arg-type]
            assert other.addresses == plain.addresses, (pattern, option)


@pytest.mark.parametrize(
    "extra",
    [["--kernel", ""], ["--kernel", "x"], ["--define", "N=4"]],
)
@pytest.mark.parametrize(
    "base",
    [
        ["--cc", "9.0", "--block", "256", "--regs", "32"],
        ["--gpu", "h100-sxm", "--block", "256", "--regs", "32"],
        ["--cc", "7.0", "--block", "128", "--regs", "64", "--sweep", "block"],
        ["--cc", "9.0", "--regs", "32", "--suggest"],
    ],
)
def test_occupancy_refuses_source_options_without_source(base: list[str], extra: list[str]) -> None:
    """The issue's 12 combinations: --kernel and --define name a kernel of --source."""
    fails("occupancy", *base, *extra, fragments=(extra[0], "goes with --source"))


@pytest.mark.parametrize(
    "argv",
    [
        ["occupancy", "--cc", "9.0", "--block", "256", "--regs", "32"],
        ["coalesce", "--stride", "2"],
        ["banks", "--stride", "2"],
        ["roofline", "--gpu", "h100-sxm"],
    ],
)
def test_dpi_without_a_plot_is_refused(argv: list[str]) -> None:
    fails(*argv, "--dpi", "300", fragments=("--dpi", "goes with --plot"))


@pytest.mark.parametrize("field", ["defines", "requires"])
@pytest.mark.parametrize("value", [3, "Width", 1.5, {"a": 1}])
def test_a_catalog_list_field_of_another_shape_is_one_line(tmp_path: Path, field: str, value: object) -> None:
    data = yaml.safe_load((ROOT / "kernels.yaml").read_text())
    data["kernels"]["matmul_naive"][field] = value
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(data))
    fails(
        "run", "matmul_naive", "--catalog", str(tmp_path / "cat.yaml"),
        fragments=(f"kernel matmul_naive.{field}", "expected a list"),
    )  # fmt: skip


def test_a_catalog_define_that_is_not_a_name_is_one_line(tmp_path: Path) -> None:
    data = yaml.safe_load((ROOT / "kernels.yaml").read_text())
    data["kernels"]["matmul_naive"]["defines"] = [["Width"]]
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(data))
    fails("run", "matmul_naive", "--catalog", str(tmp_path / "cat.yaml"), fragments=("is not a parameter",))


@pytest.mark.parametrize("engine", ["source", "ptx"])
@pytest.mark.parametrize("value", [str(10**400), str(-(10**39)), "3.5e38"])
def test_a_scalar_past_its_float_type_is_one_line_on_both_engines(tmp_path: Path, engine: str, value: str) -> None:
    """The issue's -p x=1e400-style scalar: an integer past float64 was an OverflowError traceback,
    one past float32 'a calculation failed'. FLT_MAX = 3.40282e+38 (IEEE 754 binary32); 3.5e38
    rounds to infinity."""
    if engine == "ptx":
        from perfcalc.sim.ptx import nvrtc

        if not nvrtc.available():
            pytest.skip("the PTX engine needs the cuda extra (NVRTC)")
    (tmp_path / "k.cu").write_text(
        "__global__ void k(float* x, float s, int n) { int i = threadIdx.x; if (i < n) x[i] = s * x[i]; }\n"
    )
    fails(
        "run", "--engine", engine, "--source", str(tmp_path / "k.cu"), "--grid", "1", "--block", "32",
        "--array", "x=float32:32", "-p", f"s={value}", "-p", "n=32",
        fragments=("argument s", "C type float (largest 3.40282e+38)"),
    )  # fmt: skip


def test_an_empty_cc_is_an_unknown_device_not_the_default() -> None:
    fails("run", "matmul_naive", "--cc", "", fragments=("unknown device ''",))


def _catalog_with(tmp_path: Path, name: str, change) -> Path:  # type: ignore[no-untyped-def]
    data = yaml.safe_load((ROOT / "kernels.yaml").read_text())
    change(data["kernels"][name])
    data["kernels"] = {name: data["kernels"][name]}
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(data))
    return tmp_path / "cat.yaml"


def _set_site(field: str, value: object):  # type: ignore[no-untyped-def]
    def change(entry: dict) -> None:
        entry["model"]["sites"][0][field] = value

    return change


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        # found by the fuzz class 'catalog files' (seeds 3003 and 983): a site's space or array
        # that is a list or a mapping was "unhashable type" from inside
        (_set_site("space", ["global"]), "space must be global or shared"),
        (_set_site("op", {"a": 1}), "op must be load or store"),
        (_set_site("array", ["x"]), "expected non-empty text"),
        (_set_site("field", [1]), "expected non-empty text"),
    ],
)
def test_a_catalog_site_field_of_another_shape_is_one_line(tmp_path: Path, change, fragment) -> None:  # type: ignore[no-untyped-def]
    fails("run", "copy_stride", "--catalog", str(_catalog_with(tmp_path, "copy_stride", change)), fragments=(fragment,))


def test_a_catalog_array_past_any_memory_is_one_line(tmp_path: Path) -> None:
    """Seed 407: a size of 2**62 elements was NumPy's 'array is too big' ValueError."""

    def change(entry: dict) -> None:
        entry["args"][0]["size"] = 2**62

    path = _catalog_with(tmp_path, "copy_stride", change)
    fails("run", "copy_stride", "--catalog", str(path), "-p", "n=256", fragments=("over the limit of 1024 GiB",))


def test_a_catalog_site_count_past_int64_is_one_line(tmp_path: Path) -> None:
    """Seed 1485: a model variable of 1e300 made a warp class's count past 2**63 - 1, an
    OverflowError from NumPy."""

    def change(entry: dict) -> None:
        entry["model"]["vars"]["warps"] = 1.0e300

    path = _catalog_with(tmp_path, "transpose_naive", change)
    fails("run", "transpose_naive", "--catalog", str(path), "-p", "n=32", fragments=("outside 0 to 2**63 - 1",))
