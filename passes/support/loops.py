"""Growing an ``scf.for``'s loop-carried values (xDSL loops cannot gain block arguments in place)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


def add_iter_args(loop: scf.ForOp, inits: Sequence[SSAValue],
                  next_values: Callable[[list[BlockArgument], InsertPoint], list[SSAValue]]
                  ) -> tuple[scf.ForOp, list[BlockArgument]]:
    """Replace ``loop`` by one that also carries ``inits``; returns it and the new body arguments.

    The body moves to the new loop unchanged; ``next_values(args, at_yield)`` builds, before
    the yield, the values the new arguments take in the next iteration. Results of the old
    loop are replaced by the matching results of the new one."""
    body = loop.body.block
    new_block = Block(arg_types=[a.type for a in body.args] + [v.type for v in inits])
    for old, new in zip(body.args, new_block.args, strict=False):
        old.replace_all_uses_with(new)
    for op in list(body.ops):
        op.detach()
        new_block.add_op(op)
    added = list(new_block.args[len(body.args):])
    old_yield = new_block.last_op
    assert isinstance(old_yield, scf.YieldOp)
    following = next_values(added, InsertPoint.before(old_yield))
    Rewriter.replace_op(old_yield, scf.YieldOp(*old_yield.operands, *following))
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits], Region([new_block]))
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))
    for old, new in zip(loop.results, new_loop.results, strict=False):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase(safe_erase=False)
    return new_loop, added


__all__ = ["add_iter_args"]
