"""The check of the numerics functions' array and axis arguments.

``np.asarray`` of a ragged nested list raises numpy's "setting an array element with a sequence",
and ``np.moveaxis`` with an axis past the array's dimensions numpy's "source: axis 2 is out of
bounds" (``source`` is moveaxis's parameter, not the caller's); an axis of None or 1.5 failed as
"'NoneType' object is not iterable". Each public array and axis is read here instead, so the
refusal names the argument the caller gave.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray


def as_array(value: ArrayLike, what: str) -> NDArray:
    """``np.asarray(value)``; a ``ValueError`` that names ``what`` where numpy cannot make one array of it."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as err:
        why = ("its nested sequences differ in length (a ragged list)" if "inhomogeneous" in str(err)
               else f"numpy cannot make one of this {type(value).__name__}")
        raise ValueError(f"{what} is not an array: {why}") from None


def check_axis(who: str, axis: object, ndim: int) -> int:
    """``axis`` as an int for an array of ``ndim`` dimensions (negative counts from the end); ``TypeError``
    for anything but an integer, ``ValueError`` for one past the dimensions, each naming ``who``."""
    what = f"{who}: axis must be an int from {-ndim} to {ndim - 1} for an array of {ndim} dimensions"
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{what}, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}, got {axis}")
    return int(axis)
