"""ldmatrix distributions against reference/ptx.md §2.3–§2.5, and ldmatrix + shared layout = dot operand layout.

The second half loads the operand tiles the way ptx.md §2.5 and §3.5 describe
(which lane supplies which row address) and checks that the bytes land where
the #qgpu.dot_op layouts say, including the fp4 chain fp4Padded shared memory →
``.m8n16 .b8x16.b4x16_p64`` → fp4Unpacked registers.
"""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects.builtin import BFloat16Type, IntegerType, TensorType

from dialects.qgpu.encodings import DotOperandEncodingAttr, MmaEncodingAttr, SharedEncodingAttr
from dialects.qgpu.layouts import distributed_layout, shared_layout
from dialects.ptx.ldmatrix_forms import LdmatrixElt, LdmatrixShape
from dialects.qgpu.ldmatrix import LdmatrixForm, RowElement, all_forms, value_location
from dialects.qgpu.types import MemDescType

I8 = IntegerType(8)
BF16 = BFloat16Type()
M8N8, M16N16, M8N16 = LdmatrixShape.M8N8, LdmatrixShape.M16N16, LdmatrixShape.M8N16
B16, B8, P64, P32 = LdmatrixElt.B16, LdmatrixElt.B8, LdmatrixElt.B8X16_B4X16_P64, LdmatrixElt.B8X16_B6X16_P32


def form(shape, num, trans, fmt) -> LdmatrixForm:
    return LdmatrixForm(shape, num, trans, fmt)


# ---------------------------------------------------------------- the instruction itself


@pytest.mark.parametrize("num", [1, 2, 4])
def test_m8n8_b16(num: int) -> None:
    """reg i of lane T = {lo: R_{8i+g}.h[2t], hi: R_{8i+g}.h[2t+1]}: bytes 4t..4t+3 of row 8i+g."""
    f = form(M8N8, num, False, B16)
    assert f.num_regs == num and f.address_lanes == range(8 * num)
    for lane, i, b in itertools.product(range(32), range(num), range(4)):
        g, t = lane >> 2, lane & 3
        half = 2 * t + (b >> 1)
        assert f.source(lane, i, b) == RowElement(8 * i + g, 2 * half + (b & 1))


@pytest.mark.parametrize("num", [1, 2, 4])
def test_m8n8_trans_b16(num: int) -> None:
    """.trans: reg i of lane T = {lo: R_{8i+2t}.h[g], hi: R_{8i+2t+1}.h[g]}."""
    f = form(M8N8, num, True, B16)
    for lane, i, b in itertools.product(range(32), range(num), range(4)):
        g, t = lane >> 2, lane & 3
        assert f.source(lane, i, b) == RowElement(8 * i + 2 * t + (b >> 1), 2 * g + (b & 1))


def test_m8n8_hardware_verified_examples() -> None:
    """ptx.md §2.3: lane 5 .x4 reg 1 = (row 9, b16 cols 2, 3); .x4.trans reg 1 = (rows 10, 11, col 1)."""
    plain, trans = form(M8N8, 4, False, B16), form(M8N8, 4, True, B16)
    assert [plain.source(5, 1, b) for b in range(4)] == [(9, 4), (9, 5), (9, 6), (9, 7)]
    assert [trans.source(5, 1, b) for b in range(4)] == [(10, 2), (10, 3), (11, 2), (11, 3)]


def test_m8n8_inverse_tables() -> None:
    """ptx.md §2.3 inverse: (r, c) of matrix i -> lane 4r + (c>>1), half c&1 (plain); lane 4c + (r>>1), half r&1 (trans)."""
    plain, trans = form(M8N8, 4, False, B16), form(M8N8, 4, True, B16)
    for i, r, c in itertools.product(range(4), range(8), range(8)):
        assert plain.source(4 * r + (c >> 1), i, 2 * (c & 1)) == (8 * i + r, 2 * c)
        assert trans.source(4 * c + (r >> 1), i, 2 * (r & 1)) == (8 * i + r, 2 * c)


def test_m16n16_trans_b8() -> None:
    """.x1: reg j byte i = R_{4t+i}.b[g+8j]; .x2: R_{16(j>>1)+4t+i}.b[g+8(j&1)]."""
    x1, x2 = form(M16N16, 1, True, B8), form(M16N16, 2, True, B8)
    assert (x1.num_regs, x2.num_regs, len(x1.address_lanes), len(x2.address_lanes)) == (2, 4, 16, 32)
    for lane, i in itertools.product(range(32), range(4)):
        g, t = lane >> 2, lane & 3
        for j in range(2):
            assert x1.source(lane, j, i) == (4 * t + i, g + 8 * j)
        for j in range(4):
            assert x2.source(lane, j, i) == (16 * (j >> 1) + 4 * t + i, g + 8 * (j & 1))


def test_m16n16_x2_inverse_table() -> None:
    """ptx.md §2.4: stored row R, byte c -> lane 4(c & 7) + ((R & 15) >> 2), register 2(R >> 4) + (c >> 3), byte R & 3."""
    x2 = form(M16N16, 2, True, B8)
    for row, c in itertools.product(range(32), range(16)):
        assert x2.source(4 * (c & 7) + ((row & 15) >> 2), 2 * (row >> 4) + (c >> 3), row & 3) == (row, c)


@pytest.mark.parametrize("fmt", [P64, P32])
@pytest.mark.parametrize("num", [1, 2, 4])
def test_m8n16_sub_byte(fmt, num: int) -> None:
    """reg i, byte b of lane T = value 4t + b of row R_{8i+g}, widened to a byte."""
    f = form(M8N16, num, False, fmt)
    assert f.num_regs == num and f.address_lanes == range(8 * num)
    for lane, i, b in itertools.product(range(32), range(num), range(4)):
        assert f.source(lane, i, b) == (8 * i + (lane >> 2), 4 * (lane & 3) + b)


@pytest.mark.parametrize("fmt", [P64, P32])
def test_m16n16_trans_sub_byte_uses_the_b8_mapping_on_values(fmt) -> None:
    for num in (1, 2):
        f, b8 = form(M16N16, num, True, fmt), form(M16N16, num, True, B8)
        for lane, reg, byte in itertools.product(range(32), range(f.num_regs), range(4)):
            assert f.source(lane, reg, byte) == b8.source(lane, reg, byte)


def test_sub_byte_value_positions() -> None:
    """b4x16_p64: value v is nibble v & 1 of byte v >> 1 (low first); b6x16_p32: bits [6v+5:6v] of bytes 0..11."""
    p64, p32 = form(M8N16, 1, False, P64), form(M8N16, 1, False, P32)
    assert [value_location(p64, v) for v in range(4)] == [(0, 0), (0, 4), (1, 0), (1, 4)]
    assert value_location(p32, 15) == (11, 2)
    assert (p64.elt.data_bytes, p32.elt.data_bytes) == (8, 12)


def test_invalid_forms_are_refused() -> None:
    for shape, num, trans, fmt, reason in [
        (M16N16, 1, False, B8, "shape m16n16 requires trans"),
        (M16N16, 4, True, B8, r"shape m16n16 takes num 1 or 2 \(x1, x2\), got 4"),
        (M8N16, 1, True, P64, "shape m8n16 does not allow trans"),
        (M8N16, 1, False, B8, "shape m8n16 takes elt b8x16.b4x16_p64 or b8x16.b6x16_p32, got b8"),
        (M8N8, 1, False, B8, "shape m8n8 takes elt b16, got b8"),
        (M8N8, 3, False, B16, "num must be 1, 2 or 4, got 3"),
    ]:  # each refused for its own reason, not for the first thing the constructor happens to trip on
        with pytest.raises(ValueError, match=rf"^not an ldmatrix form: ldmatrix\.sync\.aligned\.\S+: {reason}$"):
            form(shape, num, trans, fmt)
    names = {f.ptx for f in all_forms()}
    assert "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64" in names
    assert "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64" in names
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in names
    assert len(all_forms()) == 6 + 2 + 4 + 6  # m8n8 b16 ±trans; m16n16 b8; m16n16 sub-byte; m8n16 sub-byte


# ---------------------------------------------------------------- ldmatrix feeding the dot operand layouts


def mma() -> MmaEncodingAttr:
    return MmaEncodingAttr([1, 1])


def test_int8_a_from_row_major_tile_x4() -> None:
    """ptx.md §3.5: A 16x32 row-major, lane l address row l & 15, byte 16(l >> 4) -> a-regs 0..3."""
    f = form(M8N8, 4, False, B16)
    a = distributed_layout(TensorType(I8, [16, 32], DotOperandEncodingAttr(0, mma(), 4)))
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        row, index = f.source(lane, reg, byte)
        assert a.coords(0, lane, reg, byte) == (row & 15, 16 * (row >> 4) + index)


def test_int8_b_from_transposed_tile_x2() -> None:
    """ptx.md §3.5: B^T 8x32, lane l address row l & 7, byte 16((l >> 3) & 1) -> b-regs 0, 1."""
    f = form(M8N8, 2, False, B16)
    b = distributed_layout(TensorType(I8, [32, 8], DotOperandEncodingAttr(1, mma(), 4)))
    for lane, reg, byte in itertools.product(range(32), range(2), range(4)):
        row, index = f.source(lane, reg, byte)
        assert b.coords(0, lane, reg, byte) == (16 * ((row >> 3) & 1) + index, row & 7)


def test_bf16_b_from_k_major_rows_x2_trans() -> None:
    """ptx.md §3.5: B stored K x N (16 rows of 8 bf16), lane l address row l & 15 -> b-regs via .x2.trans."""
    f = form(M8N8, 2, True, B16)
    b = distributed_layout(TensorType(BF16, [16, 8], DotOperandEncodingAttr(1, mma(), 2)))
    for lane, reg, byte in itertools.product(range(32), range(2), (0, 2)):
        row, index = f.source(lane, reg, byte)
        assert b.coords(0, lane, reg, byte) == (row, index // 2)


def test_int8_b_from_n_contiguous_rows_m16n16_x2_trans() -> None:
    """ptx.md §2.4: B as 32 k-rows of 16 n bytes: {reg0, reg2} = n-tile 0, {reg1, reg3} = n-tile 1."""
    f = form(M16N16, 2, True, B8)
    b = distributed_layout(TensorType(I8, [32, 16], DotOperandEncodingAttr(1, mma(), 4)))
    to_layout_reg = {0: 0, 2: 1, 1: 2, 3: 3}
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        row, index = f.source(lane, reg, byte)
        assert b.coords(0, lane, to_layout_reg[reg], byte) == (row, index)


def test_fp4_a_from_m8n16_x4_p64() -> None:
    """ptx.md §2.5: row m, K-half h at chunk 16h; lane l supplies row l & 15, half l >> 4 -> fp4Unpacked A."""
    f = form(M8N16, 4, False, P64)
    a = distributed_layout(TensorType(I8, [16, 16], DotOperandEncodingAttr(0, mma(), 2, True)))
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        row, value = f.source(lane, reg, byte)
        k = 16 * (row >> 4) + value
        assert a.coords(0, lane, reg, byte) == (row & 15, k // 2, k % 2)


def test_fp4_b_from_m8n16_x2_p64() -> None:
    """ptx.md §2.5: B (8 n-rows x 32 k), lane l < 16 supplies row l & 7, half (l >> 3) & 1 -> fp4Unpacked B."""
    f = form(M8N16, 2, False, P64)
    b = distributed_layout(TensorType(I8, [16, 8], DotOperandEncodingAttr(1, mma(), 2, True)))
    for lane, reg, byte in itertools.product(range(32), range(2), range(4)):
        row, value = f.source(lane, reg, byte)
        k = 16 * ((row >> 3) & 1) + value
        assert b.coords(0, lane, reg, byte) == (k // 2, row & 7, k % 2)


@pytest.mark.parametrize("swizzle", [(1, 1, 1), (16, 4, 2), (16, 1, 2)])
def test_fp4_padded_shared_through_ldmatrix_gives_fp4_unpacked(swizzle: tuple[int, int, int]) -> None:
    """The whole chain: row addresses are shared-layout offsets of packed column 8h; value v is nibble v & 1 of
    packed byte v >> 1 at that address; the result must be the fp4Unpacked A layout."""
    vec, per_phase, max_phase = swizzle
    buffer = shared_layout(MemDescType([16, 16], I8, SharedEncodingAttr(vec, per_phase, max_phase, [1, 0], True)))
    f = form(M8N16, 4, False, P64)
    a = distributed_layout(TensorType(I8, [16, 16], DotOperandEncodingAttr(0, mma(), 2, True)))
    address = {lane: buffer.offset((lane & 15, 8 * (lane >> 4))) for lane in f.address_lanes}
    assert all(addr % 16 == 0 for addr in address.values()), "each row address must be 16-byte aligned"
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        row, value = f.source(lane, reg, byte)
        packed = buffer.coords_at(address[row] + (value >> 1))
        assert packed is not None
        assert a.coords(0, lane, reg, byte) == (*packed, value & 1)
        assert all(buffer.is_padding(address[row] + 8 + p) for p in range(8))
