"""What ``qdot-accelerate-matmul``'s rewrites of a dot share: facts about its operand values and the IR steps
every plan takes.

Where a loaded tile is contiguous in global memory (``contiguous_dim``) decides how it is staged and whether
ldmatrix can read it; the operand stagings of one K step go first (``stage_operands_first``) so that all of its
global → shared copies issue together. Split out of the pass so that the ggml block dots
(``passes/support/block_dots.py``) and the float dots use one definition of each.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.qdot.kernel import LoadOp, MakeDescOp, TransOp
from dialects.qdot.kernel_attrs import num_warps
from dialects.qdot.ops import DotScaledOp
from dialects.qgpu.block_parts import BlockPartOp
from dialects.qgpu.ops import LocalAllocOp, LocalLoadOp, UpcastOp
from passes.support.analysis import constant_value, rows_back_to_back
from passes.support.distributed import function_of
from passes.support.stored_tiles import unit_stride_dim


def kernel_warps(op: Operation) -> int:
    """The warps of the kernel ``op`` is in (its function's ``qdot.num_warps``)."""
    return num_warps(function_of(op))


def stage_operands_first(dot: DotScaledOp, point: InsertPoint) -> None:
    """Stage every operand of the dot before reading any back, so all global → shared
    copies of a K step are issued together and the register loads follow them."""
    created: list[Operation] = []
    op = dot.prev_op
    while op is not None and isinstance(op, (LocalAllocOp, LocalLoadOp, UpcastOp, arith.ConstantOp, BlockPartOp)):
        created.append(op)
        op = op.prev_op
    created.reverse()
    first_load = next((o for o in created if not isinstance(o, LocalAllocOp)), None)
    if first_load is None:
        return
    staging = [o for o in created if isinstance(o, LocalAllocOp) and o.src is not None
               and not isinstance(o.src.owner, (LocalLoadOp, UpcastOp))]  # operands, not register → shared
    for alloc in staging:
        if created.index(alloc) > created.index(first_load):
            alloc.detach()
            Rewriter.insert_op(alloc, InsertPoint.before(first_load))


def contiguous_dim(value: SSAValue) -> int | None:
    """Which dimension of a loaded tile is contiguous in global memory (stride 1), if known."""
    owner = value.owner
    if isinstance(owner, TransOp):
        inner = contiguous_dim(owner.src)
        if inner is None:
            return None
        return list(owner.permutation()).index(inner)
    if isinstance(owner, LoadOp):
        return unit_stride_dim(owner.desc)
    return None


def one_contiguous_run(value: SSAValue) -> bool:
    """Whether a loaded 2-D tile is one contiguous run of global memory: unit stride along its rows and its rows back
    to back (``analysis.rows_back_to_back``), as ``tile_weights``' repacked order gives each program's K step."""
    owner = value.owner
    tensor = value.type
    if not isinstance(owner, LoadOp) or not isinstance(tensor, TensorType) or len(tensor.get_shape()) != 2:
        return False
    desc = owner.desc.owner
    if not isinstance(desc, MakeDescOp):
        return False
    row_stride, column_stride = desc.strides
    return constant_value(column_stride) == 1 and rows_back_to_back(row_stride, tensor.get_shape()[1])


def staged_dim(value: SSAValue, free: int | None = None) -> int:
    """The dimension an operand tile is staged contiguous along in shared memory.

    A tile loaded from global memory keeps its unit-stride dimension: its staging is a cp.async copy, which moves
    whole runs of bytes and cannot reorder them. Where that is not known (a function argument of pass-level IR: a
    kernel's dot operands are loaded, qdot-accelerate-matmul refuses others), the staging stores write from
    registers and any order is as cheap as any other, so the caller may choose (``free``: an fp4Unpacked operand
    asks for K, the only order the fp4 ldmatrix reads, as Triton's SM120 path stages it with
    ``allowTranspose=false``); without a choice, the tile's last dimension."""
    contiguous = contiguous_dim(value)
    if contiguous is not None:
        return contiguous
    if free is not None:
        return free
    tensor = value.type
    assert isinstance(tensor, TensorType)
    return len(tensor.get_shape()) - 1


def insert_at(point: InsertPoint, op: Operation) -> Operation:
    """Insert ``op`` at ``point`` and return it, for chaining ``.results``."""
    Rewriter.insert_op(op, point)
    return op


__all__ = ["contiguous_dim", "insert_at", "kernel_warps", "one_contiguous_run", "stage_operands_first", "staged_dim"]
