"""#qgpu.shared offsets: swizzle, fp4 padding, stages, the inverse, and conflict-free parameter choice."""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects.builtin import BFloat16Type, Float32Type, IntegerType
from xdsl.utils.exceptions import VerifyException

from dialects.qgpu.encodings import SharedEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import allocation_bytes, conflict_free_swizzle, shared_encoding_for, shared_layout
from dialects.qgpu.memory_ops import transposed_memdesc
from dialects.qgpu.types import MemDescType

I8 = IntegerType(8)
BF16 = BFloat16Type()
F32 = Float32Type()


def memdesc(shape, elem, vec, per_phase, max_phase, order, fp4=False, mutable=False) -> MemDescType:
    return MemDescType(shape, elem, SharedEncodingAttr(vec, per_phase, max_phase, order, fp4), mutable)


CASES = [
    ("i8 128B rows", memdesc([64, 128], I8, 16, 1, 8, [1, 0])),
    ("i8 64B rows", memdesc([32, 64], I8, 16, 2, 4, [1, 0])),
    ("i8 col-major", memdesc([32, 16], I8, 16, 4, 2, [0, 1])),
    ("bf16 128B rows", memdesc([16, 64], BF16, 8, 1, 8, [1, 0])),
    ("f32 no swizzle", memdesc([8, 8], F32, 1, 1, 1, [1, 0])),
    ("fp4 padded", memdesc([16, 64], I8, 16, 1, 8, [1, 0], fp4=True)),
    ("fp4 padded K-rows", memdesc([32, 8], I8, 16, 4, 2, [0, 1], fp4=True)),
    ("stages", memdesc([3, 16, 64], I8, 16, 2, 4, [1, 0], mutable=True)),
    ("fp4 stages", memdesc([2, 8, 32], I8, 16, 2, 4, [1, 0], fp4=True, mutable=True)),
]


@pytest.fixture(params=CASES, ids=[c[0] for c in CASES])
def buffer(request) -> MemDescType:
    return request.param[1]


def test_offset_is_a_bijection_onto_non_padding_element_starts(buffer: MemDescType) -> None:
    layout = shared_layout(buffer)
    offsets = {}
    for coords in itertools.product(*(range(n) for n in buffer.get_shape())):
        offset = layout.offset(coords)
        assert offset % layout.elem_bytes == 0
        assert offset not in offsets, f"{coords} and {offsets.get(offset)} share byte {offset}"
        offsets[offset] = coords
        assert layout.coords_at(offset) == coords
    for offset in range(layout.allocation_bytes):
        got = layout.coords_at(offset)
        assert got == offsets.get(offset)
        if got is None:
            assert layout.is_padding(offset) or offset % layout.elem_bytes != 0
    real = len(offsets) * layout.elem_bytes
    padding = sum(layout.is_padding(o) for o in range(layout.allocation_bytes))
    assert real + padding == layout.allocation_bytes == allocation_bytes(buffer)


def test_fp4_padding_is_8_of_every_16_bytes() -> None:
    layout = shared_layout(memdesc([16, 64], I8, 16, 1, 8, [1, 0], fp4=True))
    assert layout.row_bytes == 128 and layout.allocation_bytes == 16 * 128
    for row in range(16):
        for chunk in range(8):
            base = row * 128 + chunk * 16
            pads = [layout.is_padding(base + i) for i in range(16)]
            assert pads == [False] * 8 + [True] * 8  # vec = 16 bytes keeps each 16-byte chunk whole
            data = [layout.coords_at(base + i) for i in range(8)]
            assert [c[0] for c in data] == [row] * 8
            start = data[0][1]
            assert start % 8 == 0 and [c[1] for c in data] == list(range(start, start + 8))


def test_fp4_padded_packed_byte_position_without_swizzle() -> None:
    layout = shared_layout(memdesc([4, 32], I8, 1, 1, 1, [1, 0], fp4=True))
    for row, col in itertools.product(range(4), range(32)):
        assert layout.offset((row, col)) == row * 64 + (col // 8) * 16 + col % 8


@pytest.mark.parametrize("vec, per_phase, max_phase", [(16, 1, 8), (16, 2, 4), (8, 1, 8), (32, 1, 4)])
def test_swizzle_formula(vec: int, per_phase: int, max_phase: int) -> None:
    """Triton's swizzle: phase = (row // perPhase) % maxPhase; chunk index XOR phase."""
    layout = shared_layout(memdesc([32, 128], I8, vec, per_phase, max_phase, [1, 0]))
    for row, col in itertools.product(range(32), range(128)):
        phase = (row // per_phase) % max_phase
        assert layout.offset((row, col)) == row * 128 + ((col // vec) ^ phase) * vec + col % vec


def test_bf16_vec_counts_elements() -> None:
    layout = shared_layout(memdesc([8, 64], BF16, 8, 1, 8, [1, 0]))
    assert layout.swizzle_bytes == 16
    for row, col in itertools.product(range(8), range(64)):
        assert layout.offset((row, col)) == row * 128 + (((2 * col) // 16) ^ row) * 16 + (2 * col) % 16


def test_stage_dimension_is_outermost() -> None:
    buffer = memdesc([3, 16, 64], I8, 16, 2, 4, [1, 0], mutable=True)
    layout = shared_layout(buffer)
    assert layout.buffer_bytes == 1024 and allocation_bytes(buffer) == 3 * 1024
    for stage, row, col in itertools.product(range(3), range(16), range(64)):
        assert layout.offset((stage, row, col)) == stage * 1024 + layout.offset((0, row, col))


def test_transposed_view_names_the_same_bytes() -> None:
    for fp4 in (False, True):
        buffer = memdesc([32, 64], I8, 16, 2, 4, [1, 0], fp4=fp4)
        view = transposed_memdesc(buffer, [1, 0])
        assert view.get_shape() == (64, 32) and view.shared.dim_order == (0, 1) and view.shared.fp4_padded == fp4
        src, dst = shared_layout(buffer), shared_layout(view)
        for row, col in itertools.product(range(32), range(64)):
            assert dst.offset((col, row)) == src.offset((row, col))


@pytest.mark.parametrize("row_bytes, expected", [
    (128, (16, 1, 8)), (64, (16, 2, 4)), (32, (16, 4, 2)), (256, (16, 1, 8)), (16, (16, 8, 1))])
def test_conflict_free_swizzle_parameters(row_bytes: int, expected: tuple[int, int, int]) -> None:
    swizzle = conflict_free_swizzle(row_bytes)
    assert (swizzle.vec, swizzle.per_phase, swizzle.max_phase) == expected


@pytest.mark.parametrize("row_bytes", [16, 32, 64, 128, 256, 512])
@pytest.mark.parametrize("elem, elem_bytes", [(I8, 1), (BF16, 2)])
def test_conflict_free_swizzle_spreads_ldmatrix_phases_over_all_banks(row_bytes: int, elem, elem_bytes: int) -> None:
    """8 consecutive rows reading the same 16-byte column chunk (one ldmatrix 8x8 matrix) hit 8 distinct bank groups."""
    cols = row_bytes // elem_bytes
    encoding = shared_encoding_for([64, cols], elem, [1, 0])
    layout = shared_layout(MemDescType([64, cols], elem, encoding))
    for first_row in range(0, 64, 8):
        for chunk in range(row_bytes // 16):
            groups = {(layout.offset((r, chunk * 16 // elem_bytes)) // 16) % 8 for r in range(first_row, first_row + 8)}
            assert len(groups) == 8


def test_conflict_free_swizzle_for_fp4_padded_rows() -> None:
    encoding = shared_encoding_for([64, 64], I8, [1, 0], fp4_padded=True)
    assert (encoding.vec_elems, encoding.per_phase, encoding.max_phase, encoding.fp4_padded) == (16, 1, 8, True)
    layout = shared_layout(MemDescType([64, 64], I8, encoding))
    for first_row in range(0, 64, 8):
        for chunk in range(8):
            groups = {(layout.offset((r, chunk * 8)) // 16) % 8 for r in range(first_row, first_row + 8)}
            assert len(groups) == 8


@pytest.mark.parametrize("shape, elem, args, message", [
    ([16, 32], I8, (16, 1, 8, [1, 0]), "a row must hold a multiple of 128 bytes; a row of this buffer holds 32"),
    ([16, 12], I8, (1, 1, 1, [1, 0], True), "fp4Padded needs rows of a multiple of 8 bytes"),
    ([16, 16], BF16, (8, 1, 1, [1, 0], True), "fp4Padded needs packed fp4 bytes"),
    ([16], I8, (1, 1, 1, [1, 0]), "cannot carry a #qgpu.shared encoding of rank 2"),
])
def test_memdesc_rejects_layouts_that_do_not_fit(shape, elem, args, message: str) -> None:
    with pytest.raises(VerifyException) as info:
        MemDescType(shape, elem, SharedEncodingAttr(*args))
    assert message in str(info.value)


def test_offsets_outside_the_buffer_raise() -> None:
    layout = shared_layout(memdesc([8, 16], I8, 1, 1, 1, [1, 0]))
    with pytest.raises(IndexError, match=r"^coordinates \(8, 0\) outside the buffer \[8, 16\]$"):
        layout.offset((8, 0))
    with pytest.raises(IndexError, match="^offset 128 outside the allocation of 128 bytes$"):
        layout.coords_at(128)
    assert isinstance(LayoutError("x"), VerifyException)


def test_ggml_blocks_sit_in_shared_memory_whole() -> None:
    """A !qdot.block<q4_K> element takes its 144 bytes (qdot formats table); registers refuse it."""
    from xdsl.dialects.builtin import TensorType

    from dialects.qdot.types import BlockType
    from dialects.qgpu.encodings import BlockedEncodingAttr
    from dialects.qgpu.layouts import distributed_layout

    block = BlockType("q4_K")
    layout = shared_layout(memdesc([16, 4], block, 1, 1, 1, [1, 0], mutable=True))
    assert layout.allocation_bytes == 16 * 4 * 144
    assert layout.offset((3, 2)) == 3 * 576 + 2 * 144 and layout.coords_at(3 * 576 + 2 * 144 + 1) is None
    with pytest.raises(LayoutError, match="8-, 16- or 32-bit elements"):
        distributed_layout(TensorType(block, [16, 4], BlockedEncodingAttr([1, 1], [8, 4], [1, 1], [1, 0])))
