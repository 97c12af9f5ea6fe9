"""The cases of issue 36's adversarial sweep (and issue 35's C type names) as regression tests:
each is exit 2 with one `error:` line naming the value and the limit, or the right answer.

Every case runs through a fresh interpreter (`python -m perfcalc`), as the sweep ran them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_bad_input import fails_in_subprocess, one_error

KERNEL = (
    "__global__ void scale(float* x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= 2.0f;\n"
    "}\n"
)


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfcalc", *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


def test_a_negative_seed_is_one_line(tmp_path: Path) -> None:
    fails_in_subprocess("coalesce", "--pattern", "random", "--seed", "-1", cwd=tmp_path, fragments=("--seed", "-1"))


def test_an_array_past_any_memory_is_refused_before_numpy_sees_it(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(KERNEL)
    huge = "x=float4:1000000000000000000000000000000"
    fails_in_subprocess(
        "run", "--source", "k.cu", "--grid", "1", "--block", "32", "--array", huge, "-p", "n=32",
        cwd=tmp_path, fragments=("1e+30 elements of 16 bytes", "1024 GiB"),
    )  # fmt: skip


def test_c_type_names_are_numpys_on_every_cuda_platform(tmp_path: Path) -> None:
    """float is IEEE binary32 and unsigned char 8 bits on every platform CUDA supports (CUDA C++
    Programming Guide, 'C++ Language Support'): the runs are the same run."""
    (tmp_path / "k.cu").write_text(KERNEL)
    outputs = []
    for dtype in ("float", "float32"):
        args = ("run", "--source", "k.cu", "--grid", "1", "--block", "32", "--array", f"x={dtype}:32", "-p", "n=32")
        done = _run(*args, "-f", "json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout)["counters"])
    assert outputs[0] == outputs[1] and outputs[0]["global_load_requests"] == 1


def test_perfcalc_nvrtc_that_is_not_nvrtc_is_named(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "libfake.so").write_bytes(b"not a library")
    env = dict(os.environ, PERFCALC_NVRTC=str(tmp_path / "libfake.so"))
    done = _run(
        "run", "--source", "k.cu", "--grid", "1", "--block", "32", "--array", "x=float32:32", "-p", "n=32",
        "--engine", "ptx", "--compiler", "nvrtc", cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 2 and one_error(done.stderr), done.stderr
    assert "PERFCALC_NVRTC=" in done.stderr and "libfake.so" in done.stderr


def test_shell_completion_with_a_broken_environment_is_one_line(tmp_path: Path) -> None:
    for extra in ({"COMP_CWORD": "abc", "COMP_WORDS": "perfcalc"}, {"COMP_CWORD": "1"}):
        env = {k: v for k, v in os.environ.items() if k not in ("COMP_WORDS", "COMP_CWORD")}
        env |= {"_PERFCALC_COMPLETE": "complete_bash", **extra}
        done = _run(cwd=tmp_path, env=env)
        assert done.returncode == 2 and one_error(done.stderr), done.stderr
        assert "COMP_CWORD" in done.stderr


def test_install_completion_with_home_a_file_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    # typer reads the shell from the process tree unless told not to; the test names bash so that
    # it does not depend on the shell that started pytest (`sh` is one typer refuses)
    env = dict(os.environ, HOME=str(home), _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    done = _run("--install-completion", "bash", cwd=tmp_path, env=env)
    assert done.returncode == 2 and one_error(done.stderr), done.stderr
    assert home.read_text() == "a file, not a folder"


def test_a_report_replaces_a_planted_link_and_writes_nothing_outside_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "rep"
    folder.mkdir()
    (folder / "index.html").symlink_to(tmp_path / "victim.txt")
    done = _run("report", "--gpu", "h100-sxm", "--no-times", "--output", "rep/", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "victim.txt").exists()
    assert not (folder / "index.html").is_symlink() and "<html" in (folder / "index.html").read_text()


# --- issue 37: what the old adversarial sweep still found ---


def test_index_expressions_that_leave_the_integers_are_one_line(tmp_path: Path) -> None:
    fails_in_subprocess("coalesce", "--index", "(-8)**(1/3)", "--cc", "7.0", cwd=tmp_path, fragments=("complex",))
    fails_in_subprocess("coalesce", "--index", "9" * 4000, "--cc", "7.0", cwd=tmp_path, fragments=("2**63 - 1",))
    fails_in_subprocess("coalesce", "--index", "", "--cc", "7.0", cwd=tmp_path, fragments=("--index ''",))


def test_a_report_folder_name_past_the_file_system_limit_is_one_line(tmp_path: Path) -> None:
    fails_in_subprocess(
        "report", "--gpu", "h100-sxm", "--no-times", "--output", "r" * 5000, cwd=tmp_path, fragments=("255",)
    )
    assert list(tmp_path.iterdir()) == []


def test_library_arguments_of_the_wrong_type_are_perfcalcs_own_errors() -> None:
    import numpy as np
    import pytest

    from perfcalc import InputError, run_kernel
    from perfcalc.model.occupancy import occupancy_grid

    source = "__global__ void k(float* a) { a[0] = 1.0f; }"
    for bad in (None, -1, 1.5, True, [], {}):
        with pytest.raises(InputError, match="source_name"):
            run_kernel(source, "k", 1, 32, {"a": np.zeros(1, np.float32)}, "7.0", source_name=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="empty"):
        occupancy_grid("7.0", 256, registers_per_thread=[])
    with pytest.raises(InputError, match="broadcast"):
        occupancy_grid("7.0", [128, 256], registers_per_thread=[32, 48, 64])


def test_unknown_names_suggest_the_close_known_ones(tmp_path: Path) -> None:
    """Issue 35: `--gpu 4090` listed every product but not the one meant."""
    fails_in_subprocess(
        "occupancy",
        "--gpu",
        "4090",
        "--block",
        "256",
        "--regs",
        "32",
        cwd=tmp_path,
        fragments=("did you mean rtx4090?",),
    )
    fails_in_subprocess("run", "matmul_tild", cwd=tmp_path, fragments=("did you mean matmul_tiled",))


SPIN = """
__global__ void spin(const int* flag, int* out) {
    int i = 0;
    while (flag[0] == 0) { i = i ^ 0; }
    out[threadIdx.x] = i;
}
__global__ void count(int* out, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += i & 3;
    out[threadIdx.x] = s;
}
"""


def test_an_endless_loop_is_recognised_by_its_repeated_state_within_seconds(tmp_path: Path) -> None:
    """Issue 36: a spin on a flag nobody sets ran to the 600 s default; the state after an
    iteration equals the state before it and nothing was written, so it can never end."""
    import numpy as np

    (tmp_path / "spin.cu").write_text(SPIN)
    np.save(tmp_path / "zeros.npy", np.zeros(1, np.int32))
    base = ("run", "--source", "spin.cu", "--grid", "1", "--block", "32", "--engine", "ptx", "--array", "out=int32:32")
    stderr = fails_in_subprocess(
        *base,
        "--kernel",
        "spin",
        "--array",
        "flag=@zeros.npy",
        cwd=tmp_path,
        fragments=("Loop never ends", "spin.cu:4"),
    )
    assert "1025 iterations" in stderr
    # a long loop whose counter changes is not a repeat (20,000 iterations, past the checks at 1,024 and 2,048...)
    done = _run(*base, "--kernel", "count", "-p", "n=20000", "-f", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_an_array_of_another_element_type_than_the_parameter_is_refused_with_both_named(tmp_path: Path) -> None:
    """Issue 36: a float64, big-endian or int32 .npy for a float* was read as float32 bytes."""
    import numpy as np

    (tmp_path / "k.cu").write_text(KERNEL)
    for name, array, fragment in (
        ("f64", np.ones(32), "a float64 array for the float* parameter x, whose elements are float32"),
        ("be", np.ones(32, ">f4"), "not this machine's byte order"),
        ("i32", np.ones(32, np.int32), "a int32 array for the float* parameter x"),
    ):
        np.save(tmp_path / f"{name}.npy", array)
        fails_in_subprocess(
            "run", "--source", "k.cu", "--grid", "1", "--block", "32", "--array", f"x=@{name}.npy", "-p", "n=32",
            "--engine", "ptx", cwd=tmp_path, fragments=(fragment,),
        )  # fmt: skip
    np.save(tmp_path / "f32.npy", np.ones(32, np.float32))
    args = ("--grid", "1", "--block", "32", "--array", "x=@f32.npy", "-p", "n=32", "--engine", "ptx")
    done = _run("run", "--source", "k.cu", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
