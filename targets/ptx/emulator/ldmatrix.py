"""``ldmatrix`` as the PTX ISA defines it, independent of qdot's layout functions.

Sources: PTX ISA 9.0 §9.7.14.5.15 as summarised in shared/reference/ptx.md §2.3–§2.5.
Notation: lane ``T``, ``g = T >> 2``, ``t = T & 3``; ``R_r`` is the 16-byte row whose
address lane ``r`` supplies (lanes 0-7 the rows of matrix 0, 8-15 of matrix 1, ...;
a 16x16 matrix has 16 rows). For the sub-byte forms each row is first widened to 16
bytes, value ``v`` as ``0000xxxx`` (b4x16_p64: nibble ``v & 1`` of byte ``v >> 1``) or
``00xxxxxx`` (b6x16_p32: bits ``[6v+5:6v]`` of bytes 0..11 read little-endian).

* ``.m8n8 .b16``: reg i of lane T = bytes ``4t..4t+3`` of ``R_{8i+g}``;
  ``.trans``: {lo: ``R_{8i+2t}.h[g]``, hi: ``R_{8i+2t+1}.h[g]``}.
* ``.m16n16 .trans .b8`` (and widened sources): ``.x1``: reg j byte i = ``R_{4t+i}.b[g+8j]``;
  ``.x2``: reg j byte i = ``R_{16(j>>1)+4t+i}.b[g+8(j&1)]``.
* ``.m8n16`` widened: reg i byte b = widened byte ``4t+b`` of ``R_{8i+g}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dialects.ptx.attrs import LdmatrixElt, LdmatrixShape
from dialects.ptx.memory import ldmatrix_register_count


@dataclass(frozen=True)
class LdmatrixForm:
    shape: LdmatrixShape
    num: int
    trans: bool
    elt: LdmatrixElt

    @property
    def rows(self) -> int:
        """How many lanes supply a row address (lanes 0 .. rows-1)."""
        return self.num * (16 if self.shape is LdmatrixShape.M16N16 else 8)

    @property
    def registers(self) -> int:
        return ldmatrix_register_count(self.shape, self.num)

    @property
    def consumed_bytes(self) -> int:
        """Bytes of each 16-byte row that carry data (the rest is padding the hardware ignores)."""
        return {LdmatrixElt.B8X16_B4X16_P64: 8, LdmatrixElt.B8X16_B6X16_P32: 12}.get(self.elt, 16)


def source(form: LdmatrixForm, reg: int, lane: int, byte: int) -> tuple[int, int]:
    """(row, byte of the widened row) that lands in byte `byte` of register `reg` of `lane`."""
    g, t = lane >> 2, lane & 3
    if form.shape is LdmatrixShape.M8N8:
        if not form.trans:
            return 8 * reg + g, 4 * t + byte
        return 8 * reg + 2 * t + (byte >> 1), 2 * g + (byte & 1)
    if form.shape is LdmatrixShape.M16N16:
        if form.num == 1:
            return 4 * t + byte, g + 8 * reg
        return 16 * (reg >> 1) + 4 * t + byte, g + 8 * (reg & 1)
    return 8 * reg + g, 4 * t + byte


def source_table(form: LdmatrixForm) -> tuple[np.ndarray, np.ndarray]:
    """[registers, 32 lanes, 4 bytes] arrays of source row and source byte."""
    shape = (form.registers, 32, 4)
    rows = np.zeros(shape, dtype=np.int64)
    cols = np.zeros(shape, dtype=np.int64)
    for reg in range(form.registers):
        for lane in range(32):
            for byte in range(4):
                rows[reg, lane, byte], cols[reg, lane, byte] = source(form, reg, lane, byte)
    return rows, cols


def widen(raw: np.ndarray, elt: LdmatrixElt) -> np.ndarray:
    """[..., 16] raw row bytes -> [..., 16] bytes as the instruction distributes them."""
    if elt is LdmatrixElt.B8X16_B4X16_P64:
        v = np.arange(16)
        return (raw[..., v >> 1] >> (4 * (v & 1)).astype(np.uint8)) & np.uint8(0xF)
    if elt is LdmatrixElt.B8X16_B6X16_P32:
        words = raw[..., :12].astype(np.uint64)
        out = np.zeros(raw.shape, dtype=np.uint8)
        for v in range(16):
            bit = 6 * v
            lo, shift = bit // 8, bit % 8
            pair = words[..., lo] | (words[..., lo + 1] << np.uint64(8) if lo + 1 < 12 else np.uint64(0))
            out[..., v] = ((pair >> np.uint64(shift)) & np.uint64(0x3F)).astype(np.uint8)
        return out
    return raw


def gather(form: LdmatrixForm, rows: np.ndarray, table: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """rows: [warps, form.rows, 16] raw bytes -> [registers, warps, 32] uint32 destinations."""
    wide = widen(rows, form.elt)
    src_row, src_col = table
    picked = wide[:, src_row, src_col]  # [warps, registers, 32, 4]
    words = np.ascontiguousarray(picked).view(np.uint32)[..., 0]  # little-endian bytes -> word
    return words.swapaxes(0, 1)
