"""Kernel names as c++filt prints them (issue #11): a maintained demangler, the built-in as fallback.

tests/data/demangle/c++filt.tsv holds the .entry names NVCC 13 gives the kernels of
kernel_names.cu (written here: templates with T_ parameters, a lambda, a function pointer, an
array parameter, a struct in a namespace, Thrust's and CUB's kernels) beside GNU c++filt's
answer for each, recorded with the command in its first line.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfcalc.specs import demangle as demangle_module
from perfcalc.specs.demangle import demangle, demangler_used, why_mangled
from perfcalc.specs.demangle_fallback import demangle_builtin

RECORDED = Path(__file__).parent / "data" / "demangle" / "c++filt.tsv"


def recorded() -> list[tuple[str, str]]:
    lines = RECORDED.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if not line.startswith("#")]  # type: ignore[misc]


def test_the_recorded_names_cover_what_the_built_in_demangler_missed():
    """The issue's classes: T_ templates, Thrust, lambdas, function pointers, arrays."""
    names = dict(recorded())
    assert len(names) == 15
    assert names["_Z5scaleIfLi128EEvPKT_PS0_i"] == "void scale<float, 128>(float const*, float*, int)"
    assert names["_Z11via_pointerPFffEPf"] == "via_pointer(float (*)(float), float*)"
    assert names["_Z4rowsPA16_fi"] == "rows(float (*) [16], int)"
    assert "main::{lambda(float)#1}" in names["_Z5applyIZ4mainEUlfE_EvT_Pf"]
    assert sum("thrust::" in text for text in names.values()) == 4
    assert sum(demangle_builtin(m) == text for m, text in names.items()) < len(names)  # why a maintained one


@pytest.mark.parametrize(("mangled", "expected"), recorded())
def test_every_name_demangles_as_cplusplus_filt_does(mangled, expected):
    assert demangle(mangled) == expected, demangler_used()
    assert why_mangled(mangled) is None


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="no c++filt on PATH to compare with live")
def test_agrees_with_the_c_plus_plus_filt_on_this_machine():
    for mangled, _ in recorded():
        live = subprocess.run(["c++filt", mangled], capture_output=True, text=True, check=True).stdout.strip()
        assert demangle(mangled) == live


def test_names_that_are_not_cplusplus_stay_as_they_are():
    assert demangle("plain_c_kernel") is None and why_mangled("plain_c_kernel") is None
    assert demangle("_Znot a name") is None
    assert why_mangled("_Znot a name") == "not a valid Itanium C++ ABI name"


def test_without_a_maintained_demangler_the_fallback_answers_and_says_when_it_gives_up(monkeypatch):
    monkeypatch.setattr(demangle_module, "_demangler", lambda: None)
    demangle_module._demangle.cache_clear()
    try:
        assert demangle("_Z15MatrixMulKernelPfS_S_i") == "MatrixMulKernel(float*, float*, float*, int)"
        assert demangle("_Z5applyIZ4mainEUlfE_EvT_Pf") is None
        assert "built-in demangler does not cover it" in why_mangled("_Z5applyIZ4mainEUlfE_EvT_Pf")
    finally:
        demangle_module._demangle.cache_clear()
