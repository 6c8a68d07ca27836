"""The ``ldmatrix`` instruction forms: qualifiers, which combinations exist, what each writes.

PTX ISA 9.0 §9.7.14.5.15, as written out in reference/ptx.md §2.2. Defined once here and
read by the ``ptx.ldmatrix`` op (verification, mnemonic, arch requirement) and by qgpu's
ldmatrix distributions (dialects/qgpu/ldmatrix.py) that lowering matches layouts against.
No op definitions live here, so any dialect can import it.
"""

from __future__ import annotations

from xdsl.utils.str_enum import StrEnum

from dialects.ptx.arch import Feature

ROW_BYTES = 16
"""Every row address reads 16 bytes (padding included for the sub-byte forms)."""


class LdmatrixShape(StrEnum):
    M8N8 = "m8n8"
    M16N16 = "m16n16"
    M8N16 = "m8n16"

    @property
    def feature(self) -> Feature:
        """``.m8n8`` exists on sm_75+; ``.m16n16`` / ``.m8n16`` only on the sm_100a / sm_120a families."""
        return Feature.LDMATRIX if self is LdmatrixShape.M8N8 else Feature.LDMATRIX_SUBBYTE


class LdmatrixElt(StrEnum):
    """Element format; the two ``b8x16`` forms widen packed 4/6-bit values to bytes.

    ``b16`` and ``b8`` are the ``.type``; ``b8x16.b4x16_p64`` / ``b8x16.b6x16_p32`` are
    ``.dst_fmt .src_fmt``.
    """

    B16 = "b16"
    B8 = "b8"
    B8X16_B4X16_P64 = "b8x16.b4x16_p64"
    B8X16_B6X16_P32 = "b8x16.b6x16_p32"

    @property
    def is_sub_byte(self) -> bool:
        """Packed 4/6-bit values in shared memory, each widened to a byte in the registers."""
        return self in (LdmatrixElt.B8X16_B4X16_P64, LdmatrixElt.B8X16_B6X16_P32)

    @property
    def value_bits(self) -> int:
        """Bits of one element in shared memory."""
        return _VALUE_BITS[self]

    @property
    def data_bytes(self) -> int:
        """Bytes of each 16-byte row that carry data: 8 (``_p64``), 12 (``_p32``), else all 16."""
        return _DATA_BYTES.get(self, ROW_BYTES)


_VALUE_BITS = {LdmatrixElt.B16: 16, LdmatrixElt.B8: 8, LdmatrixElt.B8X16_B4X16_P64: 4,
               LdmatrixElt.B8X16_B6X16_P32: 6}
_DATA_BYTES = {LdmatrixElt.B8X16_B4X16_P64: 8, LdmatrixElt.B8X16_B6X16_P32: 12}


def ldmatrix_register_count(shape: LdmatrixShape, num: int) -> int:
    """Destination registers per lane: one per 8x8 (b16) / 8x16 (b8) matrix, two per 16x16."""
    return num * (2 if shape is LdmatrixShape.M16N16 else 1)


def ldmatrix_problem(shape: LdmatrixShape, num: int, trans: bool, elt: LdmatrixElt) -> str | None:
    """Why (shape, num, trans, elt) is not an ldmatrix form, or None (ptx.md §2.2)."""
    if num not in (1, 2, 4):
        return f"num must be 1, 2 or 4, got {num}"
    if shape is LdmatrixShape.M8N8:
        if elt is not LdmatrixElt.B16:
            return f"shape m8n8 takes elt b16, got {elt}"
    elif shape is LdmatrixShape.M16N16:
        if not trans:
            return "shape m16n16 requires trans"
        if num == 4:
            return "shape m16n16 takes num 1 or 2 (x1, x2), got 4"
        if elt is LdmatrixElt.B16:
            return "shape m16n16 takes elt b8, b8x16.b4x16_p64 or b8x16.b6x16_p32, got b16"
    else:
        if trans:
            return "shape m8n16 does not allow trans"
        if not elt.is_sub_byte:
            return f"shape m8n16 takes elt b8x16.b4x16_p64 or b8x16.b6x16_p32, got {elt}"
    return None


def ldmatrix_mnemonic(shape: LdmatrixShape, num: int, trans: bool, elt: LdmatrixElt) -> str:
    """The instruction name, e.g. ``ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64``."""
    return f"ldmatrix.sync.aligned.{shape}.x{num}{'.trans' if trans else ''}.shared.{elt}"
