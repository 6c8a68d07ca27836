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

The instruction's own facts — which forms exist, their registers, mnemonic, element
widths, padding, and the arch feature each shape needs (``.m8n8 .b16`` on sm_75+, the
rest only on the sm_100a/sm_120a families) — are dialects/ptx/ldmatrix_forms.py's; this
module adds only where each destination byte comes from. The arch gate belongs to the caller.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import NamedTuple

from dialects.ptx.ldmatrix_forms import (
    LdmatrixElt,
    LdmatrixShape,
    ldmatrix_mnemonic,
    ldmatrix_problem,
    ldmatrix_register_count,
)


class RowElement(NamedTuple):
    row: int
    """Row address index = the lane that supplies the row's address."""
    index: int
    """Byte of the row (``b16``, ``b8``), or value number (sub-byte forms)."""


@dataclass(frozen=True)
class LdmatrixForm:
    """One valid ``ldmatrix`` form; which ones are valid is ``ldmatrix_problem``'s (dialects/ptx)."""

    shape: LdmatrixShape
    num: int
    """``.x1``, ``.x2`` or ``.x4``."""
    trans: bool
    elt: LdmatrixElt

    def __post_init__(self) -> None:
        problem = ldmatrix_problem(self.shape, self.num, self.trans, self.elt)
        if problem is not None:
            raise ValueError(f"not an ldmatrix form: {self.ptx}: {problem}")

    @property
    def ptx(self) -> str:
        """The instruction name, e.g. ``ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64``."""
        return ldmatrix_mnemonic(self.shape, self.num, self.trans, self.elt)

    @property
    def num_regs(self) -> int:
        """Destination ``.b32`` registers per lane."""
        return ldmatrix_register_count(self.shape, self.num)

    @property
    def num_rows(self) -> int:
        """Row addresses used: lanes ``0 .. num_rows - 1`` supply them."""
        return self.num * (16 if self.shape == LdmatrixShape.M16N16 else 8)

    @property
    def address_lanes(self) -> range:
        return range(self.num_rows)

    def source(self, lane: int, reg: int, byte: int) -> RowElement:
        """Where byte ``byte`` of destination register ``reg`` of lane ``lane`` comes from."""
        if not (0 <= lane < 32 and 0 <= reg < self.num_regs and 0 <= byte < 4):
            raise IndexError(f"{self.ptx} has lanes 0..31, registers 0..{self.num_regs - 1}, bytes 0..3; "
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
    bit = value * form.elt.value_bits
    return bit // 8, bit % 8


def all_forms() -> tuple[LdmatrixForm, ...]:
    """Every valid form, in a fixed order."""
    return tuple(LdmatrixForm(shape, num, trans, elt)
                 for shape, num, trans, elt in itertools.product(LdmatrixShape, (1, 2, 4), (False, True), LdmatrixElt)
                 if ldmatrix_problem(shape, num, trans, elt) is None)
