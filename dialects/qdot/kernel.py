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
    UnitAttr,
    i64,
)
from xdsl.dialects.func import FuncOp
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

from dialects.ptx.memory import l2_prefetch_problem
from dialects.qdot.attrs import Axis, AxisAttr, FormatAttr
from dialects.qdot.formats import Format, format_info
from dialects.qdot.types import BlockType, DescType, PtrType
from compiler.diagnostics import dims_text
from compiler.pipelines import Q4K_FOLDS
from passes.support.builder import constant_value

KERNEL_ATTR = "qdot.kernel"
"""Unit attribute on a ``func.func`` that makes it a qdot kernel."""
NUM_WARPS_ATTR = "qdot.num_warps"
"""Optional ``i64`` attribute on a kernel: warps per program (thread block)."""
DEFAULT_NUM_WARPS = 4
DIVISIBILITY_ATTR = "qdot.divisibility"
"""Optional ``i64`` attribute on an index argument of a kernel: a power of two the argument is
always a multiple of (Triton's ``tt.divisibility``). Lowering relies on it (16-byte copies,
paired stores), so the runner refuses a launch whose argument breaks it."""
WAIT_PREVIOUS_GRID_ATTR = "qdot.wait_previous_grid"
"""Optional unit attribute on a kernel (sm_90+): it starts with ``griddepcontrol.wait``, so a
launch with programmatic stream serialization (``launch(..., programmatic=True)``) may start it
while the previous kernel of the stream runs — it waits for that kernel to finish and flush
before its first instruction, and its launch and set-up overlap the other's tail."""
NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR = "qdot.not_written_by_previous_grid"
"""Optional unit attribute on a ``!qdot.ptr`` argument of a kernel with ``qdot.wait_previous_grid``: the
array is final before the previous kernel of the stream starts (that kernel, and anything that runs
beside it, leaves it alone), so the kernel may read it before ``griddepcontrol.wait``. qdot-to-llvm
then places the wait after the kernel's first reads of such arrays, before its first access of any
other memory (``passes/support/grid_wait.py``): a GEMM's weight copies go out while the quantize
kernel before it still runs. Only reads move: a store through the pointer still waits."""
LAUNCH_DEPENDENTS_ATTR = "qdot.launch_dependents"
"""Optional unit attribute on a kernel (sm_90+): it starts with
``griddepcontrol.launch_dependents``, so the next kernel of the stream, launched
programmatically, may be scheduled at once (its ``griddepcontrol.wait`` still waits for this
kernel to complete)."""
L2_PREFETCH_ATTR = "qdot.l2_prefetch"
"""Optional ``i64`` attribute on a kernel: 64, 128 or 256. Every ``cp.async`` of the kernel carries
the L2 prefetch-size hint ``.L2::<n>B`` (sm_80+, PTX ISA 7.4): on a miss, L2 fetches the whole
aligned n-byte block around the request from DRAM, not just the sectors asked for. It pays in a
kernel that reads its rows in pieces ending mid-line (the q4_K decode kernel copies 144 bytes of
each weight row per K step: ``MmqConfig.l2_prefetch``) and wastes DRAM bandwidth where the extra
bytes go unused, so it is a per-kernel choice, not a default. It changes no value the kernel
computes."""


UNGUARDED_COPIES_ATTR = "qdot.unguarded_copies"
"""Optional unit attribute on a kernel: ``qdot-pipeline`` leaves its K-split loops' copies ahead as a loop
from 0's are, as ``qdot-pipeline{guard-copies=false}`` does for every kernel: past the share's end they take
the share's last tile again instead of being skipped. The choice travels with the kernel
(``MmqConfig.guard_copies``), so a kernel the guard slows can keep the old form under the default pipeline,
which is what its users compile with. It changes no value the kernel computes."""


PAD_BLOCK_ROWS_ATTR = "qdot.pad_block_rows"
"""Optional unit attribute on a kernel: ``qdot-accelerate-matmul`` pads the rows of its staged ggml block tiles as
its ``pad-block-rows=true`` does for every kernel (16 bytes after each row whose pitch is an even number of 16-byte
groups: the q8_1_mmq activation tile's ldmatrix and d / s reads free of bank conflicts). The choice travels with the
kernel (``MmqConfig.pad_block_rows``): run 317 (an H200) found it faster for q4_K's repacked one-token kernel and
1.10 × slower for the 8-token kernel at M = 8, N = 32768. It changes no value the kernel computes."""
SWIZZLE_FOLD_BUFFERS_ATTR = "qdot.swizzle_fold_buffers"
"""Optional unit attribute on a kernel: ``qdot-accelerate-matmul`` swizzles its dmin mma's f16 operand buffers as
its ``swizzle-fold-buffers=true`` does for every kernel. The choice travels with the kernel
(``MmqConfig.swizzle_fold_buffers``): run 317 (an H200) found q4_K's repacked 8-token kernel 0.91–1.01 × its time
with it and the prefill kernel 1.00–1.01 ×. It changes no value the kernel computes."""

BROADCAST_RHS_ATTR = "qdot.broadcast_rhs"
"""Optional unit attribute on a kernel that stores column 0 of its dots' results alone (a one-token decode kernel,
``MmqConfig(max_m=1, broadcast_rhs=True)``): ``qdot-accelerate-matmul`` reads each ggml block dot's rhs tile (the
tokens) as its first row in every column, so the eight row addresses of each ``ldmatrix`` of its quants are one
(one shared-memory wavefront instead of two: rows r and r + 4 of the 288-byte activation rows share a bank group)
and its d / s reads one address per warp. Unlike the other layout attributes it changes values: every column of
each dot's result is then column 0's, so a kernel that stores another column must not carry it. Run 319 (an H100)
timed q4_K's repacked one-token kernel with it at 1.00–1.03 × the time of the padded form (``qdot.pad_block_rows``)
that ``choose_mmq`` takes, so nothing chooses it yet."""


Q4K_FOLD_ATTR = "qdot.q4k_fold"
"""Optional string attribute on a kernel, ``"mma"`` or ``"fma"``: how ``qdot-accelerate-matmul`` applies the min
term of the kernel's q4_K, q5_K, q4_1 or q5_1 × q8_1_mmq dots where the pass's ``q4k-fold`` is ``auto`` (an explicit
``q4k-fold=`` applies to every kernel of the module). The choice travels with the kernel (``MmqConfig.q4k_fold``):
the one-token decode kernels were timed with the FMA form, which ``auto`` never takes for q4_K and q5_K (it takes
the mma in both operand orders). Both forms add the same products, in another order."""
Q4K_FOLD_VALUES = tuple(fold for fold in Q4K_FOLDS if fold != "auto")
"""What ``qdot.q4k_fold`` takes: the pass option's values but ``auto``, which is the attribute's absence."""


MIN_BLOCKS_PER_SM_ATTR = "qdot.min_blocks_per_sm"
"""Optional ``i64`` attribute on a kernel: ask ptxas for this many resident programs per SM
(``.minnctapersm``, which caps the registers per thread)."""
ARG_KINDS_ATTR = "qdot.arg_kinds"
"""Written by ``qdot-to-llvm`` on a kernel: what the runner passes for each argument."""
SHARED_BYTES_ATTR = "qdot.shared_bytes"
"""Written by ``qdot-to-llvm`` on a kernel: its dynamic shared memory in bytes."""

_UNIT_ATTRS = (KERNEL_ATTR, WAIT_PREVIOUS_GRID_ATTR, LAUNCH_DEPENDENTS_ATTR, UNGUARDED_COPIES_ATTR, PAD_BLOCK_ROWS_ATTR,
               SWIZZLE_FOLD_BUFFERS_ATTR, BROADCAST_RHS_ATTR)
ARGUMENT_ATTRS = (DIVISIBILITY_ATTR, NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR)
"""Every ``qdot.*`` attribute a kernel argument may carry."""
_COUNT_ATTRS = (NUM_WARPS_ATTR, MIN_BLOCKS_PER_SM_ATTR)
_COUNT_LIMIT = 32
"""At most 32 warps per program (1024 threads, the limit of CUDA and Metal alike) and 32
resident programs per SM (sm_80 … sm_120's limit); beyond either, LLVM's NVPTX back end stops
the process on the kernel's annotations."""
KERNEL_ATTRS = (*_UNIT_ATTRS, *_COUNT_ATTRS, L2_PREFETCH_ATTR, Q4K_FOLD_ATTR, ARG_KINDS_ATTR, SHARED_BYTES_ATTR)
"""Every ``qdot.*`` attribute a ``func.func`` may carry. (The passes read ``qdot.num_warps`` of any
function, kernel or not, so these are not kernel-only here; the LLVM emitter refuses a launch
bound on a function that is not a kernel.)"""


def kernel_attribute_problem(func: FuncOp) -> str | None:
    """What is wrong with the ``qdot.*`` attributes of ``func`` and of its arguments, or None.

    They are discardable attributes, which no op definition checks, so the verifier asks this
    of every function: a misspelt kernel attribute would otherwise be ignored in silence (a
    kernel compiled without the option asked for), and a malformed one found only by the pass
    that reads it, or never."""
    attrs = func.attributes
    for name, attr in attrs.items():
        if not name.startswith("qdot."):
            continue
        if name not in KERNEL_ATTRS:
            return f"unknown kernel attribute '{name}'; a function takes {', '.join(KERNEL_ATTRS)}"
        if name in _UNIT_ATTRS and not isinstance(attr, UnitAttr):
            return f"{name} is a unit attribute (it takes no value), got {attr}"
        if name in _COUNT_ATTRS and not (isinstance(attr, IntegerAttr) and 1 <= attr.value.data <= _COUNT_LIMIT):
            return f"{name} must be an integer from 1 to {_COUNT_LIMIT}, got {attr}"
        if name == L2_PREFETCH_ATTR:
            try:
                l2_prefetch(func)
            except ValueError as err:
                return str(err)
        if name == Q4K_FOLD_ATTR and not (isinstance(attr, StringAttr) and attr.data in Q4K_FOLD_VALUES):
            return f"{name} must be one of {', '.join(map(repr, Q4K_FOLD_VALUES))} (a string), got {attr}"
    if func.arg_attrs is None:
        return None
    for index, arg_attrs in enumerate(func.arg_attrs.data):
        for name, attr in arg_attrs.data.items():
            if not name.startswith("qdot."):
                continue
            if name not in ARGUMENT_ATTRS:
                return f"unknown attribute '{name}' on argument {index}; an argument takes {', '.join(ARGUMENT_ATTRS)}"
            if name == NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR:
                if (problem := _not_written_problem(func, index, attr)) is not None:
                    return problem
                continue
            value = attr.value.data if isinstance(attr, IntegerAttr) else 0
            if value < 1 or value & (value - 1):
                return f"{DIVISIBILITY_ATTR} of argument {index} must be a power of two, got {attr}"
            if not isinstance(func.function_type.inputs.data[index], (IndexType, IntegerType)):
                return (f"{DIVISIBILITY_ATTR} applies to integer arguments; argument {index} is "
                        f"{func.function_type.inputs.data[index]}")
    return None


def _not_written_problem(func: FuncOp, index: int, attr: Attribute) -> str | None:
    name = NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR
    if not isinstance(attr, UnitAttr):
        return f"{name} on argument {index} is a unit attribute (it takes no value), got {attr}"
    if not isinstance(func.function_type.inputs.data[index], PtrType):
        return f"{name} applies to pointer arguments; argument {index} is {func.function_type.inputs.data[index]}"
    if WAIT_PREVIOUS_GRID_ATTR not in func.attributes:
        return (f"{name} on argument {index} says when the kernel may read the array, relative to its "
                f"griddepcontrol.wait, and this kernel has none: add {WAIT_PREVIOUS_GRID_ATTR} or remove it")
    return None


def not_written_by_previous_grid(func: FuncOp) -> tuple[int, ...]:
    """The indices of the arguments marked ``qdot.not_written_by_previous_grid``."""
    if func.arg_attrs is None:
        return ()
    return tuple(index for index, attrs in enumerate(func.arg_attrs.data)
                 if NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR in attrs.data)


def is_kernel(func: FuncOp) -> bool:
    return KERNEL_ATTR in func.attributes


def num_warps(func: FuncOp) -> int:
    """The kernel's ``qdot.num_warps``, or ``DEFAULT_NUM_WARPS`` when it has none."""
    attr = func.attributes.get(NUM_WARPS_ATTR)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return DEFAULT_NUM_WARPS


def l2_prefetch(func: FuncOp) -> int | None:
    """The kernel's ``qdot.l2_prefetch`` in bytes, None when it has none; ValueError saying what
    is wrong with any other attribute of that name (the passes report it at the kernel)."""
    attr = func.attributes.get(L2_PREFETCH_ATTR)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr):
        raise ValueError(f"{L2_PREFETCH_ATTR} must be an integer 64, 128 or 256 (bytes), got {attr}")
    if (problem := l2_prefetch_problem(attr.value.data, L2_PREFETCH_ATTR)) is not None:
        raise ValueError(problem)
    return attr.value.data


def kernel_q4k_fold(func: FuncOp) -> str | None:
    """The kernel's ``qdot.q4k_fold`` (the verifier has checked it), None when it has none."""
    attr = func.attributes.get(Q4K_FOLD_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def mark_kernel(func: FuncOp, warps: int | None = None) -> None:
    """Make ``func`` a kernel (for builders that construct kernels from Python)."""
    func.attributes[KERNEL_ATTR] = UnitAttr()
    if warps is not None:
        func.attributes[NUM_WARPS_ATTR] = IntegerAttr(warps, i64)



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
