"""The True/False parameters of the public numerics functions refuse anything else by name: Python
would take ``saturate="no"`` as true and saturate, the opposite of ``saturate=False``. numpy's booleans
(what comparing arrays gives) are accepted as the bools they are."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import compiler.numerics as numerics
from compiler.numerics import dot_scaled, encode, quantize

NOT_BOOLS = ["no", "", 0, 1, None, 1.0, [True]]


def test_every_public_bool_parameter_is_listed_here() -> None:
    flags = {(name, p.name) for name in numerics.__all__ if inspect.isfunction(func := getattr(numerics, name))
             for p in inspect.signature(func).parameters.values() if p.annotation in ("bool", bool)}
    assert flags == {("encode", "saturate"), ("dot_scaled", "lhs_k_pack"), ("dot_scaled", "rhs_k_pack"),
                     ("dot_scaled", "use_block_sums")}


@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
def test_encode_refuses_a_saturate_that_is_not_a_bool(value: object) -> None:
    with pytest.raises(TypeError, match=r"^saturate must be True or False, got "):
        encode("e4m3", [1000.0], saturate=value)  # type: ignore[arg-type]


def test_encode_takes_numpy_bools_as_bools() -> None:
    assert encode("e4m3", [1000.0], saturate=np.False_)[0] == encode("e4m3", [1000.0], saturate=False)[0] == 0x7F
    assert encode("e4m3", [1000.0], saturate=np.True_)[0] == encode("e4m3", [1000.0], saturate=True)[0] == 0x7E


def _q4_k_by_q8_1() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    a = quantize("q4_K", rng.normal(size=(2, 256))).reshape(2, 1, 144)
    b = quantize("q8_1", rng.normal(size=(3, 256))).reshape(3, 8, 36).transpose(1, 0, 2)
    return a, b


@pytest.mark.parametrize("flag", ["lhs_k_pack", "rhs_k_pack", "use_block_sums"])
@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
def test_dot_scaled_refuses_flags_that_are_not_bools(flag: str, value: object) -> None:
    a, b = _q4_k_by_q8_1()
    with pytest.raises(TypeError, match=rf"^{flag} must be True or False, got "):
        dot_scaled(a, b, lhs="q4_K", rhs="q8_1", **{flag: value})  # type: ignore[arg-type]


def test_dot_scaled_takes_numpy_bools_as_bools() -> None:
    a, b = _q4_k_by_q8_1()
    for flag in (False, True):
        np.testing.assert_array_equal(dot_scaled(a, b, lhs="q4_K", rhs="q8_1", use_block_sums=np.bool_(flag)),
                                      dot_scaled(a, b, lhs="q4_K", rhs="q8_1", use_block_sums=flag))
    assert not np.array_equal(dot_scaled(a, b, lhs="q4_K", rhs="q8_1", use_block_sums=True),
                              dot_scaled(a, b, lhs="q4_K", rhs="q8_1", use_block_sums=False))
