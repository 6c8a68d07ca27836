"""Which shared buffers a ``wgmma`` can read, and the descriptor that reads them.

A wgmma operand is addressed by a matrix descriptor, not by per-thread addresses, so a
buffer qualifies only if its ``#qgpu.shared`` layout *is* one of the ISA's canonical
layouts. qdot uses the K-major swizzled ones ([ISA] 9.7.15.5.1): rows (M of A, N of B)
of exactly ``S`` bytes of K, S ∈ {32, 64, 128}, 8-row groups ``8·S`` bytes apart (the
descriptor's stride byte offset), each 16-byte chunk of a row XOR-ed with the row's
phase — the address bits 3 above the chunk bits — which is Triton's
``vec = 16 B, perPhase = 128 / S, maxPhase = S / 16`` swizzle.

`canonical_offset` is that address function; `operand_descriptor` checks it against the
buffer's own layout function (``shared_layout(memdesc).offset``) at every element, so the
verifier, the lowering and the emulator tests all rest on the one comparison. A K
longer than 128 bytes is split into such atoms, one block of all the rows after the
other (``#qgpu.shared<{..., rowElems = 64}>``); a k16 step then starts in its atom's block.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from collections.abc import Sequence

from xdsl.dialects.builtin import BFloat16Type, Float16Type
from xdsl.ir import Attribute

from dialects.ptx.wgmma import WGMMA_K_BYTES, SmemDescriptor
from dialects.qgpu.elements import storage_bytes
from dialects.qgpu.encodings import SharedEncodingAttr
from dialects.qgpu.layouts import shared_encoding_for, shared_layout
from dialects.qgpu.types import MemDescType

SWIZZLES = (128, 64, 32)
"""Swizzle widths (bytes of K per row) qdot's buffers can take, widest first."""


def canonical_offset(row: int, k_byte: int, desc: SmemDescriptor, rows: int = 0) -> int:
    """Byte offset, from a buffer start aligned to ``8 · swizzle``, of byte ``k_byte`` of row
    ``row`` in the K-major swizzled layout ``desc`` describes; a K longer than one swizzled
    row continues in further blocks of all ``rows`` rows (swizzle atoms along K)."""
    s = desc.swizzle
    atom, k_byte = divmod(k_byte, s)
    unswizzled = (row // 8) * desc.sbo + (row % 8) * s + k_byte
    phase_bits = {128: 7, 64: 3, 32: 1}[s]
    return atom * rows * s + (unswizzled ^ (((unswizzled >> 7) & phase_bits) << 4))


@dataclass(frozen=True)
class WgmmaOperand:
    """A buffer a wgmma reads: its descriptor fields and the geometry the lowering steps through."""

    desc: SmemDescriptor
    rows: int
    """M (A) or N (B)."""
    k: int

    @property
    def row_bytes(self) -> int:
        """Bytes of one swizzled row of K: the descriptor's swizzle width."""
        return self.desc.swizzle

    def k_step_offset(self, step: int) -> int:
        """Bytes from the buffer start to the start of k16 step ``step``: inside its swizzled row
        (the hardware applies the XOR to the absolute address, so the start just moves along
        K), in the block of rows of its swizzle atom."""
        atom, within = divmod(step * WGMMA_K_BYTES, self.row_bytes)
        return atom * self.rows * self.row_bytes + within

    def row_offset(self, row: int) -> int:
        """Bytes from the buffer start to row ``row``, a multiple of 8."""
        assert row % 8 == 0
        return (row // 8) * self.desc.sbo


def wgmma_shared_encoding(shape: Sequence[int], element_type: Attribute, order: Sequence[int]) -> SharedEncodingAttr:
    """The ``#qgpu.shared`` of a buffer a wgmma will read: the conflict-free swizzle of rows of
    at most 128 bytes, a K longer than that split into swizzle atoms (``rowElems``)."""
    elem_bytes = storage_bytes(element_type) or 1
    contiguous = shape[len(shape) - len(order) + order[0]]
    row_elems = min(contiguous, max(SWIZZLES) // elem_bytes)
    clipped = list(shape)
    clipped[len(shape) - len(order) + order[0]] = row_elems
    encoding = shared_encoding_for(clipped, element_type, order)
    if row_elems == contiguous:
        return encoding
    return SharedEncodingAttr(encoding.vec_elems, encoding.per_phase, encoding.max_phase, order, False, row_elems)


def operand_descriptor(memdesc: MemDescType, op_idx: int) -> WgmmaOperand | str:
    """The wgmma view of ``memdesc`` (A: [M, K], op_idx 0; B: [K, N], op_idx 1), or why it has none."""
    return _operand_descriptor(memdesc.get_shape(), memdesc.get_element_type(), memdesc.encoding, op_idx)


@functools.cache
def _operand_descriptor(shape: tuple[int, ...], elem: Attribute, encoding: Attribute,
                        op_idx: int) -> WgmmaOperand | str:
    """Keyed by what the layout depends on (a buffer and its mutable ring slot share the answer):
    the element-by-element comparison below is the costly part of compiling a wgmma kernel."""
    memdesc = MemDescType(shape, elem, encoding)
    if len(shape) != 2:
        return f"a wgmma operand buffer must be 2-D, got {len(shape)}-D"
    if not isinstance(elem, BFloat16Type | Float16Type):
        return f"wgmma reads bf16 or f16 buffers here, got {elem}"
    k_dim = 1 if op_idx == 0 else 0
    rows, k = shape[1 - k_dim], shape[k_dim]
    row_bytes = min(k * 2, max(SWIZZLES))
    if row_bytes not in SWIZZLES or (k * 2) % row_bytes:
        return (f"the buffer's K extent must be 16, 32 or a multiple of 64 values (32-, 64- or 128-byte "
                f"swizzled rows), got {k}")
    if rows % 8:
        return f"the buffer's {'M' if op_idx == 0 else 'N'} extent must be a multiple of 8, got {rows}"
    desc = SmemDescriptor(row_bytes, 16, 8 * row_bytes)
    layout = shared_layout(memdesc)
    for row in range(rows):
        for kk in range(k):
            coords = (row, kk) if op_idx == 0 else (kk, row)
            want = canonical_offset(row, 2 * kk, desc, rows)
            if layout.offset(coords) != want:
                return (f"its layout {memdesc.encoding} is not the K-major {row_bytes}-byte swizzled layout wgmma "
                        f"reads (element {list(coords)} at byte {layout.offset(coords)}, the descriptor reads "
                        f"byte {want})")
    return WgmmaOperand(desc, rows, k)


__all__ = ["SWIZZLES", "WgmmaOperand", "canonical_offset", "operand_descriptor", "wgmma_shared_encoding"]
