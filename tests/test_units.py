"""Numbers with units for the terminal and figures (#12): engineering prefixes, 4 digits."""

import pytest

from perfcalc.units import giga_rate, seconds


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (15667.2, "B/s", "15.67 TB/s"),  # V100's shared-memory ceiling, was '1.567e+04 GB/s'
        (900, "B/s", "900 GB/s"),
        (66908.2, "FLOPS", "66.91 TFLOPS"),
        (345.6, "FLOPS", "345.6 GFLOPS"),
        (0.5, "FLOPS", "500 MFLOPS"),
        (1.5e6, "FLOPS", "1500 TFLOPS"),
    ],
)
def test_giga_rate(value, unit, text):
    assert giga_rate(value, unit) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(9.709e-05, "97.09 µs"), (0.007935, "7.935 ms"), (2.5, "2.5 s"), (3.2e-9, "3.2 ns"), (1234.5, "1234 s")],
)
def test_seconds(value, text):
    assert seconds(value) == text


def test_counts_take_a_prefix_from_ten_thousand():
    """run --plot's cells: 4 digits as everywhere, a prefix only where the digits would not fit."""
    from perfcalc.units import count

    assert [count(v) for v in (2.5, 512, 9999, 15872, 1048576, 3.2e9)] == [
        "2.5",
        "512",
        "9999",
        "15.87k",
        "1.049M",
        "3.2G",
    ]
