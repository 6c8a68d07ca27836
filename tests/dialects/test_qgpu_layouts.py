"""Properties every distributed layout must have, plus #qgpu.blocked and #qgpu.dot_scale against their definitions.

* ``owners`` inverts ``coords`` exactly (every slot that holds an element is among
  its owners, every owner holds it, every element has an owner);
* ``coord_exprs`` (what lowering builds index arithmetic from) evaluates to ``coords``;
* blocked and dot_scale match their formulas, written out here independently;
* encodings that do not fit a tensor raise ``LayoutError`` with the numbers.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from math import prod

import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IntegerType,
    TensorType,
)

from dialects.qgpu.encodings import (
    BlockedEncodingAttr,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    MmaEncodingAttr,
)
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import DistributedLayout, Slot, distributed_layout

I8 = IntegerType(8)
F32 = Float32Type()
F16 = Float16Type()
BF16 = BFloat16Type()
E4M3 = Float8E4M3FNType()
E8M0 = Float8E8M0FNUType()


def mma(wm: int, wn: int) -> MmaEncodingAttr:
    return MmaEncodingAttr([wm, wn])


def all_slots(layout: DistributedLayout):
    for warp, lane, reg, byte in itertools.product(range(layout.num_warps), range(32), range(layout.regs_per_thread),
                                                   range(4)):
        yield Slot(warp, lane, reg, byte)


def element_bounds(layout: DistributedLayout) -> Sequence[int]:
    return (*layout.shape, 2)[: layout.coord_rank]


LAYOUT_CASES = [
    ("mma 2x2", TensorType(F32, [64, 32], mma(2, 2))),
    ("mma 4x1 rep", TensorType(F32, [128, 16], mma(4, 1))),
    ("A i8 isa", TensorType(I8, [64, 64], DotOperandEncodingAttr(0, mma(2, 2), 4))),
    ("A i8 paired", TensorType(I8, [32, 64], DotOperandEncodingAttr(0, mma(2, 1), 8))),
    ("B i8 large-k", TensorType(I8, [128, 16], DotOperandEncodingAttr(1, mma(1, 2), 16))),
    ("A bf16", TensorType(BF16, [32, 32], DotOperandEncodingAttr(0, mma(1, 2), 2))),
    ("B f16 large-k", TensorType(F16, [64, 16], DotOperandEncodingAttr(1, mma(2, 2), 8))),
    ("A fp4 unpacked", TensorType(I8, [32, 32], DotOperandEncodingAttr(0, mma(2, 1), 2, True))),
    ("B fp4 unpacked paired", TensorType(I8, [32, 16], DotOperandEncodingAttr(1, mma(1, 2), 4, True))),
    ("B fp4 unpacked large-k", TensorType(I8, [64, 8], DotOperandEncodingAttr(1, mma(1, 1), 8, True))),
    ("scale A", TensorType(E8M0, [64, 3], DotScaleEncodingAttr(0, mma(2, 2)))),
    ("scale B", TensorType(E8M0, [32, 2], DotScaleEncodingAttr(1, mma(2, 2)))),
    ("scale B f32", TensorType(F32, [16, 4], DotScaleEncodingAttr(1, mma(1, 2)))),
    ("blocked", TensorType(I8, [64, 128], BlockedEncodingAttr([1, 16], [8, 4], [4, 1], [1, 0]))),
    ("blocked col-major", TensorType(F16, [32, 16], BlockedEncodingAttr([2, 2], [4, 8], [2, 2], [0, 1]))),
    ("blocked replicated", TensorType(F32, [4, 8], BlockedEncodingAttr([1, 4], [4, 8], [2, 1], [1, 0]))),
    ("blocked spt wraps", TensorType(I8, [2, 16], BlockedEncodingAttr([4, 1], [1, 32], [1, 1], [1, 0]))),
    ("blocked 3-d", TensorType(I8, [2, 8, 16], BlockedEncodingAttr([1, 1, 4], [2, 4, 4], [1, 2, 1], [2, 1, 0]))),
]


@pytest.fixture(params=LAYOUT_CASES, ids=[c[0] for c in LAYOUT_CASES])
def layout(request) -> DistributedLayout:
    return distributed_layout(request.param[1])


def test_owners_invert_coords(layout: DistributedLayout) -> None:
    holding: dict[tuple[int, ...], set[Slot]] = {}
    for slot in all_slots(layout):
        coords = layout.coords(*slot)
        if coords is not None:
            holding.setdefault(coords, set()).add(slot)
    every = list(itertools.product(*(range(n) for n in element_bounds(layout))))
    assert set(holding) == set(every), "every element is held, and nothing outside the tensor"
    for coords in every:
        owners = layout.owners(coords)
        assert owners == sorted(owners)
        assert set(owners) == holding[coords]


def test_coord_exprs_evaluate_to_coords(layout: DistributedLayout) -> None:
    for reg, byte in layout.slots():
        exprs = layout.coord_exprs(reg, byte)
        assert exprs is not None
        for warp, lane in itertools.product(range(layout.num_warps), range(32)):
            assert tuple(e.evaluate(warp, lane) for e in exprs) == layout.coords(warp, lane, reg, byte)


def test_element_bytes_start_on_element_boundaries(layout: DistributedLayout) -> None:
    for reg, byte in itertools.product(range(layout.regs_per_thread), range(4)):
        if byte % layout.elem_bytes:
            assert layout.coord_exprs(reg, byte) is None


def test_slots_out_of_range_raise(layout: DistributedLayout) -> None:
    """Refused by name (a bare IndexError is also what a list indexed past its end raises)."""
    slots = rf"outside {layout.num_warps} warps × 32 lanes × {layout.regs_per_thread} registers × 4 bytes$"
    with pytest.raises(IndexError, match=rf"^slot \(warp {layout.num_warps}, lane 0, reg 0, byte 0\) {slots}"):
        layout.coords(layout.num_warps, 0, 0, 0)
    with pytest.raises(IndexError, match=rf"^slot \(warp 0, lane 0, reg {layout.regs_per_thread}, byte 0\) {slots}"):
        layout.coords(0, 0, layout.regs_per_thread, 0)
    bounds = tuple(element_bounds(layout))
    with pytest.raises(IndexError, match=re.escape(f"coordinates {bounds} outside")):
        layout.owners(bounds)


# ---------------------------------------------------------------- #qgpu.blocked


def unravel(index: int, counts: Sequence[int], order: Sequence[int]) -> list[int]:
    """Split ``index`` over dimensions, ``order[0]`` fastest (Triton's convention for lanes, warps, elements)."""
    out = [0] * len(counts)
    for d in order:
        index, out[d] = divmod(index, counts[d])
    return out


def blocked_reference(shape, spt, tpw, wpc, order, warp: int, lane: int) -> list[tuple[int, ...]]:
    """The elements of one thread in register order: sizePerThread fastest, then repetitions, each along order."""
    cta = [s * t * w for s, t, w in zip(spt, tpw, wpc)]
    reps = [max(1, n // c) for n, c in zip(shape, cta)]
    lane_idx, warp_idx = unravel(lane, tpw, order), unravel(warp, wpc, order)
    out = []
    for r in range(prod(reps)):
        rep = unravel(r, reps, order)
        for s in range(prod(spt)):
            within = unravel(s, spt, order)
            out.append(tuple((rep[d] * cta[d] + warp_idx[d] * spt[d] * tpw[d] + lane_idx[d] * spt[d] + within[d])
                             % shape[d] for d in range(len(shape))))
    return out


BLOCKED_CASES = [
    ([64, 128], I8, [1, 16], [8, 4], [4, 1], [1, 0]),
    ([32, 16], F16, [2, 2], [4, 8], [2, 2], [0, 1]),
    ([4, 8], F32, [1, 4], [4, 8], [2, 1], [1, 0]),
    ([128], BF16, [4], [32], [2], [0]),
    ([2, 8, 16], I8, [1, 1, 4], [2, 4, 4], [1, 2, 1], [2, 1, 0]),
    ([16, 64], I8, [1, 4], [32, 1], [1, 4], [0, 1]),
]


@pytest.mark.parametrize("shape, elem, spt, tpw, wpc, order", BLOCKED_CASES)
def test_blocked_matches_triton_semantics(shape, elem, spt, tpw, wpc, order) -> None:
    layout = distributed_layout(TensorType(elem, shape, BlockedEncodingAttr(spt, tpw, wpc, order)))
    per_reg = 32 // (8 if elem == I8 else 16 if elem in (F16, BF16) else 32)
    for warp, lane in itertools.product(range(prod(wpc)), range(32)):
        expected = blocked_reference(shape, spt, tpw, wpc, order, warp, lane)
        got = [layout.coords(warp, lane, i // per_reg, (i % per_reg) * (4 // per_reg)) for i in range(len(expected))]
        assert got == expected


def test_blocked_examples_by_hand() -> None:
    """sizePerThread [1, 4], threadsPerWarp [8, 4], order [1, 0]: lane 1 holds row 0 columns 4..7."""
    row_major = distributed_layout(TensorType(I8, [8, 16], BlockedEncodingAttr([1, 4], [8, 4], [1, 1], [1, 0])))
    assert [row_major.coords(0, 1, 0, b) for b in range(4)] == [(0, 4), (0, 5), (0, 6), (0, 7)]
    assert row_major.coords(0, 4, 0, 0) == (1, 0)
    col_major = distributed_layout(TensorType(I8, [8, 16], BlockedEncodingAttr([1, 4], [8, 4], [1, 1], [0, 1])))
    assert col_major.coords(0, 1, 0, 0) == (1, 0) and col_major.coords(0, 8, 0, 0) == (0, 4)


def test_blocked_replication_lists_every_copy() -> None:
    """A 4x8 tensor over an 8x32 CTA tile wraps twice along rows (the 2 warps) and 4 times along columns."""
    layout = distributed_layout(TensorType(F32, [4, 8], BlockedEncodingAttr([1, 4], [4, 8], [2, 1], [1, 0])))
    owners = layout.owners((1, 5))
    assert len(owners) == 2 * 4
    assert all(layout.coords(*o) == (1, 5) for o in owners)


# ---------------------------------------------------------------- #qgpu.dot_scale


@pytest.mark.parametrize("wm, wn", [(1, 1), (2, 2), (4, 1), (1, 2)])
@pytest.mark.parametrize("blocks", [1, 2, 4])
def test_dot_scale_a_holds_the_rows_of_its_accumulator(wm: int, wn: int, blocks: int) -> None:
    rep = 2
    layout = distributed_layout(TensorType(E8M0, [16 * wm * rep, blocks], DotScaleEncodingAttr(0, mma(wm, wn))))
    acc = distributed_layout(TensorType(F32, [16 * wm * rep, 8 * wn], mma(wm, wn)))
    for warp, lane in itertools.product(range(wm * wn), range(32)):
        g = lane >> 2
        for rm, h, kb in itertools.product(range(rep), range(2), range(blocks)):
            e = (rm * 2 + h) * blocks + kb
            row = (warp % wm) * 16 + rm * 16 * wm + g + 8 * h
            assert layout.coords(warp, lane, e // 4, e % 4) == (row, kb)
        acc_rows = {c[0] for _, _, c in acc.thread_coords(warp, lane)}
        assert {c[0] for _, _, c in layout.thread_coords(warp, lane)} == acc_rows


@pytest.mark.parametrize("wm, wn", [(1, 1), (2, 2), (1, 4)])
@pytest.mark.parametrize("elem, per_reg", [(E8M0, 4), (F16, 2), (F32, 1)])
def test_dot_scale_b_holds_the_columns_of_its_accumulator(wm: int, wn: int, elem, per_reg: int) -> None:
    rep, blocks = 2, 3
    layout = distributed_layout(TensorType(elem, [8 * wn * rep, blocks], DotScaleEncodingAttr(1, mma(wm, wn))))
    acc = distributed_layout(TensorType(F32, [16 * wm, 8 * wn * rep], mma(wm, wn)))
    assert layout.regs_per_thread == -(-rep * 2 * blocks // per_reg)
    for warp, lane in itertools.product(range(wm * wn), range(32)):
        t = lane & 3
        for rn, h, kb in itertools.product(range(rep), range(2), range(blocks)):
            e = (rn * 2 + h) * blocks + kb
            col = (warp // wm) * 8 + rn * 8 * wn + 2 * t + h
            assert layout.coords(warp, lane, e // per_reg, (e % per_reg) * (4 // per_reg)) == (col, kb)
        acc_cols = {c[1] for _, _, c in acc.thread_coords(warp, lane)}
        assert {c[0] for _, _, c in layout.thread_coords(warp, lane)} == acc_cols


def test_dot_scale_pads_the_last_register() -> None:
    layout = distributed_layout(TensorType(E8M0, [16, 1], DotScaleEncodingAttr(0, mma(1, 1))))
    assert layout.regs_per_thread == 1
    assert layout.coords(0, 0, 0, 2) is None and layout.coords(0, 0, 0, 3) is None


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("tensor, message", [
    (TensorType(F32, [48, 16], mma(2, 1)), "dimension 0 (M) = 48 must be a multiple of 16·warpsPerCTA[0] = 32"),
    (TensorType(I8, [16, 8], mma(1, 1)), "32-bit elements (an f32 or i32 accumulator) or 16-bit ones"),
    (TensorType(I8, [16, 32], DotOperandEncodingAttr(0, mma(1, 1), 2)),
     "kWidth = 2 is not valid for 8-bit elements: it must be 4, 8 or 16"),
    (TensorType(BF16, [16, 32], DotOperandEncodingAttr(0, mma(1, 1), 16)),
     "kWidth = 16 is not valid for 16-bit elements: it must be 2, 4 or 8"),
    (TensorType(I8, [16, 16], DotOperandEncodingAttr(0, mma(1, 1), 1, True)),
     "kWidth = 1 is not valid for an fp4Unpacked operand"),
    (TensorType(E4M3, [16, 16], DotOperandEncodingAttr(0, mma(1, 1), 2, True)), "packed fp4 in i8"),
    (TensorType(I8, [16, 48], DotOperandEncodingAttr(0, mma(1, 1), 4)),
     "dimension 1 (K) of operand A = 48 must be a multiple of 32"),
    (TensorType(I8, [32, 8], DotOperandEncodingAttr(1, mma(1, 1), 16)),
     "dimension 0 (K) of operand B = 32 must be a multiple of 64"),
    (TensorType(I8, [32, 8], DotOperandEncodingAttr(1, mma(1, 2), 4)),
     "dimension 1 (N) of operand B = 8 must be a multiple of 8·warpsPerCTA[1] = 16"),
    (TensorType(F32, [16, 8], DotOperandEncodingAttr(0, mma(1, 1), 1)), "8- or 16-bit elements"),
    (TensorType(E8M0, [8, 1], DotScaleEncodingAttr(0, mma(1, 1))), "must be a multiple of 16·warpsPerCTA[0] = 16"),
    (TensorType(I8, [16, 16, 2], BlockedEncodingAttr([1, 1], [8, 4], [1, 1], [1, 0])), "rank 2"),
    (TensorType(I8, [24, 16], BlockedEncodingAttr([1, 1], [16, 2], [1, 1], [1, 0])),
     "dimension 0 = 24 must divide or be a multiple of the CTA tile"),
    (TensorType(I8, [16, 16]), "no qgpu layout encoding"),
])
def test_layout_errors_name_the_rule(tensor: TensorType, message: str) -> None:
    with pytest.raises(LayoutError) as info:
        distributed_layout(tensor)
    assert message in str(info.value)


def test_dot_scale_operand_side_follows_b_operand_columns() -> None:
    """With operand = true a B scale sits with the thread that holds the B column (n = g)."""
    from xdsl.dialects.builtin import Float8E8M0FNUType, TensorType

    from dialects.qgpu.encodings import DotOperandEncodingAttr, DotScaleEncodingAttr, MmaEncodingAttr
    from dialects.qgpu.layouts import distributed_layout

    mma = MmaEncodingAttr([2, 2])
    scales = distributed_layout(TensorType(Float8E8M0FNUType(), [32, 4], DotScaleEncodingAttr(1, mma, True)))
    operand = distributed_layout(TensorType(Float8E8M0FNUType(), [128, 32], DotOperandEncodingAttr(1, mma, 4)))
    for warp in range(4):
        for lane in range(32):
            columns = {c[1] for _, _, c in operand.thread_coords(warp, lane)}
            held = {c[0] for _, _, c in scales.thread_coords(warp, lane)}
            assert held == columns, (warp, lane, held, columns)
