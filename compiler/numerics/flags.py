"""The check of the numerics functions' True/False parameters.

Python takes any object as a condition, so ``encode("e4m3", x, saturate="no")`` used to saturate,
the opposite of ``saturate=False``, with no error. Each public flag is checked here instead, with
the wording of ``compiler.compile``'s own flags; numpy's ``np.bool_`` (what a comparison of arrays
yields) is a boolean too.
"""

from __future__ import annotations

import numpy as np


def require_bool(name: str, value: object) -> bool:
    """``value`` as a ``bool``; ``TypeError`` naming the parameter for anything but True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return bool(value)
