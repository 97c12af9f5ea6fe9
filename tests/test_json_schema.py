"""Every command's --format json follows its shipped JSON Schema (#11).

The schemas are generated from the result dataclasses (perfcalc/report/json_schema.py) and
shipped in perfcalc/schemas/; these tests check that the shipped files are the generated ones,
that each command form's JSON validates against the shipped file, and that the schemas reject
what the one vocabulary forbids (so a passing validation means something).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from test_output_tables import COMMANDS
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.report import json_schema

runner = CliRunner()

# Forms beyond the output-table test's: a single occupancy, a suggestion with a product, one CC's
# access costs, the PTX engine with the time model, a user's .cu file, a simulated matmul.
MORE_FORMS = [
    ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"],
    ["occupancy", "--cc", "9.0", "--regs", "40", "--suggest", "--gpu", "h100-sxm"],
    # several products: one row per GPU (issue 35)
    ["occupancy", "--gpu", "h100-sxm", "--gpu", "b200", "--block", "256", "--regs", "64", "--grid", "1000"],
    ["coalesce", "--cc", "9.0", "--stride", "1"],
    ["banks", "--cc", "7.0", "--pattern", "tile-column", "--tile-width", "32", "--pad", "1"],
    ["run", "copy_offset", "-p", "n=4096", "--gpu", "h100-sxm", "--engine", "ptx"],
    # several products: one run document per product (did not validate before issue 35's fix)
    ["run", "copy_offset", "-p", "n=4096", "--gpu", "h100-sxm", "--gpu", "a100"],
    [
        "run",
        "--source",
        "tests/data/cuda/reduce_fixed.cu",
        "--kernel",
        "reduceSeed",
        "--grid",
        "4",
        "--block",
        "128",
        "--dynamic-shared",
        "1024",
        "--array",
        "input=float32:1024",
        "--array",
        "output=float32:4",
    ],
    ["matmul", "--width", "64", "--gpu", "v100"],
    # several products in one roofline: every table's rows with their gpu
    ["roofline", "--gpu", "v100", "--gpu", "h100-sxm", "-k", "matmul_tiled", "-p", "Width=64", "-i", "2"],
    # a whole program: counted only, timed on a product, and on two products (one report each)
    ["app", "tests/data/cuda_app/vector_add.cu", "--", "500"],
    ["app", "tests/data/cuda_app/vector_add.cu", "--gpu", "h100-sxm", "--", "500"],
    ["app", "tests/data/cuda_app/cooperative.cu", "--gpu", "h100-sxm", "--gpu", "a100"],
]
FORMS = [argv for argv, _tables in COMMANDS] + MORE_FORMS


def _form(argv: list[str]) -> Any:
    """`app` builds the program: it needs nvcc (the cuda extra) and a host C++ compiler."""
    from perfcalc.sim.ptx import toolchain

    needs = argv[0] == "app" and toolchain.route("auto") is None
    return pytest.param(argv, marks=pytest.mark.skipif(needs, reason="needs nvcc (cuda extra) and a host C++ compiler"))


def _json(argv: list[str]) -> dict:
    at = argv.index("--") if "--" in argv else len(argv)  # after `--` come the program's own arguments
    result = runner.invoke(app, [*argv[:at], "--format", "json", *argv[at:]])
    assert result.exit_code == 0, (argv, result.stderr)
    return json.loads(result.stdout)


def _validator(command: str) -> jsonschema.Draft202012Validator:
    schema = json_schema.shipped_schema(command)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_shipped_schemas_are_the_generated_ones():
    """`python -m perfcalc.report.json_schema --write` was run after the last dataclass change."""
    for command in json_schema.COMMANDS:
        shipped = (json_schema.SCHEMA_DIR / f"{command}.schema.json").read_text()
        assert shipped == json_schema.schema_text(command), f"{command}: regenerate the shipped schema"


@pytest.mark.parametrize("argv", [_form(argv) for argv in FORMS], ids=lambda argv: " ".join(argv[:3]))
def test_every_command_json_validates_against_its_shipped_schema(argv):
    doc = _json(argv)
    errors = list(_validator(argv[0]).iter_errors(doc))
    assert not errors, jsonschema.exceptions.best_match(errors)


def test_every_command_with_json_has_a_schema_and_a_form_here():
    assert {argv[0] for argv in FORMS} == set(json_schema.COMMANDS)


@pytest.mark.parametrize(
    ("argv", "mutate", "why"),
    [
        # the older name of a key (one name per concept: `cc`)
        (["devices", "show", "9.0"], lambda d: d.update(compute_capability=d.pop("cc")), "compute_capability"),
        # a fraction written as a percentage string
        (["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"], lambda d: d.update(occupancy="75 %"), "75 %"),
        # "unlimited" as the header's INT_MAX is allowed by the integer type, but a word not in the
        # vocabulary is not, anywhere in a nested object
        (
            ["run", "copy_offset", "-p", "n=4096"],
            lambda d: d["launch"].update(dynamic_shared_bytes=0),
            "dynamic_shared",
        ),
        # kernel parameters as a list of pairs instead of {name: value}
        (["kernels", "matmul_tiled"], lambda d: d.update(params=[["Width", 64]]), "Width"),
    ],
)
def test_the_schema_rejects_what_the_vocabulary_forbids(argv, mutate, why):
    doc = _json(argv)
    assert not list(_validator(argv[0]).iter_errors(doc))
    mutate(doc)
    errors = list(_validator(argv[0]).iter_errors(doc))
    assert errors and why in str(jsonschema.exceptions.best_match(errors).instance) + str(errors)


def test_schema_command_prints_the_shipped_file(tmp_path):
    result = runner.invoke(app, ["schema", "roofline"])
    assert result.exit_code == 0 and json.loads(result.stdout) == json_schema.shipped_schema("roofline")
    assert runner.invoke(app, ["schema", "run", "-o", str(tmp_path / "r.json")]).exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text())["title"] == "perfcalc run --format json"
    bad = runner.invoke(app, ["schema", "report"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: no JSON Schema for 'report'")
