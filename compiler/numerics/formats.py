"""The format table under its ``compiler.numerics`` name: a re-export of ``compiler/format_table.py``.

The table itself (code widths, float field layouts, values and bytes per block, scale
groups, with their sources) is defined once, in ``compiler/format_table.py``, outside this
package so that the dialects can read it without importing numpy. ``element.py`` decodes
and encodes from its ``ElementCoding``; ``blocks.py`` reads ``block_values``/``block_bytes``;
other modules (GPU runners, benchmarks) ask :func:`format_info` instead of re-deriving sizes.
"""

from __future__ import annotations

from compiler.format_table import (
    ELEMENT_FORMATS,
    FORMATS,
    SCALE_GROUP,
    ElementCoding,
    FormatInfo,
    FormatKind,
    NanRule,
    block_format,
    float_format,
    format_info,
)

__all__ = [
    "ELEMENT_FORMATS",
    "FORMATS",
    "SCALE_GROUP",
    "ElementCoding",
    "FormatInfo",
    "FormatKind",
    "NanRule",
    "block_format",
    "float_format",
    "format_info",
]
