"""Byte offsets of a ``!qgpu.memdesc`` buffer: the one definition of ``#qgpu.shared``.

A buffer of shape ``[S..., D0, D1]`` with ``order = [o0, o1]`` is stored as rows:
``order[0]`` is the contiguous dimension, the other tile dimensions (``order[1]``
fastest) number the rows, and leading stage dimensions ``S...`` are outermost
(stage ``s`` starts at ``s · buffer_bytes``). Within a row:

1. element ``c`` of the row starts at data byte ``c · elem_bytes``;
2. ``fp4Padded``: every 8 data bytes are followed by 8 padding bytes, so data byte
   ``c`` sits at physical byte ``(c // 8)·16 + c % 8`` and the row is twice as
   long — the layout ``ldmatrix .b8x16.b4x16_p64`` reads (8 bytes of 16 packed
   e2m1 values, then 64 bits of padding; PTX ISA 9.7.14.5.15, reference/ptx.md §2.5);
3. Triton's XOR swizzle: ``phase = (row // perPhase) % maxPhase`` and physical
   byte ``p`` moves to ``((p // U) ^ phase)·U + p % U`` with ``U = vec·elem_bytes``
   (``vec`` counts physical bytes when fp4Padded, where elements are bytes);
4. ``rowElems = R``: element ``c`` of the contiguous dimension goes to column ``c % R``
   of the row in block ``c // R``; the blocks (all rows each) follow one another.

Only the first byte of an element maps to its coordinates (as for registers);
``coords_at`` returns None for padding bytes and for the other bytes of wider
elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from math import prod
from typing import TYPE_CHECKING

from xdsl.ir import Attribute

from dialects.qgpu.elements import storage_bytes
from dialects.qgpu.encodings import SharedEncodingAttr
from dialects.qgpu.errors import LayoutError

if TYPE_CHECKING:
    from dialects.qgpu.types import MemDescType

FP4_PADDED_DATA_BYTES = 8
"""Packed fp4 bytes per 16-byte ``.b4x16_p64`` row chunk; the other 8 are padding."""
FP4_PADDED_CHUNK_BYTES = 16
BANK_GROUP_BYTES = 16
"""One ldmatrix row address reads 16 bytes; 8 such rows cover all 32 four-byte banks."""
BANK_GROUPS = 8


@dataclass(frozen=True)
class SharedLayout:
    """Where each element of a shared-memory buffer lives (see the module docstring).

    Derived sizes are ``cached_property``s (the layout is immutable): lowering asks for
    them for every element it places."""

    shape: tuple[int, ...]
    element_type: Attribute
    elem_bytes: int
    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    """Over the tile dimensions (the last ``len(order)`` of ``shape``)."""
    fp4_padded: bool
    row_elems: int = 0
    """``rowElems`` (0: a row holds the whole contiguous dimension)."""
    row_pad: int = 0

    @cached_property
    def stage_rank(self) -> int:
        return len(self.shape) - len(self.order)

    @cached_property
    def stage_shape(self) -> tuple[int, ...]:
        return self.shape[: self.stage_rank]

    @cached_property
    def tile_shape(self) -> tuple[int, ...]:
        return self.shape[self.stage_rank:]

    @cached_property
    def num_stages(self) -> int:
        return prod(self.stage_shape)

    @cached_property
    def contiguous_dim(self) -> int:
        """The contiguous dimension, as an index into ``shape``."""
        return self.stage_rank + self.order[0]

    @cached_property
    def row_dims(self) -> tuple[int, ...]:
        """Dimensions (indices into ``shape``) that number rows, fastest first."""
        return tuple(self.stage_rank + d for d in self.order[1:])

    @cached_property
    def num_rows(self) -> int:
        return prod(self.shape[d] for d in self.row_dims)

    @cached_property
    def row_elements(self) -> int:
        """Elements of the contiguous dimension in one row."""
        whole = self.shape[self.contiguous_dim]
        return min(self.row_elems, whole) if self.row_elems else whole

    @cached_property
    def column_blocks(self) -> int:
        """Blocks of rows the contiguous dimension is split over (1 unless ``rowElems`` splits it)."""
        return self.shape[self.contiguous_dim] // self.row_elements

    @cached_property
    def block_bytes(self) -> int:
        """Bytes of one block of all the rows."""
        return self.num_rows * self.row_bytes

    @cached_property
    def data_row_bytes(self) -> int:
        """Bytes of real data in one row."""
        return self.row_elements * self.elem_bytes

    @cached_property
    def row_bytes(self) -> int:
        """Bytes one row occupies, padding included (the row pitch)."""
        return self.data_row_bytes * (2 if self.fp4_padded else 1) + self.row_pad

    @cached_property
    def buffer_bytes(self) -> int:
        """Bytes of one stage."""
        return self.column_blocks * self.block_bytes

    @cached_property
    def allocation_bytes(self) -> int:
        return self.num_stages * self.buffer_bytes

    @cached_property
    def swizzle_bytes(self) -> int:
        """``U``: the run of bytes the swizzle moves as one unit."""
        return self.vec * self.elem_bytes

    def phase(self, row: int) -> int:
        return (row // self.per_phase) % self.max_phase

    def swizzle(self, row: int, byte: int) -> int:
        """Physical position of unswizzled row byte ``byte``; its own inverse (an XOR)."""
        unit = self.swizzle_bytes
        return ((byte // unit) ^ self.phase(row)) * unit + byte % unit

    def row_of(self, coords: Sequence[int]) -> int:
        row, stride = 0, 1
        for d in self.row_dims:
            row += coords[d] * stride
            stride *= self.shape[d]
        return row

    def stage_of(self, coords: Sequence[int]) -> int:
        stage = 0
        for d in range(self.stage_rank):
            stage = stage * self.shape[d] + coords[d]
        return stage

    def _check_coords(self, coords: Sequence[int]) -> None:
        if len(coords) != len(self.shape) or any(not 0 <= c < n for c, n in zip(coords, self.shape, strict=True)):
            raise IndexError(f"coordinates {tuple(coords)} outside the buffer {list(self.shape)}")

    def data_byte(self, column: int) -> int:
        """Unswizzled row position of element ``column`` (after fp4 padding)."""
        byte = column * self.elem_bytes
        if self.fp4_padded:
            byte = (byte // FP4_PADDED_DATA_BYTES) * FP4_PADDED_CHUNK_BYTES + byte % FP4_PADDED_DATA_BYTES
        return byte

    def offset(self, coords: Sequence[int]) -> int:
        """Byte offset, from the start of the allocation, of the first byte of element ``coords``."""
        self._check_coords(coords)
        row = self.row_of(coords)
        block, column = divmod(coords[self.contiguous_dim], self.row_elements)
        byte = self.swizzle(row, self.data_byte(column))
        return self.stage_of(coords) * self.buffer_bytes + block * self.block_bytes + row * self.row_bytes + byte

    def coords_at(self, offset: int) -> tuple[int, ...] | None:
        """The element whose first byte is at ``offset``; None for padding and inner bytes."""
        if not 0 <= offset < self.allocation_bytes:
            raise IndexError(f"offset {offset} outside the allocation of {self.allocation_bytes} bytes")
        stage, rest = divmod(offset, self.buffer_bytes)
        block, rest = divmod(rest, self.block_bytes)
        row, physical = divmod(rest, self.row_bytes)
        if physical >= self.row_bytes - self.row_pad:
            return None
        byte = self.swizzle(row, physical)
        if self.fp4_padded:
            chunk, within = divmod(byte, FP4_PADDED_CHUNK_BYTES)
            if within >= FP4_PADDED_DATA_BYTES:
                return None
            byte = chunk * FP4_PADDED_DATA_BYTES + within
        column, inner = divmod(byte, self.elem_bytes)
        if inner:
            return None
        coords = [0] * len(self.shape)
        for d in reversed(range(self.stage_rank)):
            stage, coords[d] = divmod(stage, self.shape[d])
        for d in self.row_dims:
            row, coords[d] = divmod(row, self.shape[d])
        coords[self.contiguous_dim] = block * self.row_elements + column
        return tuple(coords)

    def is_padding(self, offset: int) -> bool:
        """Whether the byte at ``offset`` belongs to no element (``rowPad`` or fp4Padded padding)."""
        if offset % self.buffer_bytes % self.row_bytes >= self.row_bytes - self.row_pad:
            return True
        if not self.fp4_padded:
            return False
        byte = self.swizzle((offset % self.buffer_bytes) // self.row_bytes, offset % self.row_bytes)
        return byte % FP4_PADDED_CHUNK_BYTES >= FP4_PADDED_DATA_BYTES


def _layout_from(shape: tuple[int, ...], element_type: Attribute, encoding: SharedEncodingAttr) -> SharedLayout:
    elem_bytes = storage_bytes(element_type)
    if elem_bytes is None:
        raise LayoutError(f"shared memory cannot hold elements of type {element_type}")
    if len(shape) < encoding.rank:
        raise LayoutError(f"a buffer of rank {len(shape)} cannot use a #qgpu.shared encoding of rank {encoding.rank}")
    layout = SharedLayout(shape, element_type, elem_bytes, encoding.vec_elems, encoding.per_phase,
                          encoding.max_phase, encoding.dim_order, encoding.fp4_padded, encoding.row_elems,
                          encoding.row_pad)
    if layout.shape[layout.contiguous_dim] % layout.row_elements:
        raise LayoutError(f"rowElems = {encoding.row_elems} must divide the contiguous dimension "
                          f"({layout.shape[layout.contiguous_dim]} elements)")
    if layout.row_pad and (layout.max_phase > 1 or layout.fp4_padded or layout.row_elems):
        raise LayoutError(f"rowPad = {layout.row_pad} pads plain rows: it does not combine with a swizzle "
                          "(maxPhase > 1), fp4Padded or rowElems")
    if layout.fp4_padded:
        if elem_bytes != 1:
            raise LayoutError(f"fp4Padded needs packed fp4 bytes (an 8-bit element type), got {element_type}")
        if layout.data_row_bytes % FP4_PADDED_DATA_BYTES:
            raise LayoutError(
                f"fp4Padded needs rows of a multiple of {FP4_PADDED_DATA_BYTES} bytes along the contiguous "
                f"dimension {layout.contiguous_dim}, got {layout.data_row_bytes}")
    if layout.max_phase > 1:
        unit = layout.swizzle_bytes
        if layout.row_bytes % unit or (layout.row_bytes // unit) % layout.max_phase:
            raise LayoutError(
                f"the swizzle moves runs of vec = {layout.vec} elements ({unit} bytes) over maxPhase = "
                f"{layout.max_phase} phases, so a row must hold a multiple of {unit * layout.max_phase} bytes; "
                f"a row of this buffer holds {layout.row_bytes}")
    return layout


def shared_layout(memdesc: MemDescType) -> SharedLayout:
    """The layout of a ``!qgpu.memdesc``; raises ``LayoutError`` when the encoding does not fit.

    A ``#qgpu.block_part`` view answers with its ``BlockPartLayout`` (block_parts.py).
    """
    encoding = memdesc.encoding
    from dialects.qgpu.block_parts import BlockPartEncodingAttr, block_part_layout

    if isinstance(encoding, BlockPartEncodingAttr):
        return block_part_layout(memdesc.get_shape(), encoding)  # type: ignore[return-value]
    if not isinstance(encoding, SharedEncodingAttr):
        raise LayoutError(f"a !qgpu.memdesc needs a #qgpu.shared encoding, got {encoding}")
    return _layout_from(memdesc.get_shape(), memdesc.element_type, encoding)


def allocation_bytes(memdesc: MemDescType) -> int:
    """Bytes of shared memory the buffer needs, all stages and padding included."""
    return shared_layout(memdesc).allocation_bytes


@dataclass(frozen=True)
class Swizzle:
    vec: int
    """In elements."""
    per_phase: int
    max_phase: int


def conflict_free_swizzle(row_bytes: int, elem_bytes: int = 1) -> Swizzle:
    """Swizzle parameters under which 8 rows × 16 bytes (one ldmatrix phase) hit 8 distinct bank groups.

    Rows of ``row_bytes`` (the physical pitch; doubled for fp4Padded) cover
    ``row_bytes / 16`` of the 8 bank groups, so ``perPhase = 128 / row_bytes``
    consecutive rows share a phase and ``maxPhase = row_bytes / 16`` phases
    (at most 8) spread the rest: 128-byte rows → (16 B, 1, 8), 64 → (16 B, 2, 4),
    32 → (16 B, 4, 2). Rows of 16 bytes or less already hit distinct groups.
    The guarantee holds for power-of-two pitches; other pitches get the largest
    legal swizzle (phases must divide the row's 16-byte chunks).
    """
    chunks = row_bytes // BANK_GROUP_BYTES if row_bytes % BANK_GROUP_BYTES == 0 else 0
    groups = 1
    while groups < BANK_GROUPS and chunks and chunks % (groups * 2) == 0:
        groups *= 2
    per_phase = _floor_power_of_two(max(1, (BANK_GROUPS * BANK_GROUP_BYTES) // max(row_bytes, 1)))
    return Swizzle(max(1, BANK_GROUP_BYTES // elem_bytes), per_phase, groups)


def _floor_power_of_two(value: int) -> int:
    power = 1
    while power * 2 <= value:
        power *= 2
    return power


def shared_encoding_for(shape: Sequence[int], element_type: Attribute, order: Sequence[int],
                        fp4_padded: bool = False) -> SharedEncodingAttr:
    """A conflict-free ``#qgpu.shared`` for a tile ``shape`` (stage dimensions excluded)."""
    elem_bytes = storage_bytes(element_type)
    if elem_bytes is None:
        raise LayoutError(f"shared memory cannot hold elements of type {element_type}")
    row_bytes = shape[len(shape) - len(order) + order[0]] * elem_bytes * (2 if fp4_padded else 1)
    swizzle = conflict_free_swizzle(row_bytes, elem_bytes)
    return SharedEncodingAttr(swizzle.vec, swizzle.per_phase, swizzle.max_phase, order, fp4_padded)
