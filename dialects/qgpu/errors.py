"""The one exception the layout functions raise for a tensor or buffer they cannot lay out."""

from __future__ import annotations

from xdsl.utils.exceptions import VerifyException


class LayoutError(VerifyException):
    """A type whose encoding does not fit its shape or element type.

    A ``VerifyException``, so an op verifier can let it through (prefixed with the
    operand's name) and the tools print it as a diagnostic.
    """
