"""Fixed choices are enums (shown in --help, completed, checked by typer), and each enum offers
exactly what the library accepts (#11); `-p` means --param wherever it exists."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app, choices
from perfcalc.memory.inputs import OPS
from perfcalc.memory.patterns import PATTERNS
from perfcalc.model.occupancy_inputs import CACHE_CONFIGS
from perfcalc.sim.engine import ENGINES
from perfcalc.specs import get_arch

runner = CliRunner()


def _help_line(command: list[str], option: str) -> str:
    """The option's line of the command's --help, in click's plain layout (what `perfcalc` prints:
    perfcalc.cli turns typer's rich help off) or rich's boxed one (typer imported first, before
    perfcalc.cli could say so: the order a test process happens to import them in)."""
    text = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "250"}).stdout
    option_first = re.compile(rf"^[│\s]*(-\w, )?{re.escape(option)}\s")
    return next(line for line in text.splitlines() if option_first.match(line))


def _values(enum) -> set[str]:
    return {m.value for m in enum}


def test_each_enum_is_the_librarys_own_list():
    assert _values(choices.AccessPattern) == set(PATTERNS)
    assert _values(choices.AccessOp) == set(OPS)
    assert _values(choices.CacheConfig) == set(CACHE_CONFIGS)
    assert _values(choices.RunEngine) == set(ENGINES)
    assert _values(choices.MatmulEngine) == set(ENGINES) | {"both"}
    # the two caching modes of CC 2.x/3.x global loads (devices/cc_2_0.yaml's family)
    assert _values(choices.GlobalCache) == set(get_arch("2.0").global_family.cache_modes)


@pytest.mark.parametrize(
    ("command", "option", "shown"),
    [
        (["coalesce"], "--pattern", "tile-column"),
        (["banks"], "--op", "load|store"),
        (["coalesce"], "--cache", "l1|l2"),
        (["occupancy"], "--sweep", "block|regs|smem|all"),
        (["occupancy"], "--cache-config", "prefer-shared"),
        (["run"], "--engine", "source|ptx|auto"),
        (["matmul"], "--engine", "both"),
    ],
)
def test_help_lists_the_choices(command, option, shown):
    line = _help_line(command, option)
    assert shown in line, line


def test_choices_are_case_insensitive_and_checked():
    ok = runner.invoke(app, ["coalesce", "--cc", "9.0", "--pattern", "Reversed", "--op", "STORE", "-f", "json"])
    assert ok.exit_code == 0 and '"op": "store"' in ok.stdout and '"name": "reversed"' in ok.stdout
    bad = runner.invoke(app, ["occupancy", "--cc", "2.0", "--block", "256", "--regs", "20", "--cache-config", "l1"])
    assert bad.exit_code == 2
    assert bad.stderr == (
        "error: Invalid value for '--cache-config': 'l1' is not one of "
        "'none', 'prefer-shared', 'prefer-l1', 'prefer-equal'.\n"
    )


def test_p_means_param_only():
    """`-p` was --pattern in coalesce/banks but --param in run/roofline."""
    for command in (["coalesce"], ["banks"]):
        result = runner.invoke(app, [*command, "-p", "stride"])
        assert result.exit_code == 2 and result.stderr == "error: No such option: -p\n"
    for command in (["run"], ["roofline"]):
        line = _help_line(command, "--param")
        assert re.search(r"(^|[\s│])-p[,\s]", line), line


def test_the_shell_completes_commands_and_choices():
    """Typer's completion is on (`perfcalc --install-completion`); what bash would get:"""
    import os
    import subprocess
    import sys

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_PERFCALC_COMPLETE": "complete_bash", "COMP_WORDS": words}
        env["COMP_CWORD"] = str(len(words.split()) - (0 if words.endswith(" ") else 1))
        done = subprocess.run([sys.executable, "-m", "perfcalc"], env=env, capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert complete("perfcalc occ") == ["occupancy"]
    assert complete("perfcalc coalesce --pattern t") == ["tile-row", "tile-column"]
    assert complete("perfcalc occupancy --sweep ") == ["block", "regs", "smem", "all"]


def test_one_default_device():
    """README "Which device": with neither --cc nor --gpu, the H100 SXM (its CC, 9.0, where a
    command needs only a CC's rules); coalesce and banks compare every family instead."""
    from perfcalc.defaults import DEFAULT_CC, DEFAULT_GPU
    from perfcalc.specs import get_gpu

    assert get_gpu(DEFAULT_GPU).cc == DEFAULT_CC == "9.0"

    def out(*argv: str) -> str:
        result = runner.invoke(app, [*argv, "-f", "json"])
        assert result.exit_code == 0, result.stderr
        return result.stdout

    same = [
        (["occupancy", "--block", "256", "--regs", "32"], ["--cc", "9.0"]),
        (["run", "copy_offset", "-p", "n=1024"], ["--cc", "9.0"]),
        (["matmul", "--width", "64", "--no-simulate"], ["--gpu", "h100-sxm"]),
        (["roofline", "--intensity", "2"], ["--gpu", "h100-sxm"]),
    ]
    for argv, named in same:
        assert out(*argv) == out(*argv, *named), argv
    assert '"ccs": "1.0-1.1"' in out("coalesce")  # every family, from the first


def test_gpu_brings_its_cc_in_coalesce_and_banks():
    for command in ("coalesce", "banks"):
        by_gpu = runner.invoke(app, [command, "--gpu", "v100", "-f", "json"]).stdout
        assert by_gpu == runner.invoke(app, [command, "--cc", "7.0", "-f", "json"]).stdout
        clash = runner.invoke(app, [command, "--gpu", "v100", "--cc", "9.0"])
        assert clash.exit_code == 2 and "--gpu v100 is CC 7.0" in clash.stderr


def test_a_run_builds_only_the_command_it_names(monkeypatch):
    """perfcalc.cli.main converts only the invoked command to click (typer converts all ten at
    each start otherwise); root help, an unknown name and shell completion still see them all."""
    from perfcalc.cli import invoked_command

    assert invoked_command(["--wide", "occupancy", "--cc", "7.0"]) == "occupancy"
    assert invoked_command(["roofline", "--gpu", "v100"]) == "roofline"
    assert invoked_command(["--help"]) is None
    assert invoked_command(["ocupancy"]) is None  # click's "Did you mean 'occupancy'?" needs every name
    monkeypatch.setenv("_PERFCALC_COMPLETE", "bash_complete")
    assert invoked_command(["occupancy"]) is None
