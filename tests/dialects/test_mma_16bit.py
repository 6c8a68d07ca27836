"""The 16-bit form of the #qgpu.mma layout (an accumulator converted to bf16/f16 for the epilogue).

It must give every element to the same thread as the 32-bit accumulator layout does
(so ``arith.truncf`` moves nothing between threads), pack the pair (c0, c1) and the pair
(c2, c3) of each 16×8 tile into one register each with the even column in the low half
(what ``cvt.rn.bf16x2.f32`` and a 4-byte store expect), and invert (``owners``) exactly.
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, TensorType, f32, i8

from dialects.qgpu.encodings import MmaEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout


@pytest.mark.parametrize("warps,shape", [((1, 1), (16, 8)), ((2, 2), (64, 32)), ((4, 2), (128, 64))])
@pytest.mark.parametrize("elem", [BFloat16Type(), Float16Type()])
def test_same_threads_two_per_register(warps, shape, elem) -> None:  # noqa: ANN001
    mma = MmaEncodingAttr(list(warps))
    wide = distributed_layout(TensorType(f32, list(shape), mma))
    narrow = distributed_layout(TensorType(elem, list(shape), mma))
    assert narrow.regs_per_thread * 2 == wide.regs_per_thread and narrow.elements_per_register == 2
    threads = warps[0] * warps[1]
    for warp in range(threads):
        for lane in range(32):
            held_wide = {c for _, _, c in wide.thread_coords(warp, lane)}
            held = list(narrow.thread_coords(warp, lane))
            assert {c for _, _, c in held} == held_wide
            for reg, byte, coords in held:
                # the pair: columns 2t (low half) and 2t + 1 (high half) of one row
                assert coords[1] % 2 == byte // 2
                owner = narrow.owners(coords)
                assert [(o.warp, o.lane, o.reg, o.byte) for o in owner] == [(warp, lane, reg, byte)]


def test_other_widths_refused() -> None:
    with pytest.raises(LayoutError, match="32-bit elements .* or 16-bit ones"):
        distributed_layout(TensorType(i8, [16, 8], MmaEncodingAttr([1, 1])))
