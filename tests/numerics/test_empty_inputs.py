"""Arrays with no values (a leading axis of 0, or no blocks) through every block format's quantize,
dequantize, block_fields / pack_blocks, and through dot_scaled with M, N or K = 0: an empty result of
the shape and dtype a non-empty one would have, not numpy's "cannot reshape array of size 0" from
inferring a ``-1`` axis next to a 0."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.numerics import FORMATS, block_fields, dequantize, dot_scaled, format_info, pack_blocks, quantize
from compiler.numerics.quantize import _METHODS

BLOCK_FORMATS = sorted(name for name, info in FORMATS.items() if info.is_block)
EMPTY = [(lead, nblocks) for lead in [(0,), (2, 0), (0, 3), (3,), ()] for nblocks in (0, 1) if 0 in lead or not nblocks]
"""(leading shape, blocks per row) of every way of having no values."""


def test_every_block_format_is_covered() -> None:
    assert set(BLOCK_FORMATS) == set(_METHODS) and len(BLOCK_FORMATS) == 15


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
@pytest.mark.parametrize(("lead", "nblocks"), EMPTY, ids=str)
def test_empty_inputs_quantize_and_dequantize_to_empty_arrays_of_their_shape(
    fmt: str, lead: tuple[int, ...], nblocks: int
) -> None:
    info = format_info(fmt)
    shape = lead + (nblocks * info.block_values,)
    for method in _METHODS[fmt]:
        raw = quantize(fmt, np.zeros(shape), method=method)
        assert (raw.shape, raw.dtype) == (lead + (nblocks * info.block_bytes,), np.uint8)
        values = dequantize(fmt, raw)
        assert (values.shape, values.dtype) == (shape, np.float32)
        assert pack_blocks(fmt, block_fields(fmt, raw)).shape == raw.shape


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_dequantize_of_zero_rows_of_bytes_is_empty(fmt: str) -> None:
    info = format_info(fmt)
    for lead in ((0,), (2, 0), (0, 2)):
        raw = np.zeros(lead + (2 * info.block_bytes,), np.uint8)
        values = dequantize(fmt, raw)
        assert (values.shape, values.dtype) == (lead + (2 * info.block_values,), np.float32)


def _lhs(fmt: str, m: int, k: int) -> np.ndarray:
    info = format_info(fmt)
    return quantize(fmt, np.ones((m, k))).reshape(m, k // info.block_values, info.block_bytes)


def _rhs(fmt: str, n: int, k: int) -> np.ndarray:
    return _lhs(fmt, n, k).transpose(1, 0, 2)


PAIRS = [("q4_K", "q8_1", False), ("q4_K", "q8_1", True), ("q8_1_mmq", "q5_K", True), ("q4_1", "q8_1", True),
         ("q6_K", "q8_1", False), ("mxfp4", "q8_1_mmq", False), ("iq4_xs", "q8_0", False), ("q2_K", "q8_0", False)]


@pytest.mark.parametrize(("lhs", "rhs", "sums"), PAIRS, ids=str)
@pytest.mark.parametrize(("m", "n", "k"), [(0, 3, 256), (2, 0, 256), (0, 0, 256), (2, 3, 0)], ids=str)
def test_dot_scaled_of_block_operands_with_no_rows_or_no_k_is_empty_or_acc(
    lhs: str, rhs: str, sums: bool, m: int, n: int, k: int
) -> None:
    acc = np.arange(m * n, dtype=np.float64).reshape(m, n)
    out = dot_scaled(_lhs(lhs, m, k), _rhs(rhs, n, k), acc, lhs=lhs, rhs=rhs, use_block_sums=sums)
    assert (out.shape, out.dtype) == ((m, n), np.float64)
    np.testing.assert_array_equal(out, acc)


@pytest.mark.parametrize("fmt", ["e4m3", "e2m1", "i8"])
def test_dot_scaled_of_element_operands_with_no_rows_is_empty(fmt: str) -> None:
    dtype = np.int8 if fmt == "i8" else np.uint8
    per_byte = 2 if fmt == "e2m1" else 1
    a, b = np.zeros((0, 64 // per_byte), dtype), np.zeros((64 // per_byte, 3), dtype)
    assert dot_scaled(a, b, lhs=fmt, rhs=fmt).shape == (0, 3)
    assert dot_scaled(b.T.copy(), a.T.copy(), lhs=fmt, rhs=fmt).shape == (3, 0)
    if fmt != "i8":
        scaled = dot_scaled(a, b, lhs=fmt, rhs=fmt, a_scale=np.zeros((0, 2), np.uint8),
                            b_scale=np.full((3, 2), 127, np.uint8), a_scale_fmt="ue8m0", b_scale_fmt="ue8m0")
        assert scaled.shape == (0, 3)
