"""qdot-optimize-dot-operands: stage a transposed operand before transposing it.

Decides where a transpose of a dot operand happens. ``qgpu.local_alloc(qdot.trans(x))``
would need the transpose done in registers before the tile reaches shared memory;
instead the untransposed tile is staged (``local_alloc(x)``, a plain global →
shared copy that ``qdot-pipeline`` can pipeline) and read through a transposed
view (``qgpu.memdesc_trans``), which costs nothing: the view's layout function
describes the same bytes with its dimensions swapped, so ``qdot-lower-local-load``
picks ``ldmatrix`` (or ``.trans``) against it. ``fp4Padded`` carries over to the
staged buffer, so the fp4 ldmatrix mode still applies (seed 003's
FuseTransMMAV3Plus extension). This is Triton's FuseTransMMAV3Plus. ``--remarks`` reports each
such staging at the transpose.

Lit tests: ``tests/lit/qdot-optimize-dot-operands/``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler import remarks
from dialects.qdot.kernel import TransOp
from dialects.qgpu.memory_ops import transposed_memdesc
from dialects.qgpu.ops import LocalAllocOp, MemDescTransOp
from dialects.qgpu.types import MemDescType


@dataclass(frozen=True)
class OptimizeDotOperandsPass(ModulePass):
    name = "qdot-optimize-dot-operands"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for alloc in [o for o in op.walk() if isinstance(o, LocalAllocOp)]:
            if alloc.src is None or not isinstance(alloc.src.owner, TransOp):
                continue
            trans = alloc.src.owner
            order = list(trans.permutation())
            view_type = alloc.result.type
            assert isinstance(view_type, MemDescType)
            if view_type.rank != view_type.shared.rank:  # leading stage dimensions: a transposed view of the
                continue  # staged tile would move them among the tile's, which the encoding cannot say
            inverse = [0] * len(order)
            for i, d in enumerate(order):
                inverse[d] = i
            staged_type = transposed_memdesc(view_type, inverse)
            source = trans.src
            assert isinstance(source.type, TensorType)
            staged = LocalAllocOp(staged_type, source)
            Rewriter.insert_op(staged, InsertPoint.before(alloc))
            view = MemDescTransOp(staged.result, order)
            Rewriter.insert_op(view, InsertPoint.before(alloc))
            if remarks.enabled(self.name):
                remarks.remark(trans, self.name, f"the {'x'.join(map(str, source.type.get_shape()))} tile staged as "
                                                 f"loaded and read through a transposed view (qgpu.memdesc_trans, "
                                                 f"order {order}): no transpose in registers")
            alloc.result.replace_all_uses_with(view.result)
            Rewriter.erase_op(alloc)
            if not trans.result.uses:
                Rewriter.erase_op(trans)
