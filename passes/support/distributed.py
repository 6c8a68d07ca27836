"""Distributed tensors as per-thread registers, and the index arithmetic of layouts.

Between ``qdot-lower-local-load`` / ``qdot-lower-mma`` and ``qdot-to-llvm`` a
distributed tensor value (``tensor<..., #qgpu.mma>``, ``#qgpu.dot_op``, …) is
materialised as the 32-bit registers one thread holds, in the register order of
its layout function (dialects/qgpu/layouts.py): ``to_regs`` / ``from_regs`` bridge
the two views with ``builtin.unrealized_conversion_cast`` (one tensor ↔ N scalars),
which ``qdot-to-llvm`` resolves, as MLIR's 1:N conversions do.

Registers are ``f32`` for f32 tensors and ``i32`` otherwise (packed bytes or halves).

Index arithmetic: every layout maps bits of (element, lane, warp) to bits of a
coordinate or byte offset by XOR-ing one constant per input bit (passes/support/linear.py).
``LinearOffsets`` derives those constants from the layout functions, and
``xor_of_bits`` builds ``⊕ bit_j(x) · basis_j`` at run time, computed once per
thread at function entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import Float32Type, IntegerType, TensorType, UnrealizedConversionCastOp, f32, i32
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from dialects.ptx.attrs import SpecialReg
from dialects.ptx.ops import SpecialRegOp
from dialects.qgpu.distributed import REG_BYTES, DistributedLayout
from dialects.qgpu.layouts import distributed_layout
from passes.support.builder import Builder
from passes.support.linear import bit_width


def reg_type(tensor: TensorType) -> Attribute:
    return f32 if isinstance(tensor.get_element_type(), Float32Type) else i32


def num_regs(tensor: TensorType) -> int:
    return distributed_layout(tensor).regs_per_thread


def to_regs(b: Builder, value: SSAValue) -> list[SSAValue]:
    """The registers of a distributed tensor (looking through a from_regs cast)."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and len(owner.results) == 1 and len(owner.inputs) > 0 \
            and not isinstance(owner.inputs[0].type, TensorType):
        return list(owner.inputs)
    tensor = value.type
    assert isinstance(tensor, TensorType)
    n = num_regs(tensor)
    return b.cast([value], [reg_type(tensor)] * n)


def from_regs(b: Builder, regs: Sequence[SSAValue], tensor: TensorType) -> SSAValue:
    return b.cast(list(regs), [tensor])[0]


@dataclass
class ThreadIds:
    """tid.x, lane and warp of the executing thread (1-D thread blocks)."""

    tid: SSAValue
    lane: SSAValue
    warp: SSAValue


@dataclass
class FunctionState:
    """Per-function lowering state: thread ids and per-thread offsets, built once at entry."""

    func: FuncOp
    entry: Builder = field(init=False)
    _ids: ThreadIds | None = None
    _cache: dict[object, SSAValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        block = self.func.body.blocks[0]
        first = block.first_op
        self.entry = Builder(InsertPoint.before(first)) if first is not None else Builder.at_end(block)

    @property
    def ids(self) -> ThreadIds:
        if self._ids is None:
            b = self.entry
            tid = b.emit(SpecialRegOp(SpecialReg.TID_X))
            lane = b.and_(tid, 31)
            warp = b.lshr(tid, 5)
            self._ids = ThreadIds(tid, lane, warp)
        return self._ids

    def per_thread(self, key: object, make: Callable[[Builder, ThreadIds], SSAValue]) -> SSAValue:
        """A loop-invariant per-thread value, built once at the function entry."""
        if key not in self._cache:
            self._cache[key] = make(self.entry, self.ids)
        return self._cache[key]


def function_of(op: Operation) -> FuncOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    assert parent is not None, "operation outside a function"
    return parent


def xor_of_bits(b: Builder, x: SSAValue, bases: Sequence[int]) -> SSAValue:
    """⊕_j bit_j(x) · bases[j], simplified to shift-and-mask runs where the bases allow.

    Runs of consecutive bits whose bases are consecutive powers of two and
    disjoint from every other basis become one ``(x >> j) & mask << s``; the
    terms of disjoint bases are OR-ed (= XOR = +), others XOR-ed.
    """
    terms: list[tuple[SSAValue, int]] = []
    j = 0
    n = len(bases)
    while j < n:
        base = bases[j]
        if base == 0:
            j += 1
            continue
        if base & (base - 1) == 0:
            start = j
            while j + 1 < n and bases[j + 1] == bases[j] * 2:
                j += 1
            width = j - start + 1
            shift = bit_width(base)
            field_value = b.and_(b.lshr(x, start), (1 << width) - 1) if (start or width < 32) else x
            terms.append((b.shl(field_value, shift), ((1 << width) - 1) << shift))
        else:
            bit = b.and_(b.lshr(x, j), 1)
            terms.append((b.mul(bit, base), base))
        j += 1
    if not terms:
        return b.const(0)
    result, mask = terms[0]
    for value, term_mask in terms[1:]:
        result = b.or_(result, value) if mask & term_mask == 0 else b.xor(result, value)
        mask |= term_mask
    return result


@dataclass(frozen=True)
class LinearOffsets:
    """f(elem, lane, warp) = ⊕ of per-bit constants, for an integer-valued layout function.

    ``elem`` numbers a thread's elements (register-major, see ``element_slot``).
    """

    elem_bases: tuple[int, ...]
    lane_bases: tuple[int, ...]
    warp_bases: tuple[int, ...]

    @staticmethod
    def derive(function: Callable[[int, int, int], int], elems: int, warps: int,
               check: Sequence[tuple[int, int, int]] = ()) -> "LinearOffsets":
        origin = function(0, 0, 0)
        if origin != 0:
            raise ValueError(f"not linear: f(0, 0, 0) = {origin}")
        eb = tuple(function(1 << i, 0, 0) for i in range(bit_width(elems)))
        lb = tuple(function(0, 1 << i, 0) for i in range(5))
        wb = tuple(function(0, 0, 1 << i) for i in range(bit_width(warps)))
        offsets = LinearOffsets(eb, lb, wb)
        for e, lane, warp in check:
            want, got = function(e, lane, warp), offsets.at(e, lane, warp)
            if want != got:
                raise ValueError(f"not linear at element {e}, lane {lane}, warp {warp}: {want} != {got}")
        return offsets

    def at(self, elem: int, lane: int, warp: int) -> int:
        return self.elem_part(elem) ^ _xor(self.lane_bases, lane) ^ _xor(self.warp_bases, warp)

    def elem_part(self, elem: int) -> int:
        return _xor(self.elem_bases, elem)

    @property
    def thread_mask(self) -> int:
        """Output bits the (lane, warp) part can touch."""
        mask = 0
        for base in (*self.lane_bases, *self.warp_bases):
            mask |= base
        return mask

    def thread_part(self, b: Builder, ids: ThreadIds) -> SSAValue:
        lane = xor_of_bits(b, ids.lane, self.lane_bases)
        warp = xor_of_bits(b, ids.warp, self.warp_bases)
        if self.thread_mask_of(self.lane_bases) & self.thread_mask_of(self.warp_bases):
            return b.xor(lane, warp)
        return b.or_(lane, warp)

    @staticmethod
    def thread_mask_of(bases: Sequence[int]) -> int:
        mask = 0
        for base in bases:
            mask |= base
        return mask


def combine(b: Builder, thread: SSAValue, thread_mask: int, constant: int) -> SSAValue:
    """thread ⊕ constant, as an addition when the bits cannot collide (folds into addresses)."""
    if constant & thread_mask == 0:
        return b.add(thread, constant)
    return b.xor(thread, constant)


def _xor(bases: Sequence[int], value: int) -> int:
    result = 0
    for bit, base in enumerate(bases):
        if value >> bit & 1:
            result ^= base
    return result


def element_slot(layout: DistributedLayout, elem: int) -> tuple[int, int]:
    """(reg, byte) of a thread's ``elem``-th element (elements packed by width)."""
    per_reg = layout.elements_per_register
    reg, position = divmod(elem, per_reg)
    return reg, position * layout.elem_bytes


def elements_per_thread(layout: DistributedLayout) -> int:
    return layout.regs_per_thread * layout.elements_per_register


__all__ = [
    "REG_BYTES",
    "FunctionState",
    "LinearOffsets",
    "ThreadIds",
    "combine",
    "element_slot",
    "elements_per_thread",
    "from_regs",
    "function_of",
    "num_regs",
    "reg_type",
    "to_regs",
    "xor_of_bits",
    "IntegerType",
]
