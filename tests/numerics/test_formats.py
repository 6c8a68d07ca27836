"""The format table: sizes other modules rely on, and the value ranges of ptx.md §7."""

from __future__ import annotations

from fractions import Fraction

import pytest

import numpy as np

from compiler.numerics import (
    ELEMENT_FORMATS,
    FORMATS,
    IQ4NL_KVALUES,
    MXFP4_KVALUES,
    SCALE_GROUP,
    FormatKind,
    decode,
    format_info,
)


@pytest.mark.parametrize(
    ("name", "values", "nbytes", "bits_per_value"),
    [
        ("q4_K", 256, 144, Fraction(9, 2)),
        ("q8_0", 32, 34, Fraction(17, 2)),
        ("q8_1", 32, 36, Fraction(9)),
        ("q8_1_mmq", 128, 144, Fraction(9)),
        ("q4_0", 32, 18, Fraction(9, 2)),
        ("q4_1", 32, 20, Fraction(5)),
        ("q5_0", 32, 22, Fraction(11, 2)),
        ("q5_1", 32, 24, Fraction(6)),
        ("mxfp4", 32, 17, Fraction(17, 4)),
        ("iq4_nl", 32, 18, Fraction(9, 2)),
        ("iq4_xs", 256, 136, Fraction(17, 4)),
    ],
)
def test_block_sizes_match_ggml_structs(name: str, values: int, nbytes: int, bits_per_value: Fraction) -> None:
    info = format_info(name)
    assert info.kind is FormatKind.BLOCK
    assert (info.block_values, info.block_bytes) == (values, nbytes)
    assert info.storage_bits_per_value == bits_per_value


@pytest.mark.parametrize(
    ("name", "bits", "container_bits", "max_finite", "min_positive"),
    [
        ("e2m1", 4, 4, 6.0, 0.5),
        ("e2m3", 6, 8, 7.5, 0.125),
        ("e3m2", 6, 8, 28.0, 0.0625),
        ("e4m3", 8, 8, 448.0, 2.0**-9),
        ("e5m2", 8, 8, 57344.0, 2.0**-16),
        ("ue8m0", 8, 8, 2.0**127, 2.0**-127),
        ("ue4m3", 7, 8, 448.0, 2.0**-9),
        ("bf16", 16, 16, (2 - 2.0**-7) * 2.0**127, 2.0**-133),
        ("fp16", 16, 16, 65504.0, 2.0**-24),
    ],
)
def test_float_formats(name: str, bits: int, container_bits: int, max_finite: float, min_positive: float) -> None:
    info = format_info(name)
    assert info.coding is not None
    assert (info.bits, info.container_bits, info.coding.bits) == (bits, container_bits, bits)
    assert info.coding.max_finite == max_finite
    assert info.coding.min_positive == min_positive


def test_nan_codes() -> None:
    codes = {name: info.coding.nan_code for name, info in FORMATS.items() if info.coding is not None}
    assert codes == {
        "e2m1": None, "e2m3": None, "e3m2": None, "e4m3": 0x7F, "e5m2": 0x7E,
        "ue8m0": 0xFF, "ue4m3": 0x7F, "bf16": 0x7FC0, "fp16": 0x7E00,
    }


def test_element_formats_and_scale_groups() -> None:
    assert set(ELEMENT_FORMATS) <= set(FORMATS)
    assert dict(SCALE_GROUP) == {"ue8m0": 32, "ue4m3": 16}
    assert format_info("i8").kind is FormatKind.INTEGER


def test_min_term_formats() -> None:
    """The blocks whose values carry an offset per 32 (−dmin · m for the K-quants, + m for the ``_1`` ones)."""
    assert {name for name, info in FORMATS.items() if info.min_term} == {"q4_K", "q5_K", "q4_1", "q5_1"}


def test_mxfp4_kvalues_are_doubled_e2m1() -> None:
    """ggml's kvalues_mxfp4 is code c's e2m1 value times two (e2m1's -0, code 8, is 0), so a block's value
    kvalue * 2^(e - 128) is the MX value e2m1(c) * 2^(e - 127) of the same code and ue8m0 scale."""
    info = format_info("mxfp4")
    assert (info.bits, info.container_bits, info.min_term, info.coding) == (4, 4, False, None)
    doubled = 2 * decode("e2m1", np.arange(16, dtype=np.uint8))
    assert list(MXFP4_KVALUES) == doubled.tolist() == [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12]


def test_iq4nl_kvalues_are_a_sorted_int8_grid() -> None:
    """ggml's kvalues_iq4nl: 16 distinct int8 levels in increasing order (its ``best_index_int8`` bisects
    them), denser near 0 and without 0 itself; iq4_nl and iq4_xs share them."""
    assert IQ4NL_KVALUES == (-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113)
    assert list(IQ4NL_KVALUES) == sorted(set(IQ4NL_KVALUES)) and 0 not in IQ4NL_KVALUES
    gaps = np.diff(IQ4NL_KVALUES)
    assert gaps[7] == 11 and gaps.max() == 24 and gaps.min() == 11
    for name in ("iq4_nl", "iq4_xs"):
        assert (format_info(name).bits, format_info(name).min_term) == (4, False)


def test_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown format 'iq2_xxs'.*known formats: e2m1"):
        format_info("iq2_xxs")


def test_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        FORMATS["e9m9"] = FORMATS["e4m3"]  # type: ignore[index]


def test_numerics_reexports_the_one_table() -> None:
    """``compiler.numerics`` names the table of compiler/format_table.py; it keeps no copy."""
    import compiler.format_table as table
    from compiler.numerics import blocks

    assert FORMATS is table.FORMATS and SCALE_GROUP is table.SCALE_GROUP
    assert blocks.Q8_GROUP == table.Q8_GROUP == format_info("q8_1").block_values
