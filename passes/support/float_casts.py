"""Lowering of ``arith.truncf`` on distributed tensors: the epilogue's f32 → bf16 / f16.

A GEMM that writes bf16 converts its f32 accumulator tile before the store. Both
tiles have the same layout (qdot-accelerate-matmul gives the 16-bit result the
accumulator's ``#qgpu.mma``), so no value moves between threads: each destination
register is a pair of the thread's own f32 registers, packed by one
``cvt.rn.bf16x2.f32`` (or ``.f16x2``), round to nearest even, as a bf16 store of the
f32 result would round. Which source register feeds each half comes from the two
layout functions, as for ``qgpu.upcast``.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, TensorType, i32

from compiler.diagnostics import emit_error
from dialects.ptx.attrs import CvtKind
from dialects.ptx.ops import BitcastOp, CvtOp
from dialects.qgpu.layouts import distributed_layout
from passes.support.builder import Builder
from passes.support.distributed import from_regs, to_regs

_PACK = {BFloat16Type: CvtKind.BF16X2_F32, Float16Type: CvtKind.F16X2_F32}


def lower_truncf(op: arith.TruncFOp) -> None:
    src_t, dst_t = op.input.type, op.result.type
    assert isinstance(src_t, TensorType) and isinstance(dst_t, TensorType)
    kind = _PACK.get(type(dst_t.get_element_type()))
    if not isinstance(src_t.get_element_type(), Float32Type) or kind is None:
        emit_error(op, f"arith.truncf of a distributed tensor converts f32 to bf16 or f16, not "
                       f"{src_t.get_element_type()} to {dst_t.get_element_type()}")
    src_l, dst_l = distributed_layout(src_t), distributed_layout(dst_t)
    source = _source_registers(op, src_l, dst_l)
    b = Builder.before(op)
    src = to_regs(b, op.input)
    out = []
    for reg in range(dst_l.regs_per_thread):
        lo, hi = source.get((reg, 0)), source.get((reg, 2))
        if lo is None or hi is None:
            emit_error(op, "arith.truncf of a distributed tensor needs a result layout with two elements in "
                           "every register")
        packed = b.emit(CvtOp(kind, [src[hi], src[lo]]))
        out.append(b.emit(BitcastOp(packed, i32)))
    op.result.replace_all_uses_with(from_regs(b, out, dst_t))
    op.detach()
    op.erase()


def _source_registers(op: arith.TruncFOp, src_l, dst_l) -> dict[tuple[int, int], int]:  # noqa: ANN001
    """(destination register, byte) → the thread's source register holding the same element,
    the same for every lane (checked on three), or a diagnostic."""
    found: dict[tuple[int, int], int] = {}
    for lane in (0, 5, 30):
        for reg, byte in dst_l.slots():
            coords = dst_l.coords(0, lane, reg, byte)
            assert coords is not None
            owners = [s for s in src_l.owners(coords) if s.warp == 0 and s.lane == lane]
            if not owners:
                emit_error(op, "arith.truncf of a distributed tensor needs the source and result layouts to give "
                               "every thread its own elements")
            if found.setdefault((reg, byte), owners[0].reg) != owners[0].reg:
                emit_error(op, "arith.truncf: the register mapping depends on the lane; unsupported layout pair")
    return found


__all__ = ["lower_truncf"]
