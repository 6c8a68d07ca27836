"""The Triton-like kernel vocabulary of the qdot dialect.

A kernel is a ``func.func`` marked with the unit attribute ``qdot.kernel``
(and optionally ``qdot.num_warps = 4 : i64``) whose arguments are
``!qdot.ptr`` and ``index`` values. It uses ``scf.for`` and ``arith`` on
``index`` for index math and these ops for the rest:

    %pid = qdot.program_id x
    %n   = qdot.num_programs y
    %d   = qdot.make_desc %ptr, [%rows, %cols], [%stride0, %stride1]
           : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x128xf8E4M3FN>
    %t   = qdot.load %d[%o0, %o1] : !qdot.desc<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
    qdot.store %d[%o0, %o1], %t : !qdot.desc<64x128xf8E4M3FN>, tensor<64x128xf8E4M3FN>
    %u   = qdot.trans %t {order = array<i64: 1, 0>} : tensor<64x128xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
    %q   = qdot.quantize %x format = q8_1 : tensor<16x4096xf32> -> tensor<16x128x!qdot.block<q8_1>>
    %l   = qdot.last_arrival %counters[%tile], %splits : !qdot.ptr<i32>
    qdot.barrier

What the ``func.func`` itself carries (``qdot.kernel``, ``qdot.num_warps``, an argument's
``qdot.divisibility``, the lowering options) is ``dialects.qdot.kernel_attrs``'.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from dialects.qdot.attrs import Axis, AxisAttr, FormatAttr
from dialects.qdot.formats import Format, format_info
from dialects.qdot.types import BlockType, DescType, PtrType
from compiler.diagnostics import dims_text
from passes.support.builder import constant_value


def _axis_attr(axis: Axis | str | AxisAttr) -> AxisAttr:
    return axis if isinstance(axis, AxisAttr) else AxisAttr(Axis(axis))


@irdl_op_definition
class ProgramIdOp(IRDLOperation):
    """The index of this program (thread block) along a launch-grid axis (``tl.program_id``)."""

    name = "qdot.program_id"

    axis = prop_def(AxisAttr)
    result = result_def(IndexType())

    traits = traits_def(Pure())
    assembly_format = "$axis attr-dict"

    def __init__(self, axis: Axis | str | AxisAttr):
        super().__init__(result_types=[IndexType()], properties={"axis": _axis_attr(axis)})


@irdl_op_definition
class NumProgramsOp(IRDLOperation):
    """The number of programs along a launch-grid axis (``tl.num_programs``)."""

    name = "qdot.num_programs"

    axis = prop_def(AxisAttr)
    result = result_def(IndexType())

    traits = traits_def(Pure())
    assembly_format = "$axis attr-dict"

    def __init__(self, axis: Axis | str | AxisAttr):
        super().__init__(result_types=[IndexType()], properties={"axis": _axis_attr(axis)})


@irdl_op_definition
class MakeDescOp(IRDLOperation):
    """A tile descriptor over a row-major-or-strided global tensor (Triton's ``tl.make_tensor_descriptor``).

    ``shape`` is the global tensor's extent and ``strides`` its strides, both in
    elements of the pointee type (a block counts as one element), one per
    dimension of the tile. Loads and stores through the descriptor treat
    coordinates outside ``shape`` as out of bounds.
    """

    name = "qdot.make_desc"

    ptr = operand_def(PtrType)
    shape = var_operand_def(IndexType())
    strides = var_operand_def(IndexType())
    result = result_def(DescType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())
    assembly_format = "$ptr `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($ptr) `->` type($result)"

    def __init__(
        self,
        ptr: SSAValue | Operation,
        shape: Sequence[SSAValue | Operation],
        strides: Sequence[SSAValue | Operation],
        result_type: DescType,
    ):
        super().__init__(operands=[ptr, shape, strides], result_types=[result_type])

    def verify_(self) -> None:
        desc = self.result.type
        pointee = self.ptr.type.pointee
        assert isinstance(desc, DescType)
        if len(self.shape) != desc.rank:
            raise VerifyException(f"shape must have one value per tile dimension: {desc.rank}, got {len(self.shape)}")
        if len(self.strides) != desc.rank:
            raise VerifyException(
                f"strides must have one value per tile dimension: {desc.rank}, got {len(self.strides)}")
        if pointee != desc.element_type:
            raise VerifyException(
                f"descriptor element type must match the pointer's: {pointee}, got {desc.element_type}")


def _check_tile(what: str, desc: DescType, tensor: Attribute) -> None:
    assert isinstance(tensor, TensorType)
    if tensor.get_shape() != desc.get_shape():
        raise VerifyException(
            f"{what} must have the tile shape {dims_text(desc.get_shape())}, got {dims_text(tensor.get_shape())}")
    if tensor.get_element_type() != desc.element_type:
        raise VerifyException(
            f"{what} element type must match the descriptor's: {desc.element_type}, got {tensor.get_element_type()}")


def _check_offsets(desc: DescType, count: int) -> None:
    if count != desc.rank:
        raise VerifyException(f"expected one offset per tile dimension: {desc.rank}, got {count}")


IN_BOUNDS = "in_bounds"
"""The optional per-dimension ``[true, false]`` property of ``qdot.load`` and ``qgpu.async_copy``."""


def in_bounds_dims(attr: ArrayAttr | None, rank: int) -> tuple[bool, ...]:
    """The dimensions an ``in_bounds`` property declares inside the tensor (all False without one)."""
    if attr is None:
        return (False,) * rank
    return tuple(bool(flag.value.data) for flag in attr.data)  # type: ignore[attr-defined]


def check_in_bounds(attr: ArrayAttr | None, desc: SSAValue, offsets: Sequence[SSAValue]) -> None:
    """``in_bounds`` must hold one boolean per tile dimension, and a dimension declared in bounds whose
    origin and extent are constants must fit, origin + tile ≤ extent (MLIR's ``vector.transfer_read``
    has the same property); where they are not constants the declaration is the kernel writer's promise."""
    if attr is None:
        return
    desc_type = desc.type
    assert isinstance(desc_type, DescType)
    flags = attr.data
    if len(flags) != desc_type.rank or not all(isinstance(f, IntegerAttr) and f.type == IntegerType(1)
                                               for f in flags):
        raise VerifyException(f"in_bounds must hold one boolean per tile dimension ({desc_type.rank}), got {attr}")
    make = desc.owner
    if not isinstance(make, MakeDescOp):
        return
    for dim, (flag, offset, extent, tile) in enumerate(zip(in_bounds_dims(attr, desc_type.rank), offsets, make.shape,
                                                           desc_type.get_shape(), strict=True)):
        origin, size = constant_value(offset), constant_value(extent)
        if flag and isinstance(origin, int) and isinstance(size, int) and origin + tile > size:
            raise VerifyException(f"dimension {dim} is declared in bounds, but the tile's {tile} elements from "
                                  f"{origin} reach past the tensor's {size}")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Load the tile whose origin is at element ``offsets`` of the descriptor's global tensor.

    Rows and columns outside the global shape given to ``qdot.make_desc`` read
    as zero (all-zero bits; for blocks, an all-zero block), so ragged edges need
    no masks. ``{in_bounds = [true, false]}`` (MLIR's ``vector.transfer_read``
    convention) declares, per dimension, that the tile lies inside the tensor
    there in every execution: the copy then tests nothing along it (a tile of
    ``tile_weights``' padded order; the claim is the writer's, reads past the
    tensor are undefined). The result may carry a layout encoding. A tile a dot reads is staged
    in shared memory by qdot-accelerate-matmul; one that is only added, stored or
    carried by loops (a fix-up kernel's partial tiles) goes straight into registers
    in a ``#qgpu.blocked`` layout (``passes/support/loaded_tiles.py``).
    """

    name = "qdot.load"

    desc = operand_def(DescType)
    offsets = var_operand_def(IndexType())
    result = result_def(TensorType)
    in_bounds = opt_prop_def(ArrayAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$desc `[` $offsets `]` attr-dict `:` type($desc) `->` type($result)"

    def __init__(self, desc: SSAValue | Operation, offsets: Sequence[SSAValue | Operation], result_type: TensorType):
        super().__init__(operands=[desc, offsets], result_types=[result_type])

    def in_bounds_dims(self) -> tuple[bool, ...]:
        desc = self.desc.type
        assert isinstance(desc, DescType)
        return in_bounds_dims(self.in_bounds, desc.rank)

    def verify_(self) -> None:
        desc = self.desc.type
        assert isinstance(desc, DescType)
        _check_offsets(desc, len(self.offsets))
        _check_tile("result", desc, self.result.type)
        check_in_bounds(self.in_bounds, self.desc, self.offsets)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Store a tile at element ``offsets`` of the descriptor's global tensor.

    Elements outside the global shape given to ``qdot.make_desc`` are not written.
    With ``{reduce = "add"}`` (f32 tiles) each element is added to what memory holds,
    atomically (``red.global.add.f32``): split-K kernels let several programs
    accumulate one output tile, which must hold zeros before the first of them runs.
    Additions in a different order round differently, so such a result may change in
    its last bits from run to run.
    """

    name = "qdot.store"

    desc = operand_def(DescType)
    offsets = var_operand_def(IndexType())
    value = operand_def(TensorType)
    reduce = opt_prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$desc `[` $offsets `]` `,` $value attr-dict `:` type($desc) `,` type($value)"

    def __init__(
        self, desc: SSAValue | Operation, offsets: Sequence[SSAValue | Operation], value: SSAValue | Operation,
        reduce: str | None = None,
    ):
        super().__init__(operands=[desc, offsets, value],
                         properties={"reduce": StringAttr(reduce)} if reduce else {})

    def verify_(self) -> None:
        desc = self.desc.type
        assert isinstance(desc, DescType)
        _check_offsets(desc, len(self.offsets))
        _check_tile("value", desc, self.value.type)
        if self.reduce is not None:
            if self.reduce.data != "add":
                raise VerifyException(f"reduce must be \"add\", got \"{self.reduce.data}\"")
            value = self.value.type
            assert isinstance(value, TensorType)
            if value.get_element_type() != Float32Type():
                raise VerifyException(f"reduce = \"add\" stores f32 tiles, got {value.get_element_type()}")


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """Ask L2 for the bytes of the tile at element ``offsets`` of the descriptor's global tensor.

    A hint, no value: ``qdot-to-llvm`` lowers it to ``prefetch.global.L2``, one per 128-byte line the
    tile touches, spread over the program's threads; rows and columns outside the global shape are not
    asked for. Where a later copy of the same bytes would wait for DRAM, the prefetch starts the wait
    earlier — before a ``griddepcontrol.wait``, for an array marked ``qdot.not_written_by_previous_grid``
    (the decode GEMM's weights: ``MmqConfig.prefetch_steps``).

        qdot.prefetch %w_desc[%row, %c0] : !qdot.desc<64x1x!qdot.block<q4_K>>
    """

    name = "qdot.prefetch"

    desc = operand_def(DescType)
    offsets = var_operand_def(IndexType())

    # a write too: with read effects alone and no result an op is dead code to xDSL's DCE
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$desc `[` $offsets `]` attr-dict `:` type($desc)"

    def __init__(self, desc: SSAValue | Operation, offsets: Sequence[SSAValue | Operation]):
        super().__init__(operands=[desc, offsets])

    def verify_(self) -> None:
        desc = self.desc.type
        assert isinstance(desc, DescType)
        _check_offsets(desc, len(self.offsets))


@irdl_op_definition
class LastArrivalOp(IRDLOperation):
    """Whether this program is the last of ``count`` programs to arrive at counter ``index`` of ``counters``.

    The programs that share a counter — the K splits of one output tile — each store their part of the
    result, then arrive; exactly one of them, the last to arrive, gets true, and its loads after the op
    see every store the others made before theirs (a release by each arriving program, an acquire by the
    last). So the last program can sum the parts and store the tile itself, in a fixed order, where
    ``qdot.store {reduce = "add"}`` needs a zeroed output and adds in whatever order the programs finish,
    and a fix-up kernel needs a second launch. The last program also sets the counter back to 0: the
    counters must be zero before the first launch and are zero after each (``count`` programs must arrive
    at each counter a launch uses). The result is the same in every thread of the program.

        %last = qdot.last_arrival %counters[%tile], %splits : !qdot.ptr<i32>
        scf.if %last { ... }

    ``qdot-to-llvm`` lowers it to the arrival of CUDA's grid barrier, without the spin: ``bar.sync``,
    ``fence.acq_rel.gpu``, ``atom.global.add.u32`` by thread 0, ``fence.acq_rel.gpu``, ``bar.red.or.pred``
    with thread 0's verdict (``passes/support/last_arrival.py``).
    """

    name = "qdot.last_arrival"

    counters = operand_def(PtrType)
    index = operand_def(IndexType())
    count = operand_def(IndexType())
    result = result_def(IntegerType(1))

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$counters `[` $index `]` `,` $count attr-dict `:` type($counters)"

    def __init__(self, counters: SSAValue | Operation, index: SSAValue | Operation, count: SSAValue | Operation):
        super().__init__(operands=[counters, index, count], result_types=[IntegerType(1)])

    def verify_(self) -> None:
        counters = self.counters.type
        assert isinstance(counters, PtrType)
        if counters.pointee != IntegerType(32):
            raise VerifyException(f"counters must be !qdot.ptr<i32>, got {counters}")
        count = constant_value(self.count)
        if count is not None and count < 1:
            raise VerifyException(f"count must be at least 1, got {count}")


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Every thread of the program waits here, and the memory accesses its threads made before it — global ones
    included — are visible to all of them after it (CUDA's ``__syncthreads``, ``bar.sync 0``).

    Tile ops order their own shared-memory traffic; this is for what they cannot see: a tile stored to global
    memory that the same program's later copies read back (the activations a decode GEMM quantizes into its
    scratch rows before its K loop copies them).

        qdot.barrier
    """

    name = "qdot.barrier"

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class TransOp(IRDLOperation):
    """Permute the dimensions of a tensor (Triton's ``tt.trans``): result dim i is source dim ``order[i]``."""

    name = "qdot.trans"

    src = operand_def(TensorType)
    order = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, order: Sequence[int], result_type: TensorType | None = None):
        source = SSAValue.get(src)
        if result_type is None:
            assert isinstance(source.type, TensorType)
            shape = source.type.get_shape()
            result_type = TensorType(source.type.get_element_type(), [shape[i] for i in order])
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"order": DenseArrayBase.from_list(i64, order)},
        )

    def permutation(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.order.get_values())

    def verify_(self) -> None:
        if self.order.elt_type != i64:
            raise VerifyException(f"order must be an i64 array, got element type {self.order.elt_type}")
        order = self.permutation()
        src, res = self.src.type, self.result.type
        assert isinstance(src, TensorType) and isinstance(res, TensorType)
        rank = src.get_num_dims()
        if sorted(order) != list(range(rank)):
            raise VerifyException(
                f"order must be a permutation of [0, {rank}) for a rank-{rank} source, got {dims_text(order)}")
        expected = tuple(src.get_shape()[i] for i in order)
        if res.get_shape() != expected:
            raise VerifyException(
                f"result must have shape {dims_text(expected)} (source {dims_text(src.get_shape())} permuted by "
                f"{dims_text(order)}), got {dims_text(res.get_shape())}")
        if res.get_element_type() != src.get_element_type():
            raise VerifyException(
                f"result element type must match the source's: {src.get_element_type()}, got {res.get_element_type()}")


QUANTIZE_FORMATS = (Format.Q8_1, Format.Q8_1_MMQ)


@irdl_op_definition
class QuantizeOp(IRDLOperation):
    """Quantize f32 values to q8_1 (or q8_1_mmq) blocks along the last dimension.

    Per block of ``bv`` consecutive values (32 for q8_1, 128 for q8_1_mmq, whose
    scales are kept per 32 values) this is llama.cpp's ``quantize_q8_1``:
    ``amax = max |x|``, ``d = amax / 127``, ``q = roundf(x / d)`` (0 when
    ``amax = 0``), ``s = Σ x`` over the 32 values, with d and s stored as f16
    in the block. q8_1_mmq is ggml's ``block_q8_1_mmq`` in its DS4 layout (one
f16 d and one f16 s per 32 values in the 16-byte header, then 128 int8
values), the layout MMQ reads for q4_K weights. Activations are quantized once per GEMM with this op, then
    fed to ``qdot.dot_scaled`` against q4_K/q8_0 weights.
    """

    name = "qdot.quantize"

    src = operand_def(TensorType)
    format = prop_def(FormatAttr)
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$src `format` `=` $format attr-dict `:` type($src) `->` type($result)"

    def __init__(
        self, src: SSAValue | Operation, fmt: Format | str = Format.Q8_1, result_type: TensorType | None = None
    ):
        source = SSAValue.get(src)
        fmt = Format(fmt)
        if result_type is None:
            assert isinstance(source.type, TensorType)
            *lead, last = source.type.get_shape()
            block_values = format_info(fmt).values_per_element
            result_type = TensorType(BlockType(fmt), [*lead, last // block_values])
        super().__init__(operands=[source], result_types=[result_type], properties={"format": FormatAttr(fmt)})

    def verify_(self) -> None:
        fmt = self.format.data
        if fmt not in QUANTIZE_FORMATS:
            choices = " or ".join(QUANTIZE_FORMATS)
            raise VerifyException(f"format must be {choices}, got {fmt}")
        src, res = self.src.type, self.result.type
        assert isinstance(src, TensorType) and isinstance(res, TensorType)
        if src.get_element_type() != Float32Type():
            raise VerifyException(f"source must have element type f32, got {src.get_element_type()}")
        if src.get_num_dims() == 0:
            raise VerifyException("source must have rank 1 or more, got rank 0")
        if any(d < 0 for d in src.get_shape()):
            raise VerifyException(f"source must have a static shape, got {src}")
        if res.get_element_type() != BlockType(fmt):
            raise VerifyException(
                f"result must have element type {BlockType(fmt)}, got {res.get_element_type()}")
        block_values = format_info(fmt).values_per_element
        *lead, last = src.get_shape()
        if last % block_values:
            raise VerifyException(
                f"source last dimension {last} must be a multiple of {block_values}, the {fmt} block size")
        expected = (*lead, last // block_values)
        if res.get_shape() != expected:
            raise VerifyException(
                f"result must have shape {dims_text(expected)} ({last} / {block_values} blocks in the last "
                f"dimension), got {dims_text(res.get_shape())}")
