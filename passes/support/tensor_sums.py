"""Lowering of ``arith.addf`` on distributed tensors: an accumulator that adds each K step's dot.

A kernel may start each K step's dot from zero and add its result to the loop-carried sum
(``GemmConfig(promote=True)``): the tensor core then rounds only within the step, and the
sum across steps is an f32 addition that rounds to nearest. qdot-accelerate-matmul gives
both operands the accumulator's ``#qgpu.mma`` layout, so each thread adds its own
registers, one ``add.f32`` per register, and no value moves between threads.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, TensorType

from compiler.diagnostics import emit_error
from passes.support.builder import Builder
from passes.support.distributed import from_regs, to_regs


def lower_addf(op: arith.AddfOp) -> None:
    lhs_t = op.lhs.type  # arith.addf's operands and result have one type, layout included
    assert isinstance(lhs_t, TensorType)
    if not isinstance(lhs_t.get_element_type(), Float32Type):
        emit_error(op, f"arith.addf of distributed tensors adds f32, not {lhs_t.get_element_type()}")
    b = Builder.before(op)
    sums = [b.addf(x, y) for x, y in zip(to_regs(b, op.lhs), to_regs(b, op.rhs), strict=True)]
    op.result.replace_all_uses_with(from_regs(b, sums, op.result.type))
    op.detach()
    op.erase()
