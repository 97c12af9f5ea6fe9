"""The kernel catalog: exact-key loading, the seeds' kernels verbatim, parameters, launch rules,
inputs and NumPy references (no simulation here; see test_catalog_counts.py)."""

import functools
import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from perfcalc.errors import InputError, SpecError
from perfcalc.sim import references
from perfcalc.specs.kernels import (
    catalog,
    get_kernel,
    launch_geometry,
    load_kernel_file,
    resolve_params,
)

SEEDS = Path("/work/shared/seeds")
ROOT = Path(__file__).resolve().parents[1]
ISSUE_KERNELS = {  # issue #4 item 5: names and parameter names exactly as given
    "matmul_naive": {"Width", "TILE_WIDTH"},
    "matmul_tiled": {"Width", "TILE_WIDTH"},
    "reduce_interleaved": {"n", "block"},
    "reduce_sequential": {"n", "block"},
    "convolve": {"n"},
    "transpose_naive": {"n"},
    "transpose_shared": {"n"},
    "transpose_padded": {"n"},
    "copy_stride": {"n", "stride", "block"},
    "copy_offset": {"n", "offset", "block"},
    "aos_struct": {"n"},
    "soa_struct": {"n"},
    "aos_float3": {"n"},
}


def _code_lines(text: str) -> list[str]:
    """Non-blank, non-comment code lines with whitespace squeezed (for verbatim comparisons)."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"//.*", "", line).strip()
        if line:
            out.append(" ".join(line.split()))
    return out


def test_catalog_has_the_issue_kernels_with_their_parameter_names():
    """Issue #4 item 5 lists thirteen kernels and their parameter names."""
    specs = catalog()
    assert set(specs) == set(ISSUE_KERNELS)
    for name, params in ISSUE_KERNELS.items():
        assert set(specs[name].defaults) == params, name


def test_every_reference_function_exists():
    for spec in catalog().values():
        assert callable(references.reference(spec.reference)), spec.name


@pytest.mark.parametrize("name", ["matmul_naive", "matmul_tiled"])
def test_matmul_sources_are_the_seed_text(name):
    """The matmul kernels are seed 000's text line for line (comments aside; the tiled kernel's
    comment that the PDF extraction wrapped is rejoined, so comments are not compared)."""
    seed = (SEEDS / "000_04499d2867861829.txt").read_text()
    blocks = re.findall(r"```\n(.*?)```", seed, re.S)
    seed_code = [_code_lines(b) for b in blocks]
    ours = _code_lines(get_kernel(name).source)
    if name == "matmul_naive":
        assert ours in seed_code
    else:
        # seed 000 splits the tiled kernel over two code blocks; the wrapped comment leaves the
        # stray words 'shared memory' on their own line in the second block
        head = next(c for c in seed_code if "__shared__ float Mds[TILE_WIDTH][TILE_WIDTH];" in c)
        tail = next(c for c in seed_code if any("Nds[ty][tx] = Nd[" in line for line in c))
        tail = [line for line in tail if line != "shared memory"]
        assert ours == head + tail


def test_reduction_loops_are_seed_003s():
    """The interleaved loop is seed 003's verbatim; the sequential one is its corrected form."""
    seed = (SEEDS / "003_b272894a175a5c2d.txt").read_text()
    assert "for (unsigned int stride = 1; stride < blockDim.x; stride *= 2)" in seed
    assert "for (unsigned int stride = 1; stride < blockDim.x; stride *= 2)" in get_kernel("reduce_interleaved").source
    assert "if (t % (2*stride) == 0)" in get_kernel("reduce_interleaved").source
    assert "stride > 1; stride >> 1)" in seed  # the seed's endless loop
    fixed = get_kernel("reduce_sequential").source
    assert "for (unsigned int stride = blockDim.x/2; stride > 0; stride >>= 1)" in fixed
    assert "if (t < stride)" in fixed


def test_convolve_keeps_seed_001s_body():
    """Seed 001's convolve statements are all still there (bounds guards added around them)."""
    src = get_kernel("convolve").source
    for text in (
        "#define THREADS_PER_BLK 128",
        "__shared__ float support[THREADS_PER_BLK+2];",
        "support[threadIdx.x] = input[index];",
        "result += support[threadIdx.x + i];",
        "output[index] = result / 3.f;",
        "= input[index+THREADS_PER_BLK];",
    ):
        assert text in src


def test_seed_000_launch_geometry():
    """Seed 000: 'A 1024 * 1024 Pd gives 64 * 64 = 4096 Thread Blocks' of 16 x 16 threads."""
    spec = get_kernel("matmul_tiled")
    grid, block, dyn = launch_geometry(spec, resolve_params(spec, {"Width": 1024, "TILE_WIDTH": 16}))
    assert grid == (64, 64) and block == (16, 16) and dyn == 0


def test_geometry_of_the_other_kernels():
    """Hand-computed: reductions ceil(n/block) blocks with block*4 bytes of dynamic shared memory;
    convolve ceil(n/128) blocks of THREADS_PER_BLK = 128 (seed 001); transposes (n/32)^2 blocks
    of 32 x 32."""
    red = get_kernel("reduce_sequential")
    assert launch_geometry(red, resolve_params(red, {"n": 1000, "block": 128})) == (
        (8,),
        (128,),
        512,
    )
    conv = get_kernel("convolve")
    assert launch_geometry(conv, resolve_params(conv, {"n": 1000})) == ((8,), (128,), 0)
    tr = get_kernel("transpose_padded")
    assert launch_geometry(tr, resolve_params(tr, {"n": 96})) == ((3, 3), (32, 32), 0)


def test_model_sites_find_their_lines():
    """Each site's 'at' text locates the access's line: naive matmul loads on line 10 of the
    seed kernel, the store on line 11."""
    sites = get_kernel("matmul_naive").model.sites
    assert [(s.array, s.op, s.line) for s in sites] == [
        ("Md", "load", 10),
        ("Nd", "load", 10),
        ("Pd", "store", 11),
    ]
    src_lines = get_kernel("matmul_naive").source.splitlines()
    assert "Md[Row*Width+k]" in src_lines[9]


def test_unknown_parameter_and_failed_requirement_are_input_errors():
    spec = get_kernel("matmul_tiled")
    with pytest.raises(InputError, match="has no parameter 'width'.*Width, TILE_WIDTH"):
        resolve_params(spec, {"width": 64})
    with pytest.raises(
        InputError,
        match=r"Width=100, TILE_WIDTH=16: Width must be a multiple of "
        r"TILE_WIDTH.*requires 'Width % TILE_WIDTH == 0'",
    ):
        resolve_params(spec, {"Width": 100})
    with pytest.raises(InputError, match="must be an integer"):
        resolve_params(spec, {"Width": 64.5})
    with pytest.raises(InputError, match="unknown kernel 'nope'"):
        get_kernel("nope")


@functools.cache
def _copy_offset_entry() -> str:
    data = yaml.safe_load((ROOT / "kernels.yaml").read_text())
    return json.dumps(data["kernels"]["copy_offset"])


def _user_file(tmp_path, mutate):
    data = {"schema_version": 1, "kernels": {"copy_offset": json.loads(_copy_offset_entry())}}
    mutate(data["kernels"]["copy_offset"])
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_user_catalog_with_the_older_launch_key_still_loads(tmp_path):
    """Catalogs written before #11's one vocabulary say `dynamic_shared_bytes:`."""
    older = load_kernel_file(
        _user_file(
            tmp_path, lambda k: k["launch"].update(dynamic_shared_bytes=k["launch"].pop("dynamic_shared_memory_bytes"))
        )
    )
    assert older["copy_offset"].launch == catalog()["copy_offset"].launch


def test_user_catalog_file_gets_the_same_validation(tmp_path):
    ok = load_kernel_file(_user_file(tmp_path, lambda k: None))
    assert list(ok) == ["copy_offset"]
    cases = [
        (lambda k: k.update(colour="red"), "unknown key 'colour'"),
        (lambda k: k.pop("reference"), "missing key 'reference'"),
        (
            lambda k: k["model"]["sites"][0].update(at="in[i - offset]"),
            "does not occur in the source",
        ),
        (lambda k: k["model"].update(flops="n +"), "cannot parse expression"),
        (lambda k: k["model"].update(flops="m * 2"), "unknown name 'm'"),
        (lambda k: k["model"]["sites"][0].update(array="inp"), "is not a pointer argument"),
        (lambda k: k["args"][0].update(dtype="half"), "dtype must be one of"),
        (lambda k: k["launch"].update(grid=[]), "list of 1 to 3 expressions"),
        (lambda k: k.update(kernel="copy"), "no '__global__ void copy('"),
        (
            lambda k: k["model"]["sites"][0]["classes"][0].update(index="__import__('os')"),
            "only calls of",
        ),
    ]
    for mutate, message in cases:
        with pytest.raises(SpecError, match=re.escape(message)):
            load_kernel_file(_user_file(tmp_path, mutate))


def test_inputs_are_seeded_never_zero_and_outputs_start_unwritten():
    """Catalog rule: floats in [0.5, 1.5), ints in [1, 100], same seed -> same data; outputs NaN."""
    spec = get_kernel("aos_struct")
    params = resolve_params(spec, {"n": 100})
    a, b = references.make_args(spec, params), references.make_args(spec, params)
    assert a["in"].dtype.itemsize == 16  # {int index; double value;}: 4 + 4 padding + 8
    np.testing.assert_array_equal(a["in"]["value"], b["in"]["value"])
    assert a["in"]["index"].min() >= 1 and a["in"]["index"].max() <= 100
    assert a["in"]["value"].min() >= 0.5 and a["in"]["value"].max() < 1.5
    assert np.isnan(a["out"]).all() and a["n"] == 100
    f3 = references.make_args(get_kernel("aos_float3"), {"n": 10})["in"]
    assert f3.dtype.itemsize == 12 and f3.dtype.names == ("x", "y", "z")


def test_references_on_small_hand_examples():
    """Hand-computed results of each reference function."""
    two = {"Md": np.array([1, 2, 3, 4], np.float32), "Nd": np.array([5, 6, 7, 8], np.float32)}
    np.testing.assert_array_equal(references.matmul(two, {"Width": 2})["Pd"], [19, 22, 43, 50])
    np.testing.assert_array_equal(
        references.block_sums({"in": np.arange(1, 6, dtype=np.float32)}, {"n": 5, "block": 2})["out"],
        [3, 7, 5],
    )
    np.testing.assert_allclose(
        references.convolve3({"input": np.array([3, 6, 9, 12], np.float32)}, {"n": 2})["output"],
        [6, 9],
    )
    np.testing.assert_array_equal(
        references.transpose({"idata": np.arange(4, dtype=np.float32)}, {"n": 2})["odata"],
        [0, 2, 1, 3],
    )
    np.testing.assert_array_equal(
        references.gather_stride({"in": np.arange(6, dtype=np.float32)}, {"n": 3, "stride": 2})["out"],
        [0, 2, 4],
    )
    np.testing.assert_array_equal(
        references.gather_offset({"in": np.arange(6, dtype=np.float32)}, {"n": 3, "offset": 2})["out"],
        [2, 3, 4],
    )


def test_result_check_flags_unwritten_and_wrong_elements():
    spec = get_kernel("copy_offset")
    want = {"out": np.array([1.0, 2.0, 4.0], np.float32)}
    ok = references.check_result(spec, {"out": want["out"].copy()}, want)
    assert ok.passed and ok.max_rel_error == 0.0
    bad = references.check_result(spec, {"out": np.array([1.0, 2.0, 5.0], np.float32)}, want)
    assert not bad.passed and bad.max_rel_error == pytest.approx(0.25) and bad.worst == "out[2]"
    hole = references.check_result(spec, {"out": np.array([1.0, np.nan, 4.0], np.float32)}, want)
    assert hole.passed is False and hole.max_rel_error is None and hole.unwritten == 1


def test_array_option_parsing():
    parse = references.parse_array_option
    assert parse("A=float32:1024") == references.UserArray("A", "float32", 1024)
    assert parse("h=float16:8") == references.UserArray("h", "float16", 8)
    assert parse("r=bytes16:4") == references.UserArray("r", "bytes16", 4)
    assert parse("g=@graph.npy") == references.UserArray("g", path="graph.npy")
    # CUDA's own spelling is accepted too: cuda_fp16.h's `half` is the 16-bit IEEE float.
    assert parse("h=half:8") == references.UserArray("h", "float16", 8)
    for bad in ("A=float32", "A=halves:4", "A=float32:0", "1A=float32:4", "A=bytes0:4", "A=bytes5000:1"):
        with pytest.raises(InputError):
            parse(bad)


def test_user_arrays_every_type_and_npy(tmp_path):
    """specs/types.py's element types (float16, bool, 8/16/64-bit, vectors such as double2 with
    vector_types.h's layout), opaque records and a user's .npy file, byte for byte."""
    parse = references.parse_array_option
    mine = np.arange(10, dtype=np.int16)
    np.save(tmp_path / "mine.npy", mine)
    specs = [
        parse(t)
        for t in (
            "h=float16:5",
            "b=bool:5",
            "c=int8:5",
            "q=uint64:5",
            "d=double2:3",
            "r=bytes12:2",
            f"m=@{tmp_path / 'mine.npy'}",
        )
    ]
    arrays = references.make_user_arrays(specs)
    assert arrays["h"].dtype == np.float16 and arrays["b"].dtype == np.bool_
    assert arrays["c"].dtype == np.int8 and arrays["q"].dtype == np.uint64
    assert arrays["d"].dtype.itemsize == 16 and arrays["d"].size == 3
    assert arrays["r"].dtype.itemsize == 12 and arrays["r"].size == 2
    assert np.frombuffer(arrays["r"].tobytes(), np.uint8).min() >= 1  # never zero
    np.testing.assert_array_equal(arrays["m"], mine)
    np.save(tmp_path / "grid.npy", np.zeros((2, 2)))
    for text, message in (
        (f"m=@{tmp_path / 'missing.npy'}", "(?i)no such file"),
        (f"m=@{tmp_path / 'grid.npy'}", "one non-empty dimension"),
    ):
        with pytest.raises(InputError, match=message):
            references.make_user_arrays([parse(text)])
