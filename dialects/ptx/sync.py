"""Synchronization between the CTAs of one grid: a GPU-scope fence, a counting atomic, a voting barrier.

Three instructions are enough for the protocol ``qdot.last_arrival`` lowers to (the one CUDA's
cooperative-groups grid barrier uses, without its spin): the CTA meets at a barrier, a fence releases its
global stores, one thread bumps a counter in global memory and learns from the old value whether its CTA is
the last of those sharing the counter, a fence acquires what the counter's earlier writers released, and the
CTA's threads vote on the answer at a barrier that also orders their later loads. Every target qdot emits for
(sm_80 and later) has all three, so none of them carries a requirement.

    ptx.fence_acq_rel_gpu
    %old = ptx.atom_global_add %addr, %one if %first_thread : i32
    %any = ptx.bar_red_or %mine
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, result_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from dialects.ptx.base import I1, I32, I64, PtxInstruction


@irdl_op_definition
class FenceAcqRelGpuOp(PtxInstruction):
    """`fence.acq_rel.gpu` ([ISA] 9.7.13.4, sm_70+): the executing thread's memory operations before it
    are ordered before those after it for every thread of the GPU — a release for the stores before it,
    an acquire for the loads after it (CUDA's ``__threadfence()``)."""

    name = "ptx.fence_acq_rel_gpu"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()

    def ptx_mnemonic(self) -> str:
        return "fence.acq_rel.gpu"


@irdl_op_definition
class AtomGlobalAddOp(PtxInstruction):
    """`atom.global.add.u32` ([ISA] 9.7.13.5): add an i32 to a word of global memory atomically (relaxed,
    GPU scope) and return the word's old value; with a predicate, lanes whose predicate is false touch
    nothing and get 0.

        %old = ptx.atom_global_add %addr, %value if %first_thread : i32
    """

    name = "ptx.atom_global_add"
    address = operand_def(I64)
    value = operand_def(I32)
    predicate = opt_operand_def(I1)
    res = result_def(I32)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$address `,` $value (`if` $predicate^)? attr-dict `:` type($res)"

    def __init__(self, address: SSAValue, value: SSAValue, predicate: SSAValue | None = None):
        super().__init__(operands=[address, value, predicate], result_types=[I32])

    def ptx_mnemonic(self) -> str:
        return "atom.global.add.u32"


@irdl_op_definition
class BarRedOrOp(PtxInstruction):
    """`bar.red.or.pred` on barrier 0 ([ISA] 9.7.13.1): a CTA-wide barrier, like ``bar.sync 0``, that
    also returns to every thread whether any thread's predicate was true (CUDA's ``__syncthreads_or``).

        %any = ptx.bar_red_or %mine
    """

    name = "ptx.bar_red_or"
    predicate = operand_def(I1)
    res = result_def(I1)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$predicate attr-dict"

    def __init__(self, predicate: SSAValue):
        super().__init__(operands=[predicate], result_types=[I1])

    def ptx_mnemonic(self) -> str:
        return "bar.red.or.pred"


SYNC_OPS = [FenceAcqRelGpuOp, AtomGlobalAddOp, BarRedOrOp]
