"""The PTX engine at every CC from 7.0 to 12.1 (issue 37): the catalog and ten corpus kernels.

NVRTC 13 writes pointer parameters as `.param .u64 .ptr .align N` for compute_100 and newer, and
moves float constants with `mov.b32 %r, 0f...`; before this, every pointer kernel was refused at
CC 10.0 to 12.1. Expected values: the catalog kernels' own NumPy references and the C engine's
counters at the same CC (an independent engine pricing through the same CC's memory rules);
for the corpus kernels, the bytes and counters of the CC 9.0 run, whose outputs equal the H100's
(tests/test_ptx_corpus.py). Every CC here names the same memory families in devices/ (global
`cc7`, shared `cc5`), so their memory counters must equal 9.0's; the test asserts that too, so
a device file that changes a family makes it say so.
"""

from __future__ import annotations

import corpus
import numpy as np
import pytest

from perfcalc.sim.ptx import nvrtc
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch
from perfcalc.specs.counters import COUNTER_NAMES, PTX_ONLY_COUNTER_NAMES
from perfcalc.specs.kernels import catalog

pytestmark = [
    pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed"),
    pytest.mark.usefixtures("ptx_cache"),
]
CCS = ["7.0", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1"]
CORPUS_TEN = [
    "vec_add",
    "float4_copy",
    "matmul_template",
    "functor_affine",
    "stencil_3d",
    "transpose_padded",
    "reduce_shfl",
    "histogram_shared",
    "atomics_int",
    "struct_by_value",
]
MEMORY_COUNTERS = [n for n in COUNTER_NAMES if any(w in n for w in ("global", "shared", "sector", "wavefront"))]


def _outputs(run) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    return {k: v.tobytes() for k, v in run.items()}


@pytest.mark.parametrize("name", sorted(catalog()))
@pytest.mark.parametrize("cc", CCS)
def test_catalog_kernel_at_every_cc(name, cc):
    spec = catalog()[name]
    arch = get_arch(cc)
    assert (arch.global_memory_family, arch.shared_memory_family) == ("cc7", "cc5")
    src = run_catalog_kernel(spec, None, arch, engine="source")
    out = run_catalog_kernel(spec, None, arch, engine="ptx")
    assert out.result_check is not None and out.result_check.passed, out.result_check
    assert out.result.engine == "ptx"
    differ = {
        n
        for n in COUNTER_NAMES
        if n not in PTX_ONLY_COUNTER_NAMES and getattr(src.result.counters, n) != getattr(out.result.counters, n)
    }
    assert differ <= {counter for counter, _why in spec.engines_differ}, {
        n: (getattr(src.result.counters, n), getattr(out.result.counters, n)) for n in differ
    }


@pytest.fixture(scope="module")
def at_90():
    return {name: corpus.run_on_ptx_engine(name, corpus.manifest()[name], "9.0") for name in CORPUS_TEN}


@pytest.mark.parametrize("name", CORPUS_TEN)
@pytest.mark.parametrize("cc", [c for c in CCS if c != "9.0"])
def test_corpus_kernel_at_every_cc(name, cc, at_90):
    entry = corpus.manifest()[name]
    result, args = corpus.run_on_ptx_engine(name, entry, cc)
    ref_result, ref_args = at_90[name]
    assert not result.faults
    got, want = corpus.written_arrays(entry, args), corpus.written_arrays(entry, ref_args)
    for arg in want:
        if arg in entry.get("unordered", []):
            np.testing.assert_allclose(got[arg], want[arg], rtol=1e-5)
        else:
            assert got[arg].tobytes() == want[arg].tobytes(), arg
    for counter in MEMORY_COUNTERS:
        assert getattr(result.counters, counter) == getattr(ref_result.counters, counter), counter
