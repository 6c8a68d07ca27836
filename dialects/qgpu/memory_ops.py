"""qgpu ops that move data between global memory, shared memory and registers (Triton's ``ttg`` memory ops).

    %m = qgpu.local_alloc %t : (tensor<64x128xi8, #blocked>) -> !qgpu.memdesc<64x128xi8, #shared>
    %r = qgpu.local_alloc : () -> !qgpu.memdesc<3x64x128xi8, #shared, mutable>
    %s = qgpu.memdesc_index %r[%i] : !qgpu.memdesc<3x64x128xi8, #shared, mutable> -> !qgpu.memdesc<64x128xi8, #shared, mutable>
    qgpu.async_copy %desc[%o0, %o1], %s : !qdot.desc<64x128xi8>, !qgpu.memdesc<64x128xi8, #shared, mutable>
    qgpu.async_commit
    qgpu.async_wait {pending = 1}
    %v = qgpu.memdesc_trans %m {order = array<i64: 1, 0>} : !qgpu.memdesc<64x128xi8, #shared> -> !qgpu.memdesc<128x64xi8, #shared_t>
    %t = qgpu.local_load %m : !qgpu.memdesc<64x128xi8, #shared> -> tensor<64x128xi8, #qgpu.dot_op<...>>
    qgpu.local_store %t, %r : tensor<64x128xi8, #blocked>, !qgpu.memdesc<64x128xi8, #shared, mutable>

Element offsets of a buffer: ``dialects.qgpu.layouts.shared_layout``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, IntegerType, NoneAttr, TensorType,
                                   UnitAttr, i64)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.base import wait_count_problem
from dialects.qdot.kernel import IN_BOUNDS, check_in_bounds, in_bounds_dims
from dialects.qdot.types import DescType
from dialects.qgpu.encodings import DotOperandEncodingAttr, check_permutation
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout
from dialects.qgpu.types import MemDescType
from compiler.diagnostics import dims_text


def check_layout(what: str, tensor_type: Attribute) -> None:
    """The tensor's encoding must lay it out (layouts.py); the message names ``what``."""
    try:
        distributed_layout(tensor_type)
    except LayoutError as err:
        raise VerifyException(f"{what} layout: {err}") from None


def _check_whole_buffer(what: str, memdesc: MemDescType, rule: str) -> None:
    """``memdesc`` must be a ``#qgpu.shared`` buffer, not a ``#qgpu.block_part`` view of one: a view has no
    swizzle, stage dimensions or allocation of its own, which ``rule`` says this op needs."""
    if not memdesc.is_shared:
        raise VerifyException(f"{what} must have a #qgpu.shared encoding ({rule}), got {memdesc.encoding}")


def _check_same_tile(what: str, memdesc: MemDescType, tensor: Attribute) -> None:
    assert isinstance(tensor, TensorType)
    if tensor.get_shape() != memdesc.get_shape():
        raise VerifyException(
            f"{what} shape {dims_text(tensor.get_shape())} must equal the buffer shape {dims_text(memdesc.get_shape())}")
    if tensor.get_element_type() != memdesc.element_type:
        raise VerifyException(
            f"{what} element type {tensor.get_element_type()} must equal the buffer's {memdesc.element_type}")


@irdl_op_definition
class LocalAllocOp(IRDLOperation):
    """Allocate a shared-memory buffer, optionally filled from a register tensor (``ttg.local_alloc``).

    With ``src`` the buffer is immutable and has the tensor's shape; without it
    the buffer is ``mutable`` and may have leading pipeline-stage dimensions.
    """

    name = "qgpu.local_alloc"

    src = opt_operand_def(TensorType)
    result = result_def(MemDescType)

    traits = traits_def(MemoryAllocEffect(), MemoryWriteEffect())
    assembly_format = "($src^)? attr-dict `:` functional-type($src, $result)"

    def __init__(self, result_type: MemDescType, src: SSAValue | Operation | None = None):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        memdesc = self.result.type
        assert isinstance(memdesc, MemDescType)
        _check_whole_buffer("result", memdesc, "an allocation is a whole buffer; qgpu.block_part makes views of one")
        if self.src is None:
            if not memdesc.is_mutable:
                raise VerifyException("a buffer allocated without a source must be mutable (nothing else writes it)")
            return
        if memdesc.is_mutable:
            raise VerifyException("a buffer allocated from a source tensor is immutable; drop `mutable`")
        _check_same_tile("source", memdesc, self.src.type)
        assert isinstance(self.src.type, TensorType)
        if not isinstance(self.src.type.encoding, NoneAttr):
            check_layout("source", self.src.type)


@irdl_op_definition
class LocalLoadOp(IRDLOperation):
    """Load a whole buffer into registers with the result's layout (``ttg.local_load``).

    ``fallback`` asks the lowering for scalar ``ld.shared`` instead of
    ``ldmatrix``. Into an ``fp4Unpacked`` operand the source must be
    ``fp4Padded`` (what ``ldmatrix .b4x16_p64`` reads) unless ``fallback`` is set,
    in which case the lowering unpacks nibbles itself.
    """

    name = "qgpu.local_load"

    src = operand_def(MemDescType)
    fallback = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: TensorType, fallback: bool = False):
        properties: dict[str, Attribute] = {"fallback": UnitAttr()} if fallback else {}
        super().__init__(operands=[src], result_types=[result_type], properties=properties)

    @property
    def is_fallback(self) -> bool:
        return self.fallback is not None

    def verify_(self) -> None:
        memdesc = self.src.type
        assert isinstance(memdesc, MemDescType)
        _check_same_tile("result", memdesc, self.result.type)
        check_layout("result", self.result.type)
        encoding = self.result.type.encoding  # type: ignore[union-attr]
        if isinstance(encoding, DotOperandEncodingAttr) and encoding.fp4_unpacked:
            _check_whole_buffer("source", memdesc, "a load into an fp4Unpacked operand reads nibbles in the "
                                                   "operand's order; a block part pairs them as its format does")
            if not memdesc.shared.fp4_padded and not self.is_fallback:
                raise VerifyException(
                    "a load into an fp4Unpacked operand needs an fp4Padded source buffer (the layout "
                    "ldmatrix .b4x16_p64 reads) or the `fallback` attribute")


@irdl_op_definition
class LocalStoreOp(IRDLOperation):
    """Store a register tensor into a mutable buffer (``ttg.local_store``)."""

    name = "qgpu.local_store"

    value = operand_def(TensorType)
    dst = operand_def(MemDescType)

    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$value `,` $dst attr-dict `:` type($value) `,` type($dst)"

    def __init__(self, value: SSAValue | Operation, dst: SSAValue | Operation):
        super().__init__(operands=[value, dst])

    def verify_(self) -> None:
        memdesc = self.dst.type
        assert isinstance(memdesc, MemDescType)
        _check_whole_buffer("destination", memdesc, "a #qgpu.block_part view is read-only")
        if not memdesc.is_mutable:
            raise VerifyException("destination buffer must be mutable")
        _check_same_tile("value", memdesc, self.value.type)
        check_layout("value", self.value.type)


@irdl_op_definition
class AsyncCopyOp(IRDLOperation):
    """Start copying the tile at ``offsets`` of a global descriptor into a buffer (``cp.async``).

    Elements outside the descriptor's global shape are written as zero, like
    ``qdot.load``, whose ``in_bounds`` declaration it carries. ``if %active`` (an i1, the same in
    every thread): where it is false the copy reads nothing from global memory and leaves the
    buffer's contents undefined — qdot-pipeline's copies for K positions past the loop's end, which
    would otherwise read a tile nobody uses (the next K split's, inside the tensor), and under which
    a load's ``in_bounds`` declaration stays true. The copy completes after ``qgpu.async_commit`` and
    an ``qgpu.async_wait`` that leaves fewer groups pending.
    """

    name = "qgpu.async_copy"

    desc = operand_def(DescType)
    offsets = var_operand_def(IndexType())
    dst = operand_def(MemDescType)
    active = opt_operand_def(IntegerType(1))
    in_bounds = opt_prop_def(ArrayAttr)

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$desc `[` $offsets `]` `,` $dst (`if` $active^)? attr-dict `:` type($desc) `,` type($dst)"

    def __init__(self, desc: SSAValue | Operation, offsets: Sequence[SSAValue | Operation], dst: SSAValue | Operation,
                 in_bounds: ArrayAttr | None = None, active: SSAValue | Operation | None = None):
        super().__init__(operands=[desc, offsets, dst, active],
                         properties={IN_BOUNDS: in_bounds} if in_bounds else {})

    def in_bounds_dims(self) -> tuple[bool, ...]:
        desc = self.desc.type
        assert isinstance(desc, DescType)
        return in_bounds_dims(self.in_bounds, desc.rank)

    def verify_(self) -> None:
        desc, memdesc = self.desc.type, self.dst.type
        assert isinstance(desc, DescType) and isinstance(memdesc, MemDescType)
        if len(self.offsets) != desc.rank:
            raise VerifyException(f"expected one offset per descriptor dimension: {desc.rank}, got {len(self.offsets)}")
        _check_whole_buffer("destination", memdesc, "a #qgpu.block_part view is read-only")
        if not memdesc.is_mutable:
            raise VerifyException("destination buffer must be mutable")
        if desc.get_shape() != memdesc.get_shape():
            raise VerifyException(
                f"descriptor tile {dims_text(desc.get_shape())} must equal the buffer shape {dims_text(memdesc.get_shape())}")
        if desc.element_type != memdesc.element_type:
            raise VerifyException(
                f"descriptor element type {desc.element_type} must equal the buffer's {memdesc.element_type}")
        check_in_bounds(self.in_bounds, self.desc, self.offsets)


@irdl_op_definition
class AsyncCommitOp(IRDLOperation):
    """Close the current group of ``qgpu.async_copy`` ops (``cp.async.commit_group``)."""

    name = "qgpu.async_commit"

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """Wait until at most ``pending`` committed copy groups are in flight (``cp.async.wait_group``)."""

    name = "qgpu.async_wait"

    pending = prop_def(IntegerAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    @property
    def num_pending(self) -> int:
        return self.pending.value.data

    def verify_(self) -> None:
        if (problem := wait_count_problem(self.num_pending)) is not None:
            raise VerifyException(problem)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {{pending = {self.num_pending}")
        for name, attr in self.attributes.items():
            printer.print_string(f", {name} = ")
            printer.print_attribute(attr)
        printer.print_string("}")

    @classmethod
    def parse(cls, parser: Parser) -> AsyncWaitOp:
        start = parser.pos
        attributes = dict(parser.parse_optional_attr_dict())
        pending = attributes.pop("pending", None)
        if not isinstance(pending, IntegerAttr):
            parser.raise_error("qgpu.async_wait needs an integer `{pending = N}`", start, parser.pos)
        op = cls(pending.value.data)
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class MemDescIndexOp(IRDLOperation):
    """Select stage ``index`` of a buffer with leading stage dimension(s) (``ttg.memdesc_index``)."""

    name = "qgpu.memdesc_index"

    src = operand_def(MemDescType)
    index = operand_def(IndexType())
    result = result_def(MemDescType)

    traits = traits_def(Pure())
    assembly_format = "$src `[` $index `]` attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, index: SSAValue | Operation, result_type: MemDescType | None = None):
        source = SSAValue.get(src)
        if result_type is None:
            assert isinstance(source.type, MemDescType)
            result_type = source.type.with_shape(source.type.get_shape()[1:])
        super().__init__(operands=[source, index], result_types=[result_type])

    def verify_(self) -> None:
        src, result = self.src.type, self.result.type
        assert isinstance(src, MemDescType) and isinstance(result, MemDescType)
        _check_whole_buffer("source", src, "a #qgpu.block_part view has no stage dimension to index")
        if src.rank <= src.shared.rank:
            raise VerifyException(
                f"source {dims_text(src.get_shape())} has no stage dimension to index: its rank {src.rank} equals "
                f"the rank of its #qgpu.shared encoding")
        expected = src.with_shape(src.get_shape()[1:])
        if result != expected:
            raise VerifyException(f"result must be {expected} (the source without its leading dimension), got {result}")


@irdl_op_definition
class MemDescTransOp(IRDLOperation):
    """A transposed view of a buffer (``ttg.memdesc_trans``): result dim ``i`` is source dim ``order[i]``.

    No data moves: the result encoding names the same bytes (its ``order`` is the
    source's, renumbered), and keeps ``fp4Padded``.
    """

    name = "qgpu.memdesc_trans"

    src = operand_def(MemDescType)
    order = prop_def(DenseArrayBase)
    result = result_def(MemDescType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, order: Sequence[int], result_type: MemDescType | None = None):
        source = SSAValue.get(src)
        if result_type is None:
            assert isinstance(source.type, MemDescType)
            result_type = transposed_memdesc(source.type, order)
        super().__init__(operands=[source], result_types=[result_type],
                         properties={"order": DenseArrayBase.from_list(i64, order)})

    def permutation(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.order.get_values())

    def verify_(self) -> None:
        src, result = self.src.type, self.result.type
        assert isinstance(src, MemDescType) and isinstance(result, MemDescType)
        if self.order.elt_type != i64:
            raise VerifyException(f"order must be an i64 array, got element type {self.order.elt_type}")
        perm = self.permutation()
        _check_whole_buffer("source", src, "a #qgpu.block_part view's orientation is its valueDim, fixed by "
                                           "qgpu.block_part")
        if src.rank != src.shared.rank:
            raise VerifyException(
                f"source has stage dimensions (rank {src.rank}, encoding rank {src.shared.rank}); "
                f"select a stage with qgpu.memdesc_index first")
        check_permutation("order", perm, src.rank)
        expected = transposed_memdesc(src, perm)
        if result != expected:
            raise VerifyException(f"result must be {expected} (the source permuted by order), got {result}")


def transposed_memdesc(src: MemDescType, order: Sequence[int]) -> MemDescType:
    """The view of ``src`` with result dim ``i`` = source dim ``order[i]`` (same bytes)."""
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    shape = [src.get_shape()[d] for d in order]
    encoding = src.shared.with_order([inverse[d] for d in src.shared.dim_order])
    return src.with_shape(shape, encoding)
