"""wgmma operand buffers: the K-major swizzled layouts of the PTX ISA, the ``#qgpu.shared``
buffers qdot builds for them, ``rowElems``, the descriptor view, and the 64-bit descriptor.

The reference layout here is written from the ISA's description of the K-major canonical
layouts ([ISA] 9.7.15.5.1, "Shared Memory Matrix Layout"), not from
``dialects.qgpu.wgmma_operands``: an operand is stored as "swizzle atoms" of 8 rows ×
``S`` bytes of K (S = 32, 64 or 128), rows back to back, 8-row groups ``8·S`` bytes
apart (the stride byte offset), and the swizzle XORs address bits 4.. with the bits 3
above them — 128B: bits [6:4] ^= [9:7]; 64B: [5:4] ^= [8:7]; 32B: bit 4 ^= bit 7. A K
longer than ``S`` bytes continues in a further block of all the rows (qdot's ``rowElems``).
Everything the implementation computes is compared against that, element by element.
"""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type
from xdsl.ir import Attribute

from dialects.ptx.wgmma import SWIZZLE_MODES, SmemDescriptor, smem_descriptor
from dialects.qgpu.encodings import SharedEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import shared_layout
from dialects.qgpu.types import MemDescType
from dialects.qgpu.wgmma_operands import WgmmaOperand, canonical_offset, operand_descriptor, wgmma_shared_encoding

BF16 = BFloat16Type()
F16 = Float16Type()
F32 = Float32Type()
ELEMENTS = {"bf16": BF16, "f16": F16}
K_VALUES = (16, 32, 64, 128, 256)
ROWS = (8, 24, 64, 256)
OPERANDS = {"A": 0, "B": 1}

XOR_BITS = {128: 3, 64: 2, 32: 1}
"""How many address bits each swizzle width XORs: bits [4, 4+b) with bits [7, 7+b)."""


def isa_offset(row: int, k_byte: int, swizzle: int, rows: int) -> int:
    """Byte of K byte ``k_byte`` of row ``row`` (M of A, N of B) in the K-major ``swizzle``-byte
    canonical layout of a ``rows``-row operand, from a 1024-byte aligned start (module docstring)."""
    block, k_in_row = divmod(k_byte, swizzle)
    group, row_in_group = divmod(row, 8)
    address = group * (8 * swizzle) + row_in_group * swizzle + k_in_row
    for bit in range(XOR_BITS[swizzle]):
        if (address >> (7 + bit)) & 1:
            address ^= 1 << (4 + bit)
    return block * rows * swizzle + address


def swizzle_for(k: int) -> int:
    """The swizzle width a 16-bit K extent of ``k`` values takes: its row bytes, at most 128."""
    return min(2 * k, 128)


def buffer(rows: int, k: int, element: Attribute, op_idx: int, encoding: Attribute | None = None) -> MemDescType:
    """A [rows, K] A buffer (K contiguous, order [1, 0]) or a [K, rows] B buffer (K contiguous,
    order [0, 1]: the K-major B), in the layout ``wgmma_shared_encoding`` picks unless given."""
    shape, order = ([rows, k], [1, 0]) if op_idx == 0 else ([k, rows], [0, 1])
    if encoding is None:
        encoding = wgmma_shared_encoding(shape, element, order)
    return MemDescType(shape, element, encoding)


def coords(row: int, kk: int, op_idx: int) -> tuple[int, int]:
    return (row, kk) if op_idx == 0 else (kk, row)


# -- the reference itself, against offsets worked out by hand --------------------------------

@pytest.mark.parametrize(("row", "k_byte", "swizzle", "rows", "expected"), [
    (0, 0, 128, 64, 0),
    (0, 127, 128, 64, 127),           # row 0 is never moved
    (1, 0, 128, 64, 144),             # 128 = bit 7 set: chunk 0 -> chunk 1
    (1, 16, 128, 64, 128),            # and chunk 1 -> chunk 0
    (7, 0, 128, 64, 1008),            # 896 + (7 << 4)
    (8, 0, 128, 64, 1024),            # the next 8-row group: sbo = 1024, phase 0 again
    (9, 16, 128, 64, 1152),           # 1168 with bit 7 set -> bit 4 cleared
    (0, 128, 128, 64, 8192),          # second atom block: after all 64 rows × 128 bytes
    (1, 130, 128, 64, 8192 + 146),    # its row 1, byte 2: chunk 0 -> chunk 1
    (1, 0, 64, 64, 64),               # 64B: row 1 = byte 64, bit 7 clear
    (2, 0, 64, 64, 144),              # row 2 = 128: chunk 0 -> 1
    (6, 48, 64, 64, 384),             # 432 has bits 7, 8 = 1, 1: chunk 3 -> 0
    (4, 0, 32, 64, 144),              # 32B: row 4 = 128: bit 4 set
    (4, 16, 32, 64, 128),
    (3, 16, 32, 64, 112),             # 112 < 128: unchanged
])
def test_reference_matches_hand_examples(row: int, k_byte: int, swizzle: int, rows: int, expected: int) -> None:
    assert isa_offset(row, k_byte, swizzle, rows) == expected


# -- canonical_offset ---------------------------------------------------------------------

@pytest.mark.parametrize("swizzle", [128, 64, 32])
@pytest.mark.parametrize("rows", [8, 64, 256])
@pytest.mark.parametrize("blocks", [1, 2])
def test_canonical_offset_is_the_isa_layout(swizzle: int, rows: int, blocks: int) -> None:
    desc = SmemDescriptor(swizzle, 16, 8 * swizzle)
    seen = set()
    for row, k_byte in itertools.product(range(rows), range(blocks * swizzle)):
        got = canonical_offset(row, k_byte, desc, rows)
        assert got == isa_offset(row, k_byte, swizzle, rows), (row, k_byte)
        seen.add(got)
    assert seen == set(range(blocks * rows * swizzle))


# -- the #qgpu.shared buffers wgmma_shared_encoding builds -------------------------------------

@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("k", K_VALUES)
@pytest.mark.parametrize("element", ELEMENTS)
def test_wgmma_shared_encoding_is_the_isa_layout(element: str, k: int, rows: int, operand: str) -> None:
    op_idx = OPERANDS[operand]
    memdesc = buffer(rows, k, ELEMENTS[element], op_idx)
    encoding = memdesc.encoding
    assert isinstance(encoding, SharedEncodingAttr)
    encoding.verify()
    swizzle = swizzle_for(k)
    assert encoding.row_elems == (64 if 2 * k > 128 else 0)
    layout = shared_layout(memdesc)
    assert layout.buffer_bytes == rows * k * 2
    for row, kk in itertools.product(range(rows), range(k)):
        want = isa_offset(row, 2 * kk, swizzle, rows)
        got = layout.offset(coords(row, kk, op_idx))
        assert got == want, f"element {coords(row, kk, op_idx)}: layout byte {got}, ISA byte {want}"
        assert layout.coords_at(want) == coords(row, kk, op_idx)

    view = operand_descriptor(memdesc, op_idx)
    assert view == WgmmaOperand(SmemDescriptor(swizzle, 16, 8 * swizzle), rows, k)
    assert view.row_bytes == swizzle


# -- rowElems -----------------------------------------------------------------------------

def test_row_elems_puts_each_column_block_after_all_the_rows() -> None:
    rows, k = 16, 256
    split = shared_layout(MemDescType([rows, k], BF16, SharedEncodingAttr(8, 1, 8, [1, 0], False, 64)))
    whole = shared_layout(MemDescType([rows, 64], BF16, SharedEncodingAttr(8, 1, 8, [1, 0])))
    assert (split.row_elements, split.column_blocks, split.row_bytes) == (64, 4, 128)
    assert split.block_bytes == rows * 128
    assert split.buffer_bytes == split.allocation_bytes == rows * k * 2
    for row, col in itertools.product(range(rows), range(k)):
        block, inner = divmod(col, 64)
        assert split.offset((row, col)) == block * rows * 128 + whole.offset((row, inner))


@pytest.mark.parametrize(("shape", "order", "stages"), [
    ([16, 256], [1, 0], 1),
    ([128, 24], [0, 1], 1),           # K-major B: the contiguous dimension is 0
    ([3, 8, 128], [1, 0], 3),         # a ring of 3 stages
])
def test_row_elems_coords_at_inverts_offset(shape: list[int], order: list[int], stages: int) -> None:
    layout = shared_layout(MemDescType(shape, BF16, SharedEncodingAttr(8, 1, 8, order, False, 64)))
    assert layout.allocation_bytes == stages * layout.buffer_bytes
    elements = 0
    starts = {}
    for element in itertools.product(*(range(n) for n in shape)):
        offset = layout.offset(element)
        assert offset not in starts, f"{element} and {starts.get(offset)} share byte {offset}"
        starts[offset] = element
        assert layout.coords_at(offset) == element
        elements += 1
    assert elements * 2 == layout.allocation_bytes
    for offset in range(layout.allocation_bytes):
        assert layout.coords_at(offset) == starts.get(offset)
        assert (offset in starts) == (offset % 2 == 0)


def test_row_elems_wider_than_the_row_changes_nothing() -> None:
    plain = shared_layout(MemDescType([8, 64], BF16, SharedEncodingAttr(8, 1, 8, [1, 0])))
    wide = shared_layout(MemDescType([8, 64], BF16, SharedEncodingAttr(8, 1, 8, [1, 0], False, 128)))
    assert wide.column_blocks == 1
    assert all(wide.offset(c) == plain.offset(c) for c in itertools.product(range(8), range(64)))


def test_row_elems_must_divide_the_contiguous_dimension() -> None:
    with pytest.raises(LayoutError, match=r"rowElems = 128 must divide the contiguous dimension \(192 elements\)"):
        shared_layout(MemDescType([8, 192], BF16, SharedEncodingAttr(8, 1, 8, [1, 0], False, 128)))


# -- operand_descriptor refusals ----------------------------------------------------------

K_EXTENT = ("the buffer's K extent must be 16, 32 or a multiple of 64 values (32-, 64- or 128-byte swizzled "
            "rows), got {}")


@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("k", [8, 48, 96])
def test_operand_descriptor_refuses_k_without_a_swizzle_width(operand: str, k: int) -> None:
    op_idx = OPERANDS[operand]
    unswizzled = SharedEncodingAttr(1, 1, 1, [1, 0] if op_idx == 0 else [0, 1])
    assert operand_descriptor(buffer(64, k, BF16, op_idx, unswizzled), op_idx) == K_EXTENT.format(k)


@pytest.mark.parametrize(("operand", "dim"), [("A", "M"), ("B", "N")])
def test_operand_descriptor_refuses_rows_not_a_multiple_of_8(operand: str, dim: str) -> None:
    op_idx = OPERANDS[operand]
    memdesc = buffer(12, 64, BF16, op_idx)
    assert operand_descriptor(memdesc, op_idx) == f"the buffer's {dim} extent must be a multiple of 8, got 12"


def test_operand_descriptor_refuses_an_unswizzled_layout() -> None:
    # Row 1 of 128-byte rows starts at byte 128 unswizzled; the descriptor reads it at 128 ^ 16.
    encoding = SharedEncodingAttr(1, 1, 1, [1, 0])
    problem = operand_descriptor(buffer(64, 64, BF16, 0, encoding), 0)
    assert problem == (f"its layout {encoding} is not the K-major 128-byte swizzled layout wgmma reads "
                       f"(element [1, 0] at byte 128, the descriptor reads byte 144)")


def test_operand_descriptor_refuses_a_swizzle_of_the_wrong_width() -> None:
    # Two rows per phase on 128-byte rows: rows 0 and 1 both keep phase 0, but the ISA's
    # 128B pattern already moves row 1 (N = 1 of the K-major B).
    encoding = SharedEncodingAttr(8, 2, 8, [0, 1])
    problem = operand_descriptor(buffer(64, 64, F16, 1, encoding), 1)
    assert problem == (f"its layout {encoding} is not the K-major 128-byte swizzled layout wgmma reads "
                       f"(element [0, 1] at byte 128, the descriptor reads byte 144)")


def test_operand_descriptor_refuses_f32_buffers() -> None:
    memdesc = MemDescType([64, 32], F32, SharedEncodingAttr(4, 1, 8, [1, 0]))
    assert operand_descriptor(memdesc, 0) == "wgmma reads bf16 or f16 buffers here, got f32"


def test_operand_descriptor_refuses_a_staged_buffer() -> None:
    memdesc = MemDescType([2, 64, 64], BF16, SharedEncodingAttr(8, 1, 8, [1, 0]))
    assert operand_descriptor(memdesc, 0) == "a wgmma operand buffer must be 2-D, got 3-D"


# -- WgmmaOperand stepping ------------------------------------------------------------------

@pytest.mark.parametrize("operand", OPERANDS)
def test_k_step_offset_moves_to_the_second_atom_block_for_k_128(operand: str) -> None:
    op_idx = OPERANDS[operand]
    rows = 64
    memdesc = buffer(rows, 128, BF16, op_idx)
    view = operand_descriptor(memdesc, op_idx)
    assert isinstance(view, WgmmaOperand)
    # k16 steps of 32 bytes: four in the first 128-byte atom, then the block of all 64 rows
    # × 128 bytes = 8192 bytes later.
    assert [view.k_step_offset(s) for s in range(8)] == [0, 32, 64, 96, 8192, 8224, 8256, 8288]
    layout = shared_layout(memdesc)
    for step in range(8):
        # Row 0 is never swizzled, so a step starts where its first element lies.
        assert view.k_step_offset(step) == layout.offset(coords(0, 16 * step, op_idx))
    assert [view.row_offset(r) for r in (0, 8, 56)] == [0, 1024, 7168]
    assert all(view.row_offset(r) == layout.offset(coords(r, 0, op_idx)) for r in range(0, rows, 8))


# -- smem_descriptor ------------------------------------------------------------------------

# Address 0x1400 -> field 0x140 (bits 0-13); lbo 16 -> 1 << 16; sbo 1024 -> 64 << 32;
# base offset 0 (bits 49-51); layout type in bits 62-63: 128B 1, 64B 2, 32B 3, none 0.
HAND_DESCRIPTORS = {
    128: 0x4000_0040_0001_0140,
    64: 0x8000_0040_0001_0140,
    32: 0xC000_0040_0001_0140,
    0: 0x0000_0040_0001_0140,
}


@pytest.mark.parametrize("swizzle", sorted(HAND_DESCRIPTORS))
def test_smem_descriptor_bit_fields(swizzle: int) -> None:
    desc = SmemDescriptor(swizzle, 16, 1024)
    assert desc.problem() is None
    value = smem_descriptor(0x1400, desc)
    assert value == HAND_DESCRIPTORS[swizzle]
    assert value & 0x3FFF == 0x1400 >> 4
    assert (value >> 16) & 0x3FFF == 16 >> 4
    assert (value >> 32) & 0x3FFF == 1024 >> 4
    assert (value >> 49) & 0x7 == 0
    assert value >> 62 == SWIZZLE_MODES[swizzle]
    reserved = (0x3 << 14) | (0x3 << 30) | (0x7 << 46) | (0x3FF << 52)
    assert value & reserved == 0
    assert value == (0x1400 >> 4) | desc.high_bits()


def test_smem_descriptor_keeps_18_bits_of_the_address() -> None:
    desc = SmemDescriptor(128, 16, 1024)
    assert smem_descriptor(0x4_1400, desc) == smem_descriptor(0x1400, desc)
    assert smem_descriptor(0x3_FFF0, desc) & 0x3FFF == 0x3FFF


@pytest.mark.parametrize(("desc", "problem"), [
    (SmemDescriptor(16, 16, 1024), "swizzle must be 0, 32, 64 or 128 bytes, got 16"),
    (SmemDescriptor(128, 8, 1024), "lbo must be a multiple of 16 below 2^18 bytes, got 8"),
    (SmemDescriptor(128, 16, 1 << 18), "sbo must be a multiple of 16 below 2^18 bytes, got 262144"),
    (SmemDescriptor(128, 16, -16), "sbo must be a multiple of 16 below 2^18 bytes, got -16"),
])
def test_smem_descriptor_problems(desc: SmemDescriptor, problem: str) -> None:
    assert desc.problem() == problem
