"""Which byte of a per-16-values i8 tensor goes with each register of an mma operand.

q2_K's integer factors per 16 values — its 4-bit scale, which its upcast multiplies into the codes,
and its 4-bit min, which ``qgpu.mma … lhs_min`` repeats into a second mma's operand — arrive as
i8 ``[rows, K/16]`` in the operand scale layout (``#qgpu.dot_scale<…, operand = true>``), four to a
register. Each register of an s8 / u8 mma operand (kWidth 4) holds four consecutive k of one row (A)
or column (B), so one factor serves it; this asks the two layout functions which, instead of restating
the ISA's fragment arrangement.
"""

from __future__ import annotations

from dialects.qgpu.errors import LayoutError
from dialects.qgpu.mma_layouts import DotOperandLayout, DotScaleLayout

GROUP = 16
"""Values per integer factor."""


def group_slot(operand: DotOperandLayout, groups: DotScaleLayout, reg: int) -> tuple[int, int]:
    """(register, byte) of ``groups`` holding the factor of operand register ``reg``'s four values: the
    same in every lane (checked), else a ``LayoutError``."""
    k_dim = operand.k_dim
    found = None
    for lane in range(32):
        spots = set()
        for byte in range(4):
            coords = operand.coords(0, lane, reg, byte)
            if coords is None:
                raise LayoutError(f"operand register {reg} is not four values; a factor per {GROUP} needs kWidth 4")
            spots.add((coords[1 - k_dim], coords[k_dim] // GROUP))
        if len(spots) != 1:
            raise LayoutError(f"operand register {reg} holds values of two {GROUP}-value groups; unsupported layout")
        owners = [s for s in groups.owners(next(iter(spots))) if s.warp == 0 and s.lane == lane]
        if not owners:
            raise LayoutError(f"the factor of operand register {reg} is not held by its thread: the factors must be "
                              "in the operand scale layout of the operand's side")
        slot = (owners[0].reg, owners[0].byte)
        if found is None:
            found = slot
        elif slot != found:
            raise LayoutError(f"the factor slot of operand register {reg} depends on the lane; unsupported layout")
    assert found is not None
    return found
