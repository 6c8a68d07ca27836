"""Accumulator layout propagation after qdot-accelerate-matmul: a small remove-layout-conversions.

The pass gives each rewritten dot's accumulator the ``#qgpu.mma`` layout and bridges back to the surrounding IR
with ``qgpu.convert_layout``; this carries the layout through what the accumulator flows into instead — the K loop's
carried values, ``scf.if`` results, constants, casts, sums and stores — so no conversion (a trip through shared
memory) is left in a kernel. What cannot take a layout (a plain tensor at the qdot level, e.g. a function argument)
keeps a ``builtin.unrealized_conversion_cast``, as in MLIR's partial conversions.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerType,
    NoneAttr,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.diagnostics import emit_error
from dialects.qdot.kernel import StoreOp
from dialects.qgpu.encodings import BlockedEncodingAttr, MmaEncodingAttr
from dialects.qgpu.ops import ConvertLayoutOp
from passes.support.dot_operands import insert_at


CARRIED = (MmaEncodingAttr, BlockedEncodingAttr)
"""The layouts carried through loops, branches and sums: a dot's accumulator (#qgpu.mma) and a tile
loaded into registers (#qgpu.blocked, ``passes/support/loaded_tiles.py``: the stream-K fix-up's sum of
partial tiles)."""


def propagate_accumulator_layouts(func: FuncOp) -> None:
    """Carry the ``CARRIED`` layouts (#qgpu.mma, #qgpu.blocked) through loops and branches: retype loop-carried
    accumulators and tiles, fold layout conversions into constants, stores and each other."""
    changed = True
    while changed:
        changed = False
        for branch in [op for op in func.walk() if isinstance(op, scf.IfOp)]:
            changed |= _retype_if_results(branch)
        for loop in [op for op in func.walk() if isinstance(op, scf.ForOp)]:
            changed |= _retype_loop_carried(loop)
        changed |= _fold_conversions(func)
    _bridge_plain_tensors(func)


def _bridge_plain_tensors(func: FuncOp) -> None:
    """A conversion left between a plain tensor (no encoding: the qdot level, e.g. a
    function argument or result) and a layout is no layout change — the plain side has
    none yet — but a change of type system: it becomes ``builtin.unrealized_conversion_cast``,
    as in MLIR's partial conversions. Kernels never have one (their accumulators start
    from constants and end in stores, which take any layout)."""
    for cvt in [op for op in func.walk() if isinstance(op, ConvertLayoutOp)]:
        src, dst = cvt.src.type, cvt.result.type
        if not (has_layout(src) and has_layout(dst)):
            Rewriter.replace_op(cvt, UnrealizedConversionCastOp.get([cvt.src], [dst]))


def refuse_plain_meetings(func: FuncOp) -> None:
    """In a kernel, a bridge left from a plain tensor to a layout is a value no rule could lay out: a loop or branch
    that carries only constants (and sums of them) meeting a dot's accumulator or a loaded tile after it. A layout
    comes to such a value from the tile it meets inside the same loop or branch, not from a use after it; reported
    at the value's producer, before qdot-to-llvm would find the constant without a layout."""
    for cast in [op for op in func.walk() if isinstance(op, UnrealizedConversionCastOp)]:
        source, target = cast.inputs[0].type, cast.results[0].type
        if not (isinstance(source, TensorType) and not has_layout(source) and has_layout(target)):
            continue
        producer = cast.inputs[0].owner
        at = producer if isinstance(producer, Operation) else cast
        what = "its result" if isinstance(producer, Operation) else "this block argument"
        assert isinstance(target, TensorType)
        layout = "#qgpu.mma" if isinstance(target.encoding, MmaEncodingAttr) else "#qgpu.blocked"
        emit_error(at, f"qdot-accelerate-matmul: {what} ({source}) meets a tile in a register layout ({layout}) but "
                       "has none itself: a loop or branch that carries only constants takes no layout from a use after "
                       "it; start it from the loaded tile or the dot's result, or add them inside it")


def has_layout(tensor: Attribute) -> bool:
    return isinstance(tensor, TensorType) and not isinstance(tensor.encoding, NoneAttr)


def _retype_loop_carried(loop: scf.ForOp) -> bool:
    body = loop.body.block
    yield_op = body.last_op
    assert isinstance(yield_op, scf.YieldOp)
    changed = False
    for index, result in enumerate(loop.results):
        # the layout the loop carries: the one its body yields, or (a value passed through unchanged, or changed
        # by plain ops only) the one it starts from
        encoded = _carried_source(yield_op.operands[index]) or _carried_source(loop.iter_args[index])
        if encoded is None or result.type == encoded:
            continue
        plain = result.type
        arg = body.args[index + 1]
        # inside: the block argument becomes encoded; its old users see a conversion back
        Rewriter.replace_value_with_new_type(arg, encoded)
        new_arg = body.args[index + 1]
        back = ConvertLayoutOp(new_arg, plain)
        Rewriter.insert_op(back, InsertPoint.at_start(body))
        for use in list(new_arg.uses):
            if use.operation is not back:
                use.operation.operands[use.index] = back.results[0]
        yielded = yield_op.operands[index]
        cvt = yielded.owner
        if isinstance(cvt, ConvertLayoutOp) and cvt.src.type == encoded:
            yield_op.operands[index] = cvt.src
        else:  # folds into the conversion back (a value passed through) or stays, to be lowered or refused
            to_encoded = insert_at(InsertPoint.before(yield_op), ConvertLayoutOp(yielded, encoded))
            yield_op.operands[index] = to_encoded.results[0]
        # before: the init value is converted to the layout
        init = loop.iter_args[index]
        to_enc = ConvertLayoutOp(init, encoded)
        Rewriter.insert_op(to_enc, InsertPoint.before(loop))
        loop.operands[3 + index] = to_enc.results[0]
        # after: users of the loop result see a conversion back
        encode_result(loop, index, encoded)
        changed = True
    return changed


def _carried_source(value: SSAValue) -> TensorType | None:
    """The carried layout (``CARRIED``) ``value`` was converted from, if it is such a conversion."""
    cvt = value.owner
    if isinstance(cvt, ConvertLayoutOp) and isinstance(cvt.src.type, TensorType) \
            and isinstance(cvt.src.type.encoding, CARRIED):
        return cvt.src.type
    return None


def encode_result(op: Operation, index: int, encoded: TensorType) -> None:
    """Give result ``index`` of ``op`` the type ``encoded``; its users see a conversion back to
    the plain type it had, which later folds away."""
    result = op.results[index]
    plain = result.type
    Rewriter.replace_value_with_new_type(result, encoded)
    new_result = op.results[index]
    after = ConvertLayoutOp(new_result, plain)
    Rewriter.insert_op(after, InsertPoint.after(op))
    for use in list(new_result.uses):
        if use.operation is not after:
            use.operation.operands[use.index] = after.results[0]


def _retype_if_results(branch: scf.IfOp) -> bool:
    """An ``scf.if`` result that one branch yields from an #qgpu.mma accumulator takes that
    layout (a persistent kernel's ``scf.if`` that stores a finished tile and yields zeros, or
    else yields the accumulator); the other branch's value is converted to it, and users of the
    result see a conversion back, as for a loop-carried accumulator."""
    changed = False
    yields = [region.block.last_op for region in branch.regions if region.blocks]
    if len(yields) != 2 or not all(isinstance(y, scf.YieldOp) for y in yields):
        return False
    for index, result in enumerate(branch.results):
        carried = [source for yield_op in yields if (source := _carried_source(yield_op.operands[index]))]
        if len(carried) == 2 and carried[0] != carried[1]:  # each retyping would undo the other, without end
            emit_error(branch, f"qdot-accelerate-matmul: the branches of this scf.if yield result #{index} in two "
                               f"register layouts ({carried[0].encoding} and {carried[1].encoding}); give both "
                               "branches dots of one form (the same operand types), or keep the dots out of the "
                               "branches")
        encoded = carried[-1] if carried else None
        if encoded is None or result.type == encoded:
            continue
        for yield_op in yields:
            value = yield_op.operands[index]
            cvt = value.owner
            if isinstance(cvt, ConvertLayoutOp) and cvt.src.type == encoded:
                yield_op.operands[index] = cvt.src
            else:
                yield_op.operands[index] = insert_at(InsertPoint.before(yield_op),
                                                   ConvertLayoutOp(value, encoded)).results[0]
        encode_result(branch, index, encoded)
        changed = True
    return changed


def _fold_conversions(func: FuncOp) -> bool:
    changed = False
    for cvt in [op for op in func.walk() if isinstance(op, ConvertLayoutOp)]:
        if cvt.parent is None:
            continue
        src = cvt.src
        # convert(convert(x)) -> x or convert(x)
        inner = src.owner
        if isinstance(inner, ConvertLayoutOp):
            value = inner.src if inner.src.type == cvt.result.type else \
                insert_at(InsertPoint.before(cvt), ConvertLayoutOp(inner.src, cvt.result.type)).results[0]
            _replace_and_erase(cvt, value, inner)
            changed = True
            continue
        # a splat constant converts by re-encoding the constant
        if isinstance(inner, arith.ConstantOp) and isinstance(inner.value, DenseIntOrFPElementsAttr) \
                and _is_splat(inner.value):
            new_type = cvt.result.type
            assert isinstance(new_type, TensorType)
            const = insert_at(InsertPoint.before(cvt), arith.ConstantOp(_resplat(inner.value, new_type)))
            _replace_and_erase(cvt, const.results[0], inner)
            changed = True
            continue
        # an elementwise float conversion (the epilogue's f32 → bf16) of a value brought back to the
        # plain type: convert the encoded value instead, keeping its layout (16-bit #qgpu.mma)
        users = [u.operation for u in cvt.result.uses]
        casts = [u for u in users if isinstance(u, (arith.TruncFOp, arith.ExtFOp)) and has_layout(src.type)
                 and isinstance(u.result.type, TensorType) and not has_layout(u.result.type)]
        if casts:
            for cast in casts:
                plain = cast.result.type
                assert isinstance(plain, TensorType) and isinstance(src.type, TensorType)
                encoded = TensorType(plain.get_element_type(), plain.get_shape(), src.type.encoding)
                new = insert_at(InsertPoint.before(cast), type(cast)(src, encoded))
                back = insert_at(InsertPoint.before(cast), ConvertLayoutOp(new.results[0], plain))
                _replace_and_erase(cast, back.results[0])
            if not cvt.result.uses:
                Rewriter.erase_op(cvt)
            changed = True
            continue
        # a sum of the encoded value and another tensor (an accumulator that adds each K step's
        # dot, started from zero, to the loop-carried sum): add in the encoded layout
        sums = [u for u in users if isinstance(u, arith.AddfOp) and has_layout(src.type)
                and isinstance(src.type.encoding, CARRIED) and not has_layout(u.result.type)]
        if sums:
            for add in sums:
                assert isinstance(src.type, TensorType)
                lhs, rhs = (_encoded_operand(add, operand, cvt, src) for operand in (add.lhs, add.rhs))
                new = insert_at(InsertPoint.before(add), arith.AddfOp(lhs, rhs, flags=add.fastmath))
                back = insert_at(InsertPoint.before(add), ConvertLayoutOp(new.results[0], add.result.type))
                _replace_and_erase(add, back.results[0])
            if not cvt.result.uses:
                Rewriter.erase_op(cvt)
            changed = True
            continue
        # a store takes any distributed layout: store the encoded value directly
        if users and all(isinstance(u, StoreOp) for u in users) and has_layout(src.type) \
                and not isinstance(cvt.result.type.encoding, type(src.type.encoding)):
            for use in list(cvt.result.uses):
                use.operation.operands[use.index] = src
            Rewriter.erase_op(cvt)
            changed = True
            continue
        if not cvt.result.uses:
            Rewriter.erase_op(cvt)
            changed = True
    return changed


def _encoded_operand(add: arith.AddfOp, operand: SSAValue, cvt: ConvertLayoutOp, src: SSAValue) -> SSAValue:
    """``operand`` of ``add`` in ``src``'s layout: ``src`` itself where ``cvt`` brought it back to
    the plain type, else a conversion (which folds into a constant, or into the loop's block
    argument once the loop carries the encoded sum)."""
    if operand is cvt.results[0]:
        return src
    return insert_at(InsertPoint.before(add), ConvertLayoutOp(operand, src.type)).results[0]


def _replace_and_erase(op: Operation, value: SSAValue, dead: Operation | None = None) -> None:
    """Give ``op``'s users ``value``, erase ``op``, and erase ``dead`` too if nothing uses it any more."""
    op.results[0].replace_all_uses_with(value)
    Rewriter.erase_op(op)
    if dead is not None and not dead.results[0].uses:
        Rewriter.erase_op(dead)


def _is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    return attr.is_splat()


def _resplat(attr: DenseIntOrFPElementsAttr, new_type: TensorType) -> DenseIntOrFPElementsAttr:
    value = attr.get_values()[0]
    elem = new_type.get_element_type()
    if isinstance(elem, IntegerType):
        return DenseIntOrFPElementsAttr.from_list(new_type, [int(value)])
    return DenseIntOrFPElementsAttr.from_list(new_type, [float(value)])


__all__ = ["CARRIED", "encode_result", "has_layout", "propagate_accumulator_layouts", "refuse_plain_meetings"]
