"""The array and axis arguments of the public numerics functions are refused by name: a ragged nested list
used to fail inside ``np.asarray`` with numpy's "setting an array element with a sequence", and an axis past
the array (or not an int) inside ``np.moveaxis``, as "source: axis 2 is out of bounds" or "'NoneType' object
is not iterable"."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from compiler.numerics import (block_fields, decode, dequantize, dot_scaled, e8m0_half, encode, pack_fp4, quantize,
                               unpack_fp4)

RAGGED = [[1, 2], [3]]
CALLS: dict[str, tuple[Callable[[], Any], str]] = {
    "decode": (lambda: decode("e4m3", RAGGED), "e4m3 codes"),
    "encode": (lambda: encode("e4m3", RAGGED), "encode('e4m3')'s values"),
    "pack_fp4": (lambda: pack_fp4(RAGGED), "pack_fp4's codes"),
    "unpack_fp4": (lambda: unpack_fp4(RAGGED), "unpack_fp4's packed bytes"),
    "dequantize": (lambda: dequantize("q4_K", RAGGED), "q4_K data"),
    "block_fields": (lambda: block_fields("q8_0", RAGGED), "q8_0 data"),
    "e8m0_half": (lambda: e8m0_half(RAGGED), "E8M0 exponents"),
    "quantize": (lambda: quantize("q8_1", RAGGED), "quantize('q8_1')'s values"),
    "dot_scaled lhs": (lambda: dot_scaled(RAGGED, np.zeros((32, 2)), lhs="bf16", rhs="bf16"), "lhs (bf16)"),
    "dot_scaled rhs": (lambda: dot_scaled(np.zeros((2, 32)), RAGGED, lhs="bf16", rhs="bf16"), "rhs (bf16)"),
    "dot_scaled acc": (lambda: dot_scaled(np.zeros((2, 32)), np.zeros((32, 2)), RAGGED, lhs="bf16", rhs="bf16"),
                       "acc"),
    "dot_scaled a_scale": (lambda: dot_scaled(np.zeros((2, 16), np.uint8), np.zeros((16, 2), np.uint8), lhs="e2m1",
                                              rhs="e2m1", a_scale=RAGGED), "a_scale"),
}


@pytest.mark.parametrize("call", CALLS, ids=str)
def test_a_ragged_list_is_refused_naming_the_argument(call: str) -> None:
    function, what = CALLS[call]
    with pytest.raises(ValueError) as info:
        function()
    assert str(info.value) == f"{what} is not an array: its nested sequences differ in length (a ragged list)"


class _NoArray:
    """An object whose ``__array__`` refuses: numpy's own TypeError, not a ragged list."""

    def __array__(self, *args: object, **kwargs: object) -> np.ndarray:
        raise TypeError("no array here")


def test_an_object_numpy_cannot_read_is_refused_naming_the_argument() -> None:
    with pytest.raises(ValueError, match=r"^e4m3 codes is not an array: numpy cannot make one of this _NoArray$"):
        decode("e4m3", _NoArray())


def test_an_unknown_format_is_named_before_its_operand_is_read() -> None:
    with pytest.raises(ValueError, match="^unknown format 'q4_k'"):
        dot_scaled(RAGGED, np.zeros((32, 2)), lhs="q4_k", rhs="bf16")


def test_an_accumulator_must_be_numbers() -> None:
    with pytest.raises(ValueError, match=r"^acc must be a real numeric array, got dtype <U1"):
        dot_scaled(np.zeros((2, 32)), np.zeros((32, 2)), np.full((2, 2), "x"), lhs="bf16", rhs="bf16")


@pytest.mark.parametrize("function", [pack_fp4, unpack_fp4], ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", [2, -3, 7])
def test_an_axis_past_the_array_is_refused_by_name(function: Callable[..., Any], axis: int) -> None:
    with pytest.raises(ValueError, match=rf"^{function.__name__}: axis must be an int from -2 to 1 for an array of 2 "
                                         rf"dimensions, got {axis}$"):
        function(np.zeros((2, 4), np.uint8), axis=axis)


@pytest.mark.parametrize("function", [pack_fp4, unpack_fp4], ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", [None, 1.5, "0", True, (0,)], ids=repr)
def test_an_axis_that_is_no_int_is_a_type_error(function: Callable[..., Any], axis: object) -> None:
    with pytest.raises(TypeError, match=rf"^{function.__name__}: axis must be an int from -2 to 1 for an array of 2 "
                                        rf"dimensions, got {re.escape(repr(axis))}$"):
        function(np.zeros((2, 4), np.uint8), axis=axis)


@pytest.mark.parametrize("axis", [0, 1, -1, -2, np.int64(0)], ids=repr)
def test_every_axis_of_the_array_is_taken(axis: int) -> None:
    codes = np.arange(16, dtype=np.uint8).reshape(4, 4)
    assert np.array_equal(unpack_fp4(pack_fp4(codes, axis=axis), axis=axis), codes)
