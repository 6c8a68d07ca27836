"""Enum attributes of the qdot dialect.

Standalone they print MLIR's dialect-enum way (``#qdot<format e2m1>``,
``#qdot<axis x>``); inside an op's custom format they print bare
(``lhs = e2m1``, ``qdot.program_id x``).
"""

from __future__ import annotations

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

from dialects.qdot.formats import Format, FormatInfo, format_info


class Axis(StrEnum):
    """Launch-grid axes, as in Triton's ``tl.program_id(axis)`` (0, 1, 2 = x, y, z)."""

    X = "x"
    Y = "y"
    Z = "z"


@irdl_attr_definition
class FormatAttr(EnumAttribute[Format], SpacedOpaqueSyntaxAttribute):
    """An operand format: ``#qdot<format e4m3>``."""

    name = "qdot.format"

    @property
    def info(self) -> FormatInfo:
        return format_info(self.data)


@irdl_attr_definition
class AxisAttr(EnumAttribute[Axis], SpacedOpaqueSyntaxAttribute):
    """A launch-grid axis: ``#qdot<axis x>``."""

    name = "qdot.axis"

    @property
    def index(self) -> int:
        """0, 1 or 2 (Triton's axis numbers)."""
        return list(Axis).index(self.data)
