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

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IntegerType, TensorType, UnrealizedConversionCastOp, f32, i32
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.diagnostics import dims_text, emit_error
from dialects.ptx.attrs import SpecialReg
from dialects.ptx.ops import SpecialRegOp
from dialects.qgpu.distributed import REG_BYTES, CoordExpr, DistributedLayout, Source
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
    tensor = value.type
    assert isinstance(tensor, TensorType)
    n = num_regs(tensor)
    if isinstance(owner, UnrealizedConversionCastOp) and len(owner.results) == 1 and len(owner.inputs) > 0 \
            and not isinstance(owner.inputs[0].type, TensorType):
        if len(owner.inputs) != n:  # hand-written IR: a later index into the registers would fail inside a pass
            count = len(owner.inputs)
            emit_error(owner, f"this cast gives a {dims_text(tensor.get_shape())} tensor {count} "
                              f"register{'s' if count != 1 else ''} per thread; its layout holds {n}")
        return list(owner.inputs)
    return b.cast([value], [reg_type(tensor)] * n)


def from_regs(b: Builder, regs: Sequence[SSAValue], tensor: TensorType) -> SSAValue:
    return b.cast(list(regs), [tensor])[0]


@dataclass
class ThreadIds:
    """tid.x, lane and warp of the executing thread (1-D thread blocks)."""

    tid: SSAValue
    lane: SSAValue
    warp: SSAValue


class _EntryBuilder(Builder):
    """Appends each op right after the previous one it built, starting at the block's top.

    Anchored on its own ops, never on the function's: a pass may erase any op of the
    function (the first one included) and the entry stays valid. Should one of its own
    ops be erased, it appends after the last one still in the block.
    """

    def __init__(self, block: Block):
        super().__init__(InsertPoint.at_start(block))
        self._block = block
        self._built: list[Operation] = []

    def insert(self, op: Operation) -> Operation:
        while self._built and self._built[-1].parent is not self._block:
            self._built.pop()
        point = InsertPoint.after(self._built[-1]) if self._built else InsertPoint.at_start(self._block)
        Rewriter.insert_op(op, point)
        self._built.append(op)
        return op


@dataclass
class FunctionState:
    """Per-function lowering state: thread ids and per-thread offsets, built once at entry.

    Entry values go at the top of the function's block, in the order they are asked
    for, independent of which ops the lowering later replaces or erases.
    """

    func: FuncOp
    entry: Builder = field(init=False)
    _ids: ThreadIds | None = None
    _cache: dict[object, SSAValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.entry = _EntryBuilder(self.func.body.blocks[0])

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


def sum_of_bits(b: Builder, x: SSAValue, bases: Sequence[int]) -> SSAValue:
    """Σ_j bit_j(x) · bases[j]; runs of doubling bases become one ``((x >> j) & mask) · base``."""
    total: SSAValue | None = None
    j, n = 0, len(bases)
    while j < n:
        if bases[j] == 0:
            j += 1
            continue
        start = j
        while j + 1 < n and bases[j + 1] == bases[j] * 2:
            j += 1
        width = j - start + 1
        field_value = b.and_(b.lshr(x, start), (1 << width) - 1) if (start or width < 32) else x
        term = b.mul(field_value, bases[start])
        total = term if total is None else b.add(total, term)
        j += 1
    return b.const(0) if total is None else total


@dataclass(frozen=True)
class LinearOffsets:
    """f(elem, lane, warp) as one constant per input bit, composed by XOR or by addition.

    Swizzled buffers are XOR-linear (``origin`` 0). Views of ggml block buffers
    (``#qgpu.block_part``) are affine instead: rows of 144-byte blocks and a field
    that starts 16 bytes into each block give ``origin + Σ bit · base`` with bases
    that are not powers of two, so ``additive`` offsets are added, never XOR-ed.
    ``elem`` numbers a thread's elements (register-major, see ``element_slot``).
    """

    elem_bases: tuple[int, ...]
    lane_bases: tuple[int, ...]
    warp_bases: tuple[int, ...]
    additive: bool = False
    origin: int = 0

    @staticmethod
    def derive(function: Callable[[int, int, int], int], elems: int, warps: int,
               check: Sequence[tuple[int, int, int]] = (), allow_additive: bool = False) -> "LinearOffsets":
        origin = function(0, 0, 0)
        xor_error: ValueError | None = None
        if origin == 0:
            try:
                return LinearOffsets._derive(function, elems, warps, check, False, 0)
            except ValueError as err:
                xor_error = err
        if not allow_additive:
            raise xor_error or ValueError(f"not linear: f(0, 0, 0) = {origin}")
        return LinearOffsets._derive(function, elems, warps, check, True, origin)

    @staticmethod
    def _derive(function: Callable[[int, int, int], int], elems: int, warps: int,
                check: Sequence[tuple[int, int, int]], additive: bool, origin: int) -> "LinearOffsets":
        def base(value: int) -> int:
            return value - origin if additive else value

        eb = tuple(base(function(1 << i, 0, 0)) for i in range(bit_width(elems)))
        lb = tuple(base(function(0, 1 << i, 0)) for i in range(5))
        wb = tuple(base(function(0, 0, 1 << i)) for i in range(bit_width(warps)))
        offsets = LinearOffsets(eb, lb, wb, additive, origin)
        for e, lane, warp in check:
            want, got = function(e, lane, warp), offsets.at(e, lane, warp)
            if want != got:
                kind = "affine" if additive else "linear"
                raise ValueError(f"not {kind} at element {e}, lane {lane}, warp {warp}: {want} != {got}")
        return offsets

    def _compose(self, bases: Sequence[int], value: int) -> int:
        return _sum(bases, value) if self.additive else _xor(bases, value)

    def at(self, elem: int, lane: int, warp: int) -> int:
        if self.additive:
            return self.elem_part(elem) + _sum(self.lane_bases, lane) + _sum(self.warp_bases, warp)
        return self.elem_part(elem) ^ _xor(self.lane_bases, lane) ^ _xor(self.warp_bases, warp)

    def elem_part(self, elem: int) -> int:
        """The compile-time part of element ``elem``'s offset (the origin included)."""
        return self.origin + self._compose(self.elem_bases, elem)

    @property
    def key(self) -> tuple:
        """Identifies the per-thread part, for sharing it between loads."""
        return (self.additive, self.lane_bases, self.warp_bases)

    @property
    def thread_mask(self) -> int:
        """Output bits the (lane, warp) part can touch; 0 when parts are always added."""
        if self.additive:
            return 0
        mask = 0
        for base in (*self.lane_bases, *self.warp_bases):
            mask |= base
        return mask

    def bits_value(self, b: Builder, x: SSAValue, bases: Sequence[int]) -> SSAValue:
        return sum_of_bits(b, x, bases) if self.additive else xor_of_bits(b, x, bases)

    def bits_at(self, bases: Sequence[int], x: int) -> int:
        """``bits_value``'s value for one ``x``."""
        return self._compose(bases, x)

    def thread_part(self, b: Builder, ids: ThreadIds) -> SSAValue:
        lane = self.bits_value(b, ids.lane, self.lane_bases)
        warp = self.bits_value(b, ids.warp, self.warp_bases)
        if self.additive:
            return b.add(lane, warp)
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


def combined(thread: int, thread_mask: int, constant: int) -> int:
    """``combine``'s value for one thread's part (the remarks' bank-conflict counts evaluate addresses so)."""
    return thread + constant if constant & thread_mask == 0 else thread ^ constant


def _sum(bases: Sequence[int], value: int) -> int:
    return sum(base for bit, base in enumerate(bases) if value >> bit & 1)


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


def element_coords(op: Operation, tensor: Attribute,
                   layout: DistributedLayout) -> Callable[[int, int, int], tuple[int, ...]]:
    """``(elem, lane, warp) -> coordinates`` of a thread's ``elem``-th element of ``tensor``
    (through ``element_slot`` and the layout function); a register slot the layout leaves
    empty is a diagnostic at ``op``. What the register ↔ shared copies derive their address
    maps from."""

    def coords(elem: int, lane: int, warp: int) -> tuple[int, ...]:
        reg, byte = element_slot(layout, elem)
        found = layout.coords(warp, lane, reg, byte)
        if found is None:
            emit_error(op, f"layout of {tensor} leaves register {reg} byte {byte} empty")
        return found

    return coords


def elements_per_thread(layout: DistributedLayout) -> int:
    """Elements a thread holds: whole registers, except a blocked layout whose last register is
    partly empty (e.g. one 8-bit scale per thread)."""
    slots = layout.regs_per_thread * layout.elements_per_register
    return min(slots, getattr(layout, "elements_per_thread", slots))


def field_sum(b: Builder, ids: ThreadIds, expr: CoordExpr) -> SSAValue:
    """Σ fields of a coordinate expression (without its constant), as i32."""
    total = b.const(0)
    for f in expr.fields:
        source = ids.lane if f.source == Source.LANE else ids.warp
        value = b.and_(b.lshr(source, f.shift), (1 << f.width) - 1) if f.width < 32 else source
        total = b.add(total, b.mul(value, f.scale))
    return total


def side_by_side(low: Sequence[CoordExpr] | None, high: Sequence[CoordExpr] | None) -> bool:
    """Whether two slots (their ``coord_exprs``) hold (r, c) and (r, c + 1) with c even in every thread."""
    return side_by_side_run([low, high])


def side_by_side_run(slots: Sequence[Sequence[CoordExpr] | None], dim: int = 1) -> bool:
    """Whether n slots (their ``coord_exprs``) hold n consecutive elements along ``dim`` — (r, c), (r, c + 1), …,
    (r, c + n − 1) for the columns (``dim`` 1), (r, c) … (r + n − 1, c) for the rows — with the first a multiple of n
    in every thread: the other coordinate the same, unit steps along ``dim``, the run aligned to its length."""
    n = len(slots)
    first = slots[0]
    if any(slot is None or slot[1 - dim] != first[1 - dim] for slot in slots):
        return False
    lead = first[dim]
    return lead.modulus is None and lead.constant % n == 0 and all(f.scale % n == 0 for f in lead.fields) \
        and all(slot[dim].fields == lead.fields and slot[dim].constant == lead.constant + j
                for j, slot in enumerate(slots))


def register_runs(layout: DistributedLayout, n: int, dim: int = 1) -> bool:
    """Whether the registers of a 32-bit layout, taken n by n, hold runs of n consecutive elements along ``dim``
    (the first a multiple of n): one 4·n-byte access per run where ``dim`` is the unit-stride one."""
    return layout.regs_per_thread % n == 0 and all(
        side_by_side_run([layout.coord_exprs(reg + j, 0) for j in range(n)], dim)
        for reg in range(0, layout.regs_per_thread, n))


def register_pairs(layout: DistributedLayout) -> bool:
    """Whether the registers of a 32-bit layout, taken two by two, hold side-by-side pairs
    ((r, c) and (r, c + 1), c even): one 8-byte access per pair."""
    return register_runs(layout, 2)


def as_i32(b: Builder, value: SSAValue) -> SSAValue:
    """An f32 register's bits as i32 (an i32 as it is), for packing into vectors."""
    return value if value.type == i32 else b.emit(arith.BitcastOp(value, i32))


__all__ = [
    "as_i32",
    "field_sum",
    "register_pairs",
    "register_runs",
    "side_by_side",
    "side_by_side_run",
    "REG_BYTES",
    "FunctionState",
    "LinearOffsets",
    "ThreadIds",
    "combine",
    "element_coords",
    "element_slot",
    "elements_per_thread",
    "from_regs",
    "function_of",
    "num_regs",
    "reg_type",
    "sum_of_bits",
    "to_regs",
    "xor_of_bits",
    "IntegerType",
]
