"""qdot-to-agx{form=agx3b dequant-type=auto}: a dot tile becomes a chain of 8x8 MMAs.

Decides, for one ``qdot.dot_scaled`` per function computed by one simdgroup:

* the fragment type of each operand: fp16 stays fp16, f32 (``fp32``) stays fp32,
  bf16 widens to fp32 exactly (the MMA has no bf16 form), and quantized
  operands (fp8, fp6, fp4 with or without scales; q4_K, q8_0, q8_1 blocks) are
  dequantized to ``dequant-type`` by ``agx.dequant_frag`` before the MMAs that
  read them (per K step, ahead of that step's MMAs). ``auto`` (the default)
  takes fp16 where every value the operand can stand for is an fp16 value
  (``exact_in_fp16``: unscaled fp8/fp6/fp4, and NVFP4) and fp32 elsewhere: a
  ue8m0 scale reaches 2^±127, so an fp16 fragment turned in-range MX values into
  inf and NaN (an fp32 one still holds |value · scale| below 2^128 only: a scale near
  2^127 on a value of 2 or more is inf in the fragment even where the other side's
  scale would bring the product back — docs/agx.md), and ggml blocks' fp16 scale
  times their codes needs more than fp16's
  11 significant bits. ``fp16`` forces the fp16 fragment (rounding, overflowing
  to inf), ``fp32`` the fp32 one. On
  agx3c, which takes one input type, A and B are both widened to fp32 when
  they differ;
* the MMA chain: for each K step of 8, load the A fragments of every 8-row
  block and the B fragments of every 8-column block, then one ``agx.mma8`` per
  output block in MLX's serpentine order, each accumulating into the previous
  step's D;
* the first K step: if the accumulator is a constant zero, the multiply form
  (no C, ``zero``); otherwise C fragments are loaded from the accumulator.

The function must be that tile and nothing else: its ops are the dot, the zero
``arith.constant`` it may take as acc, and the ``func.return`` of its result (or of
nothing). Any other op (an ``arith.addf`` of the result, an ``arith.mulf`` of an input,
a call) is refused at that op: the AGX target emits the tile's MMA stream only, and
would drop it. Functions without a dot are left as they are (the emitter refuses them).

Registers are left to ``agx-allocate-registers``, hints and wait slots to
``agx-hints-and-waits``. The function gets ``agx.form``. ``--remarks`` says, at the dot, each
operand's fragment type and how it gets there and the chain's size. Lit tests: tests/lit/qdot-to-agx/.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from xdsl.context import Context
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler import numerics, remarks
from compiler.numerics.formats import FormatKind
from compiler.diagnostics import emit_error
from dialects.agx.ops import FORM_ATTR, DequantFragOp, LoadFragOp, Mma8Op, StoreTileOp
from dialects.qdot.formats import Format, ScaleKind, format_info
from dialects.qdot.ops import DotScaledOp
from passes.support.options import check_option_values
from targets.agx.emitter import check_tile_return, not_in_tile
from targets.agx.forms import FORMS
from targets.agx.mma8 import ElemType

TILE = 8
_PLAIN = {"fp16": ElemType.FP16, "fp32": ElemType.FP32, "bf16": ElemType.FP32}
"""Float formats loaded as they are (bf16 widened exactly)."""
DEQUANT_TYPES = ("auto", ElemType.FP16.value, ElemType.FP32.value)
@functools.cache
def _codes_in_fp16(fmt: Format) -> bool:
    """Whether every finite code of the float format ``fmt`` is an fp16 value, by decoding them all with
    ``compiler.numerics`` (the formats' one definition): e4m3, e5m2 (fp16's own exponent range), the fp6 and e2m1
    are; bf16 is not, and the ggml blocks (an fp16 scale times a code) are no float format."""
    info = numerics.format_info(str(fmt))
    if info.kind is not FormatKind.FLOAT:
        return False
    values = numerics.decode(str(fmt), np.arange(1 << info.bits, dtype=np.uint16 if info.bits > 8 else np.uint8))
    finite = values[np.isfinite(values)]
    with np.errstate(over="ignore"):  # bf16's large values become inf: not fp16 values, as the comparison says
        return bool(np.all(finite.astype(np.float16).astype(np.float64) == finite))


def exact_in_fp16(fmt: Format, scale: ScaleKind | None) -> bool:
    """Whether every value ``fmt`` with ``scale`` stands for is an fp16 value. NVFP4 is (|e2m1 · ue4m3| lies in
    [2^-10, 2688] with at most 6 significant bits); a ue8m0 scale is not (2^±127)."""
    if not _codes_in_fp16(fmt):
        return False
    return scale is None or (scale is ScaleKind.UE4M3 and fmt is Format.E2M1)


def _is_zero_constant(value: SSAValue) -> bool:
    op = value.owner
    if not isinstance(op, ConstantOp) or not isinstance(op.value, DenseIntOrFPElementsAttr):
        return False
    return all(v == 0 for v in op.value.get_values())


@dataclass(frozen=True)
class _Plan:
    """What the lowering decided for one dot."""

    m: int
    n: int
    k: int
    a_elem: ElemType
    b_elem: ElemType
    zero_acc: bool
    one_type: bool = False
    """The form takes one input type and the operands' differed: both were widened to fp32."""


@dataclass(frozen=True)
class QdotToAgxPass(ModulePass):
    name = "qdot-to-agx"
    OPTION_VALUES: ClassVar[dict[str, tuple[str, ...]]] = {
        "form": tuple(FORMS), "dequant_type": DEQUANT_TYPES}
    """What each option takes (the tools' --help lists it; ``apply`` refuses anything else)."""

    form: str = "agx3b"
    dequant_type: str = "auto"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            dots = [d for d in func.walk() if isinstance(d, DotScaledOp)]
            if len(dots) > 1:
                emit_error(dots[1], f"qdot-to-agx lowers one dot tile per function; @{func.sym_name.data} has "
                                    f"{len(dots)}")
            if dots:
                self._lower(func, dots[0])

    def _operand_elem(self, fmt: Format, scale: ScaleKind | None) -> ElemType:
        if str(fmt) in _PLAIN:
            return _PLAIN[str(fmt)]
        if self.dequant_type == "auto":
            return ElemType.FP16 if exact_in_fp16(fmt, scale) else ElemType.FP32
        return ElemType(self.dequant_type)

    def _plan(self, func: FuncOp, dot: DotScaledOp) -> _Plan:
        problem = dot.problem()
        m, n, k = problem.m, problem.n, problem.k
        if m % TILE or n % TILE or k % TILE:
            emit_error(dot, f"the AGX tile is built from 8x8x8 MMAs: M, N and K must be multiples of 8, "
                            f"got M = {m}, N = {n}, K = {k}")
        for side, fmt in (("lhs", dot.lhs), ("rhs", dot.rhs)):
            if fmt == Format.I8:
                emit_error(dot, f"{side} = i8 accumulates in i32; the AGX MMA accumulates in fp32 only")
            if fmt == Format.Q8_1_MMQ:
                emit_error(dot, f"{side} = q8_1_mmq is llama.cpp's CUDA MMQ tile layout; the AGX path "
                                f"dequantizes q8_1 blocks")
            if not format_info(fmt).is_float and not format_info(fmt).is_block:
                emit_error(dot, f"{side} = {fmt} has no AGX lowering")
        if dot.parent_block() is not func.body.blocks[0]:
            emit_error(dot, "qdot-to-agx lowers a straight-line tile: the dot must be in the function body, "
                            "not inside a loop or branch")
        values = [("lhs", dot.a), ("rhs", dot.b), ("lhs scale", dot.a_scale), ("rhs scale", dot.b_scale)]
        zero_acc = _is_zero_constant(dot.acc)
        if not zero_acc:
            values.append(("acc", dot.acc))
        for what, value in values:
            if value is not None and not (isinstance(value, BlockArgument) and value.block is func.body.blocks[0]):
                producer = f"'{value.owner.name}'" if isinstance(value.owner, Operation) else "a block argument"
                emit_error(dot, f"{what} must be an argument of @{func.sym_name.data} (a tile's inputs), "
                                f"or a zero constant for acc; it is produced by {producer}")
        a_elem = self._operand_elem(dot.lhs, problem.lhs_scale)
        b_elem = self._operand_elem(dot.rhs, problem.rhs_scale)
        one_type = not FORMS[self.form].separate_b_type and a_elem is not b_elem
        if one_type:
            a_elem = b_elem = ElemType.FP32
        return _Plan(m, n, k, a_elem, b_elem, zero_acc, one_type)

    @staticmethod
    def _check_tile(func: FuncOp, dot: DotScaledOp, zero_acc: bool) -> None:
        """Every op of ``func`` is part of the tile: the dot, its zero acc, the return of its result."""
        entry = func.body.blocks[0]
        for block in func.body.blocks:
            for op in block.ops:
                if op is dot or (zero_acc and op is dot.acc.owner):
                    continue
                if block is entry and isinstance(op, ReturnOp):
                    check_tile_return(op, dot.result)
                    continue
                emit_error(op, not_in_tile(f"@{func.sym_name.data} holds a dot, so it is a tile: one "
                                           f"qdot.dot_scaled of its arguments (acc may be a zero arith.constant) "
                                           f"and the func.return of its result"))

    def _remark(self, dot: DotScaledOp, plan: _Plan) -> str:
        """``--remarks``: each operand's fragment type and how it gets there, and the MMA chain."""
        sides = []
        problem = dot.problem()
        for name, fmt, scale, elem in (("lhs", dot.lhs, problem.lhs_scale, plan.a_elem),
                                       ("rhs", dot.rhs, problem.rhs_scale, plan.b_elem)):
            if str(fmt) in _PLAIN:
                how = "loaded as it is" if str(fmt) == elem.value else f"loaded and widened to {elem.value} (exact)"
            else:
                how = f"dequantized to {elem.value} by agx.dequant_frag per K step"
                if self.dequant_type == "auto":
                    how += (" (every value is an fp16 value)" if exact_in_fp16(fmt, scale) else
                            (" (a ue8m0 scale: fp16 would round or overflow; fp32 holds a value times its "
                             "scale below 2^128 only)" if scale is ScaleKind.UE8M0 else
                             " (block scales: fp16 would round or overflow)"))
            sides.append(f"{name} {fmt}: {how}")
        if plan.one_type:
            sides.append(f"{self.form} takes one input type, so both sides are fp32")
        rows, cols, steps = plan.m // TILE, plan.n // TILE, plan.k // TILE
        first = "the first step multiplies (a zero accumulator)" if plan.zero_acc else "C fragments loaded from acc"
        return (f"{self.form}: " + "; ".join(sides) + f"; {steps} K step{'s' if steps != 1 else ''} of 8, each "
                f"{rows}x{cols} agx.mma8 in serpentine order ({rows * cols * steps} in all); {first}")

    def _fragment(self, dot: DotScaledOp, side: str, row: int, col: int, elem: ElemType) -> Operation:
        fmt = dot.lhs if side == "lhs" else dot.rhs
        source = dot.a if side == "lhs" else dot.b
        if str(fmt) in _PLAIN:
            return LoadFragOp(source, side, row, col, elem)
        scale = dot.a_scale if side == "lhs" else dot.b_scale
        k_pack = dot.lhs_k_packed if side == "lhs" else dot.rhs_k_packed
        return DequantFragOp(source, scale, side, row, col, fmt, elem, k_pack)

    def _lower(self, func: FuncOp, dot: DotScaledOp) -> None:
        plan = self._plan(func, dot)
        self._check_tile(func, dot, plan.zero_acc)
        if remarks.enabled(self.name):
            remarks.remark(dot, self.name, self._remark(dot, plan))
        where = InsertPoint.before(dot)
        rows, cols = plan.m // TILE, plan.n // TILE
        current: dict[tuple[int, int], SSAValue | None] = {}
        for i in range(rows):
            for j in range(cols):
                if plan.zero_acc:
                    current[i, j] = None
                else:
                    load = LoadFragOp(dot.acc, "acc", TILE * i, TILE * j, ElemType.FP32)
                    Rewriter.insert_op(load, where)
                    current[i, j] = load.result
        for step in range(plan.k // TILE):
            a_frags = [self._fragment(dot, "lhs", TILE * i, TILE * step, plan.a_elem) for i in range(rows)]
            b_frags = [self._fragment(dot, "rhs", TILE * step, TILE * j, plan.b_elem) for j in range(cols)]
            Rewriter.insert_op([*a_frags, *b_frags], where)
            for i in range(rows):
                order = range(cols) if i % 2 == 0 else reversed(range(cols))
                for j in order:
                    mma = Mma8Op(a_frags[i].results[0], b_frags[j].results[0], current[i, j])
                    Rewriter.insert_op(mma, where)
                    current[i, j] = mma.result
        for created in func.walk():
            if isinstance(created, LoadFragOp | DequantFragOp | Mma8Op):
                created.location = dot.location
        fragments = [current[i, j] for i in range(rows) for j in range(cols)]
        assert all(f is not None for f in fragments)
        assert isinstance(dot.result.type, TensorType)
        store = StoreTileOp([f for f in fragments if f is not None], dot.result.type)
        store.location = dot.location
        acc_owner = dot.acc.owner
        Rewriter.replace_op(dot, store)
        if isinstance(acc_owner, ConstantOp) and not acc_owner.result.uses:
            Rewriter.erase_op(acc_owner)
        func.attributes[FORM_ATTR] = StringAttr(self.form)
