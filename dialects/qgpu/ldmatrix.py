"""Which row and byte (or value) of shared memory each ``ldmatrix`` destination byte comes from.

Lowering matches a register layout (layouts.py) against these distributions
to decide whether a ``qgpu.local_load`` can become ``ldmatrix``. Every form is a
function ``source(lane, reg, byte) -> RowElement(row, index)``: ``row`` is the
row address index (the lane that supplies that 16-byte row's address) and
``index`` is the byte of that row (``.b16``, ``.b8``) or the value number
(sub-byte ``.b8x16`` forms: value ``v`` of a ``.b4x16_p64`` row is nibble ``v & 1``
of byte ``v >> 1``; of a ``.b6x16_p32`` row, bits ``[6v+5:6v]`` of bytes 0..11).

Facts, PTX ISA 9.0 §9.7.14.5.15 as written out in reference/ptx.md §2.3–§2.5
(``g = lane >> 2``, ``t = lane & 3``, ``R_r`` = the row whose address lane ``r`` gives):

* ``.m8n8.x{1,2,4}.b16``: register ``i`` of lane T = bytes ``4t..4t+3`` of ``R_{8i+g}``
  ([HW-sm90]); with ``.trans``: ``{lo: R_{8i+2t}.h[g], hi: R_{8i+2t+1}.h[g]}``.
* ``.m16n16.x1.trans.b8``: reg ``j``, byte ``i`` = ``R_{4t+i}.b[g + 8j]``;
  ``.x2``: ``R_{16(j>>1) + 4t + i}.b[g + 8(j&1)]``.
* ``.m8n16.x{1,2,4}.b8x16.b4x16_p64`` / ``.b6x16_p32``: reg ``i``, byte ``b`` = value
  ``4t + b`` of row ``R_{8i+g}`` widened to a byte (``0000xxxx`` / ``00xxxxxx``).
* ``.m16n16.x{1,2}.trans.b8x16.{b4x16_p64, b6x16_p32}``: rows widened as above, then
  delivered with the ``.m16n16 .trans .b8`` mapping (value index in place of byte).

Forms exist on sm_75+ (``.m8n8 .b16``) or only sm_100a/sm_120a families (the
rest); that gate belongs to the caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from xdsl.utils.str_enum import StrEnum

ROW_BYTES = 16
"""Every row address reads 16 bytes (padding included for the sub-byte forms)."""


class LdmatrixShape(StrEnum):
    M8N8 = "m8n8"
    M16N16 = "m16n16"
    M8N16 = "m8n16"


class LdmatrixSource(StrEnum):
    """The ``.type`` (``b16``, ``b8``) or ``.src_fmt`` (sub-byte, with ``.dst_fmt .b8x16``)."""

    B16 = "b16"
    B8 = "b8"
    B4X16_P64 = "b4x16_p64"
    B6X16_P32 = "b6x16_p32"

    @property
    def is_sub_byte(self) -> bool:
        return self in (LdmatrixSource.B4X16_P64, LdmatrixSource.B6X16_P32)


class RowElement(NamedTuple):
    row: int
    """Row address index = the lane that supplies the row's address."""
    index: int
    """Byte of the row (``b16``, ``b8``), or value number (sub-byte forms)."""


@dataclass(frozen=True)
class LdmatrixForm:
    """One valid ``ldmatrix`` form (reference/ptx.md §2.2)."""

    shape: LdmatrixShape
    num: int
    """``.x1``, ``.x2`` or ``.x4``."""
    trans: bool
    source_format: LdmatrixSource

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise ValueError(f"not an ldmatrix form: {self.describe()}: {problem}")

    def _problem(self) -> str | None:
        if self.num not in (1, 2, 4):
            return f".x{self.num} (must be .x1, .x2 or .x4)"
        if self.shape == LdmatrixShape.M8N8:
            if self.source_format != LdmatrixSource.B16:
                return ".m8n8 loads .b16 only"
        elif self.shape == LdmatrixShape.M16N16:
            if not self.trans:
                return ".m16n16 requires .trans"
            if self.num == 4:
                return ".m16n16 has .x1 and .x2 only"
            if self.source_format == LdmatrixSource.B16:
                return ".m16n16 loads .b8 or a sub-byte .b8x16 format"
        else:
            if self.trans:
                return ".m8n16 does not allow .trans"
            if not self.source_format.is_sub_byte:
                return ".m8n16 loads .b8x16.b4x16_p64 or .b8x16.b6x16_p32 only"
        return None

    def describe(self) -> str:
        trans = ".trans" if self.trans else ""
        fmt = f".b8x16.{self.source_format}" if self.source_format.is_sub_byte else f".{self.source_format}"
        return f"{self.shape}.x{self.num}{trans}{fmt}"

    @property
    def ptx(self) -> str:
        """The instruction name, e.g. ``ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64``."""
        trans = ".trans" if self.trans else ""
        fmt = f".b8x16.{self.source_format}" if self.source_format.is_sub_byte else f".{self.source_format}"
        return f"ldmatrix.sync.aligned.{self.shape}.x{self.num}{trans}.shared{fmt}"

    @property
    def num_regs(self) -> int:
        """Destination ``.b32`` registers per lane."""
        return self.num * 2 if self.shape == LdmatrixShape.M16N16 else self.num

    @property
    def num_rows(self) -> int:
        """Row addresses used: lanes ``0 .. num_rows - 1`` supply them."""
        return self.num * (16 if self.shape == LdmatrixShape.M16N16 else 8)

    @property
    def address_lanes(self) -> range:
        return range(self.num_rows)

    @property
    def value_bits(self) -> int:
        """Bits of one element in shared memory."""
        return {LdmatrixSource.B16: 16, LdmatrixSource.B8: 8, LdmatrixSource.B4X16_P64: 4,
                LdmatrixSource.B6X16_P32: 6}[self.source_format]

    @property
    def data_bytes_per_row(self) -> int:
        """Bytes of each 16-byte row that carry data (the rest is padding)."""
        return {LdmatrixSource.B4X16_P64: 8, LdmatrixSource.B6X16_P32: 12}.get(self.source_format, ROW_BYTES)

    def source(self, lane: int, reg: int, byte: int) -> RowElement:
        """Where byte ``byte`` of destination register ``reg`` of lane ``lane`` comes from."""
        if not (0 <= lane < 32 and 0 <= reg < self.num_regs and 0 <= byte < 4):
            raise IndexError(f"{self.describe()} has lanes 0..31, registers 0..{self.num_regs - 1}, bytes 0..3; "
                             f"got lane {lane}, reg {reg}, byte {byte}")
        g, t = lane >> 2, lane & 3
        if self.shape == LdmatrixShape.M16N16:
            if self.num == 1:
                return RowElement(4 * t + byte, g + 8 * reg)
            return RowElement(16 * (reg >> 1) + 4 * t + byte, g + 8 * (reg & 1))
        if self.trans:
            return RowElement(8 * reg + 2 * t + (byte >> 1), 2 * g + (byte & 1))
        return RowElement(8 * reg + g, 4 * t + byte)


def value_location(form: LdmatrixForm, value: int) -> tuple[int, int]:
    """(byte, bit) inside a sub-byte row where value number ``value`` starts (low nibble first)."""
    bit = value * form.value_bits
    return bit // 8, bit % 8


def all_forms() -> tuple[LdmatrixForm, ...]:
    """Every valid form, in a fixed order."""
    forms = []
    for shape in LdmatrixShape:
        for num in (1, 2, 4):
            for trans in (False, True):
                for fmt in LdmatrixSource:
                    try:
                        forms.append(LdmatrixForm(shape, num, trans, fmt))
                    except ValueError:
                        continue
    return tuple(forms)
