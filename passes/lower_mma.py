"""qdot-lower-mma: ``qgpu.mma`` → ``ptx.mma_sync`` on registers, with the fp4 shift and the scales.

Decides the instruction for each register-format pair and scale mode, and
emits one ``mma.sync`` per (m tile, n tile, k tile) of the layouts
(dialects/qgpu/layouts.py ``tile_registers``):

* s8 / u8 pairs → ``m16n8k32 .s32.s8.s8.s32`` (``.u8`` on an unsigned side); bf16/fp16 → ``m16n8k16 .f32``; e4m3/e5m2
  pairs → ``m16n8k32 .f32.e4m3.e4m3.f32`` (native on sm_89/sm_120a, emulated on sm_90);
* fp6/fp4 with 8-bit containers → ``kind::f8f6f4``, or with hardware block scales
  ``kind::mxf8f6f4 .block_scale.scale_vec::1X … .ue8m0``; packed e2m1 × e2m1 →
  ``m16n8k64 kind::mxf4`` (2X, ue8m0) or ``kind::mxf4nvf4`` (4X, ue4m3, NVFP4).
  An ``fp4Unpacked`` operand holds ``0000xxxx`` bytes (what ``ldmatrix .b4x16_p64``
  produces) and the mma wants ``00xxxx00``: each of its registers is shifted left
  by two right before the instruction (seed 003; Triton does it in MMAv2);
* ``rescale = "per_block"``: every k tile is one scale block, multiplied into a zero
  accumulator; its result (i32 for s8) is converted to f32 and folded in as
  ``acc += d · sa · sb · 2^-(lhs_exp + rhs_exp)`` — how llama.cpp's MMQ applies block
  scales, exact because each scale is applied to an exact block sum. When every scale is
  narrow — a power of two (ue8m0, MX) or of at most 22 significant bits (ggml's fp16-derived
  scales, ``qdot.scale_bits``) — the s8 form folds the conversion into the scaling
  (``_magic_rescale``): two FMAs per register instead of a conversion, a product and an FMA;
* ``lhs_sub`` / ``rhs_sub`` (q6_K's int8 scale per 16 values): each k tile as two
  ``m16n8k16 .s32.s8.s8.s32`` halves from a zero accumulator, summed in s32 weighted by their
  factors, then converted and folded as above (never the magic form: the sum reaches 2^26, exact in f32
  as a multiple of 4 — q6_K's s8 values are 4 · (code − 32));
* ``lhs_min`` / ``rhs_min`` (q2_K's 4-bit min per 16 values): one more m16n8k32 per k tile whose
  min-side operand is each 16-value half's min broadcast to its four bytes (``_Mins``); its s32 sum
  times −fa · fb is the fold term (q4_K's per-32 fold has the activations' block sum for it), in the
  magic form when ``qdot.scale_bits`` says the scales and fold factors are narrow (the sum is below 2^20);
* ``rescale = "hw"``: the scale registers and byte/thread selectors of the
  block-scaled forms (reference/ptx.md §4.3): A's scale comes from the even/odd lane
  of each quad pair (rows g / g+8, thread-id-a = 0), B's from lane 4g.

``qgpu.warp_group_dot`` (sm_90a) becomes ``wgmma.mma_async`` with shared-memory descriptors,
one per warpgroup, 64-row slice and k16 step (``passes/support/warp_group.py``).

Lit tests: ``tests/lit/qdot-lower-mma/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f32,
    i16,
    i32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from compiler import remarks
from compiler.diagnostics import emit_error
from dialects.ptx.attrs import MmaKind, MmaShape, MmaType, ScaleType, ScaleVec
from dialects.ptx.ops import PrmtOp
from dialects.ptx.mma import MmaSignature, MmaSyncOp
from dialects.qdot.formats import ScaleKind, scale_kind_of
from dialects.qgpu.encodings import DotOperandEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout
from dialects.qgpu.mma_layouts import DotOperandLayout, DotScaleLayout, MmaLayout
from dialects.qgpu.ops import MmaOp
from dialects.qgpu.register_formats import INTEGER_FORMATS, RegFormat, Rescale
from dialects.qgpu.warp_group_dot import WarpGroupDotOp, WarpGroupDotWaitOp
from passes.support.builder import Builder
from passes.support.warp_group import lower_warp_group_dot, lower_warp_group_wait, warp_group_remark
from passes.support.distributed import FunctionState, from_regs, to_regs
from passes.support.group_registers import group_slot

_PTX_TYPE = {
    RegFormat.S8: MmaType.S8, RegFormat.U8: MmaType.U8, RegFormat.E4M3: MmaType.E4M3, RegFormat.E5M2: MmaType.E5M2,
    RegFormat.E2M3: MmaType.E2M3, RegFormat.E3M2: MmaType.E3M2, RegFormat.E2M1: MmaType.E2M1,
    RegFormat.BF16: MmaType.BF16, RegFormat.FP16: MmaType.F16,
}


@dataclass(frozen=True)
class LowerMmaPass(ModulePass):
    name = "qdot-lower-mma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            state = FunctionState(func)
            for mma in [o for o in func.walk() if isinstance(o, MmaOp)]:
                try:
                    _lower(mma, state)
                except LayoutError as err:
                    emit_error(mma, str(err))
            for dot in [o for o in func.walk() if isinstance(o, WarpGroupDotOp)]:
                if remarks.enabled(self.name):
                    remarks.remark(dot, self.name, lambda dot=dot: warp_group_remark(dot))
                lower_warp_group_dot(dot, state, _PTX_TYPE[dot.lhs], _PTX_TYPE[dot.rhs])
            for wait in [o for o in func.walk() if isinstance(o, WarpGroupDotWaitOp)]:
                lower_warp_group_wait(wait)


@dataclass(frozen=True)
class Instruction:
    sig: MmaSignature
    shift_a: bool
    shift_b: bool
    blocks_per_tile: int
    """Scale blocks one instruction k tile covers (hw: 1, 2 or 4)."""


def _instruction(mma: MmaOp, a: DotOperandLayout, b: DotOperandLayout, acc_int: bool) -> Instruction:
    lhs, rhs, rescale = mma.lhs, mma.rhs, mma.rescale_mode
    ta, tb = _PTX_TYPE[lhs], _PTX_TYPE[rhs]
    if lhs in INTEGER_FORMATS:
        d = MmaType.S32
        return Instruction(MmaSignature(MmaShape.M16N8K32, d, ta, tb, d), False, False, 1)
    if lhs in (RegFormat.BF16, RegFormat.FP16):
        return Instruction(MmaSignature(MmaShape.M16N8K16, MmaType.F32, ta, tb, MmaType.F32), False, False, 1)
    packed = lhs is RegFormat.E2M1 and not a.fp4_unpacked
    if rescale is Rescale.HW:
        scale = scale_kind_of(_tensor(mma.a_scale).get_element_type())
        if packed:
            if scale is ScaleKind.UE4M3:
                sig = MmaSignature(MmaShape.M16N8K64, MmaType.F32, MmaType.E2M1, MmaType.E2M1, MmaType.F32,
                                   MmaKind.MXF4NVF4, scale_vec=ScaleVec.X4, scale_type=ScaleType.UE4M3)
                return Instruction(sig, False, False, 4)
            sig = MmaSignature(MmaShape.M16N8K64, MmaType.F32, MmaType.E2M1, MmaType.E2M1, MmaType.F32,
                               MmaKind.MXF4, scale_vec=ScaleVec.X2, scale_type=ScaleType.UE8M0)
            return Instruction(sig, False, False, 2)
        sig = MmaSignature(MmaShape.M16N8K32, MmaType.F32, ta, tb, MmaType.F32, MmaKind.MXF8F6F4,
                           scale_vec=ScaleVec.X1, scale_type=ScaleType.UE8M0)
        return Instruction(sig, a.fp4_unpacked, b.fp4_unpacked, 1)
    small = {MmaType.E2M3, MmaType.E3M2, MmaType.E2M1}
    kind = MmaKind.F8F6F4 if (ta in small or tb in small) else None
    sig = MmaSignature(MmaShape.M16N8K32, MmaType.F32, ta, tb, MmaType.F32, kind)
    return Instruction(sig, a.fp4_unpacked, b.fp4_unpacked, 1)


def _tensor(value: SSAValue | None) -> TensorType:
    assert value is not None and isinstance(value.type, TensorType)
    return value.type


def _lower(mma: MmaOp, state: FunctionState) -> None:
    a_type, b_type, c_type = _tensor(mma.a), _tensor(mma.b), _tensor(mma.c)
    a_layout, b_layout = distributed_layout(a_type), distributed_layout(b_type)
    c_layout = distributed_layout(c_type)
    assert isinstance(a_layout, DotOperandLayout) and isinstance(b_layout, DotOperandLayout)
    assert isinstance(c_layout, MmaLayout)
    acc_int = isinstance(c_type.get_element_type(), IntegerType)
    inst = _instruction(mma, a_layout, b_layout, acc_int)
    b = Builder.before(mma)
    a_regs, b_regs, c_regs = to_regs(b, mma.a), to_regs(b, mma.b), to_regs(b, mma.c)
    if inst.shift_a:
        a_regs = [b.shl(r, 2) for r in a_regs]
    if inst.shift_b:
        b_regs = [b.shl(r, 2) for r in b_regs]
    acc = list(c_regs)
    rescale = mma.rescale_mode
    rep_k = a_layout.rep_k
    if rep_k != b_layout.rep_k:
        emit_error(mma, f"lhs has {rep_k} k tiles but rhs has {b_layout.rep_k}")
    scales = None
    folds = None
    if rescale is Rescale.PER_BLOCK:
        scales = _BlockScales(b, state, mma, c_layout)
        if mma.a_fold is not None:
            folds = _Folds(b, mma, scales)
    hw = None
    if rescale is Rescale.HW:
        hw = _HwScales(b, state, mma, inst)
    has_subs = mma.a_sub is not None or mma.b_sub is not None
    subs = _SubScales(b, mma, scales) if scales is not None and has_subs else None
    mins = _Mins(b, mma, inst.sig, a_layout, b_layout) if folds is not None and (
        mma.a_min is not None or mma.b_min is not None) else None
    # the halves' weighted sum reaches 2^26 (q6_K: 2 · 16 · 128 · 128 · 128), past the magic form's 2^22
    # with mins, the fold factors go through the magic form too: qdot.scale_bits speaks for them
    magic = scales is not None and inst.sig.c_type is MmaType.S32 and scales.narrow and subs is None \
        and (mins is None or scales.stated)
    if remarks.enabled(LowerMmaPass.name):
        remarks.remark(mma, LowerMmaPass.name, _remark(mma, inst, rep_k, c_layout, len(a_regs), len(b_regs), magic,
                                                        folds is not None, subs is not None, mins is not None))
    for rk in range(rep_k):
        for rm in range(c_layout.rep_m):
            for rn in range(c_layout.rep_n):
                a_tile = [a_regs[r] for r in a_layout.tile_registers(rm, rk)]
                b_tile = [b_regs[r] for r in b_layout.tile_registers(rn, rk)]
                c_index = c_layout.tile_registers(rm, rn)
                scale_a, scale_b = hw.operands(rm, rn, rk) if hw is not None else ((), ())
                if scales is None:
                    c_in = [acc[i] for i in c_index]
                    op = b.insert(MmaSyncOp(inst.sig, a_tile, b_tile, c_in, scale_a, scale_b))
                    for i, result in zip(c_index, op.results, strict=True):
                        acc[i] = result
                    continue
                if magic:
                    op = b.insert(MmaSyncOp(inst.sig, a_tile, b_tile, [b.const(MAGIC_BITS)] * 4))
                    magic_mins = mins.sums(a_tile, b_tile, rm, rn, rk, MAGIC_BITS) if mins is not None else None
                    for position, (i, part) in enumerate(zip(c_index, op.results, strict=True)):
                        acc[i] = _magic_rescale(b, part, scales.magic_terms(rm, rn, position, rk), acc[i])
                        if folds is not None and magic_mins is not None:
                            acc[i] = _magic_rescale(b, magic_mins[position], folds.magic_terms(rm, rn, position, rk),
                                                    acc[i])
                        elif folds is not None:
                            acc[i] = b.fma(*folds.terms(rm, rn, position, rk), acc[i])
                    continue
                # each block starts from a zero accumulator (built once: the builder shares constants)
                zero = b.const(0) if inst.sig.c_type is MmaType.S32 else b.fconst(0.0)
                if subs is not None:
                    parts = subs.weighted_sums(a_tile, b_tile, rm, rn, rk)
                else:
                    parts = list(b.insert(MmaSyncOp(inst.sig, a_tile, b_tile, [zero] * 4)).results)
                min_sums = mins.sums(a_tile, b_tile, rm, rn, rk) if mins is not None else None
                for position, (i, part) in enumerate(zip(c_index, parts, strict=True)):
                    value = part if isinstance(part.type, Float32Type) else b.emit(arith.SIToFPOp(part, f32))
                    factor = scales.factor(rm, rn, position, rk)
                    acc[i] = b.fma(value, factor, acc[i])
                    if folds is not None and min_sums is not None:
                        min_sum = b.emit(arith.SIToFPOp(min_sums[position], f32))
                        acc[i] = b.fma(min_sum, folds.product(rm, rn, position, rk), acc[i])
                    elif folds is not None:
                        acc[i] = b.fma(*folds.terms(rm, rn, position, rk), acc[i])
    out = from_regs(b, acc, _tensor(mma.result))
    mma.result.replace_all_uses_with(out)
    scale_owners = [v.owner for v in (mma.a_scale, mma.b_scale) if v is not None]
    Rewriter.erase_op(mma)
    for owner in scale_owners:  # unit scales read at compile time (_BlockScales) are dead now
        if isinstance(owner, arith.ConstantOp) and not owner.result.uses:
            Rewriter.erase_op(owner)


def _remark(mma: MmaOp, inst: Instruction, rep_k: int, acc: MmaLayout, a_regs: int, b_regs: int, magic: bool,
            folds: bool, subs: bool = False, mins: bool = False) -> str:
    """What ``_lower`` emits for one ``qgpu.mma``, counted per op: the instructions, the fp4 shift,
    how the block scales are applied."""
    count = rep_k * acc.rep_m * acc.rep_n
    parts = [f"{count} × {inst.sig.mnemonic()} per warp ({acc.rep_m} m × {acc.rep_n} n × {rep_k} k tiles)"]
    if "qdot.fold" in mma.attributes:
        parts.append("the q4_K dmin term: one f16 mma per super-block, scaled by dmin and -1")
    for side, shifted, regs in (("lhs", inst.shift_a, a_regs), ("rhs", inst.shift_b, b_regs)):
        if shifted:
            parts.append(f"{side} fp4Unpacked 0000xxxx → 00xxxx00: shl 2 on its {regs} registers")
    rescale = mma.rescale_mode
    if rescale is Rescale.HW:
        parts.append(f"block scales to the instruction, {inst.blocks_per_tile} per k tile and row")
    elif rescale is Rescale.PER_BLOCK:
        parts.append("per-block rescale: " + (
            "each block's mma from the bits of 1.5·2^23, the s32 → f32 conversion folded into the scaling (two "
            "FMAs per register)" if magic else "each block's mma from a zero accumulator, its sum converted to f32 "
            "and acc += d · sa · sb by FMA"))
    if folds and mins:
        parts.append(f"the min per 16 values ({'lhs' if mma.a_min is not None else 'rhs'}_min) as a second "
                     f"m16n8k32 per k tile ({count} more), its operand each half's min repeated in four bytes; its "
                     "s32 sum " + ("folded by −fa · fb in the magic form (two more FMAs per register)" if magic
                                   else "converted and folded by −fa · fb by FMA"))
    elif folds:
        parts.append("q4_K dmin fold: one FMA per register and block")
    if subs:
        parts.append("each k tile as two m16n8k16 halves, summed in s32 weighted by the integer factors per 16 values "
                     f"({'lhs' if mma.a_sub is not None else 'rhs'}_sub)")
    return "; ".join(parts)


MAGIC = 1.5 * 2.0 ** 23
MAGIC_BITS = 0x4B400000
"""The f32 1.5 · 2^23 as bits: its ulp is 1, so for |x| < 2^22 the integer MAGIC_BITS + x, read
as f32, is exactly MAGIC + x. An s8 m16n8k32 block sum is at most 32 · 128 · 128 = 2^19."""

NARROW_SCALE_BITS = 22
"""A scale of at most this many significant bits times MAGIC (two bits: 1.5 · 2^23) still fits
f32's 24, so −MAGIC · s is exact and ``fma(MAGIC + x, s, −MAGIC · s)`` is x · s rounded once,
whatever s is. ``{qdot.scale_bits = n}`` on a ``qgpu.mma`` with f32 scales says each has at most
n significant bits and magnitude below 2^104: qdot-accelerate-matmul sets 17 for ggml blocks (an
fp16 d, 11 bits, times q4_K's 6-bit sc; at most 65504 · 63)."""


def _magic_rescale(b: Builder, part: SSAValue, terms: tuple[SSAValue, SSAValue, SSAValue | None],
                   acc: SSAValue) -> SSAValue:
    """``acc + x · s · t`` for the block sum x of an mma that started from MAGIC_BITS.

    ``fma(MAGIC + x, s, −MAGIC · s)`` is x · s exactly when s is a power of two (both products
    are exact, so is their difference), and x · s rounded once when s has at most
    NARROW_SCALE_BITS significant bits (−MAGIC · s is still exact) — only if the FMA is fused,
    which ``math.fma`` guarantees and a contractible pair only allows — so the conversion costs no
    instruction of its own and the scale product none either: the second factor t goes into
    the accumulating FMA.
    """
    scale, neg_magic, other = terms
    scaled = b.fused_fma(b.emit(arith.BitcastOp(part, f32)), scale, neg_magic)
    return b.addf(scaled, acc) if other is None else b.fma(scaled, other, acc)


class _BlockScales:
    """sa[row, kb] · sb[col, kb] · 2^-(exp_a + exp_b) per accumulator register, decoded once.

    A splat constant scale (the unit scales qdot-accelerate-matmul gives an unscaled side,
    in f32 or in the other side's ue8m0 / ue4m3 type) is read at compile time: its value
    folds into the factor and no register of it is ever built.
    """

    def __init__(self, b: Builder, state: FunctionState, mma: MmaOp, acc: MmaLayout):
        self.b = b
        sa_type, sb_type = _tensor(mma.a_scale), _tensor(mma.b_scale)
        self.sa_layout = distributed_layout(sa_type)
        self.sb_layout = distributed_layout(sb_type)
        assert isinstance(self.sa_layout, DotScaleLayout) and isinstance(self.sb_layout, DotScaleLayout)
        self.sa_splat = _splat_value(mma.a_scale)
        self.sb_splat = _splat_value(mma.b_scale)
        self.sa_regs = to_regs(b, mma.a_scale) if self.sa_splat is None else []
        self.sb_regs = to_regs(b, mma.b_scale) if self.sb_splat is None else []
        self.sa_elem = sa_type.get_element_type()
        self.sb_elem = sb_type.get_element_type()
        exp = mma.attributes.get("qdot.exp")
        shift = sum(exp.get_values()) if isinstance(exp, DenseArrayBase) else 0
        self.unit = 2.0 ** -shift
        k_values = _tensor(mma.a).get_shape()[1]
        a_layout = distributed_layout(_tensor(mma.a))
        assert isinstance(a_layout, DotOperandLayout)
        self.tile_k = a_layout.k_tile * (a_layout.k_values // _tensor(mma.a).get_shape()[1]
                                         if k_values else 1)
        self.k_per_block = a_layout.k_values // sa_type.get_shape()[1]
        self.tile_values = a_layout.k_values // a_layout.rep_k
        self._decoded: dict[tuple[str, int, int, int], SSAValue] = {}
        self._products: dict[tuple[SSAValue | float, SSAValue | float], SSAValue] = {}
        self._magic: dict[SSAValue | float, tuple[SSAValue, SSAValue]] = {}
        bits = mma.attributes.get("qdot.scale_bits")
        stated = isinstance(bits, IntegerAttr) and bits.value.data <= NARROW_SCALE_BITS
        self.stated = stated
        """``qdot.scale_bits`` says every f32 scale (and fold factor) is narrow enough for the magic form."""
        self.narrow = all(_narrow_side(splat, elem, stated)
                          for splat, elem in ((self.sa_splat, self.sa_elem), (self.sb_splat, self.sb_elem)))
        """Every scale has few enough significant bits for ``magic_terms`` (see NARROW_SCALE_BITS):
        a constant by its value, a register by its type (ue8m0) or ``qdot.scale_bits``."""
        self.b_first = acc.rep_n < acc.rep_m
        """s is B's when a thread holds fewer columns than rows — fewer −MAGIC · s products (the
        decode kernels' few token columns against many weight rows)."""

    def block_of(self, rk: int) -> int:
        """The scale block (index along the scales' K) of k tile ``rk``."""
        return (rk * self.tile_values) // self.k_per_block

    def _decode(self, side: str, rep: int, half: int, block: int) -> SSAValue | float:
        """One scale as f32 (lhs: times 2^-shift), or its value when known at compile time."""
        splat = self.sa_splat if side == "a" else self.sb_splat
        if splat is not None:
            return splat * self.unit if side == "a" else splat
        key = (side, rep, half, block)
        if key in self._decoded:
            return self._decoded[key]
        layout = self.sa_layout if side == "a" else self.sb_layout
        regs = self.sa_regs if side == "a" else self.sb_regs
        elem = self.sa_elem if side == "a" else self.sb_elem
        b = self.b
        reg, byte = layout.element_slot(rep, half, block)
        value = regs[reg]
        if isinstance(elem, Float32Type):
            decoded = value
        else:
            decoded = _decode_scale(b, value, byte, elem)
        if side == "a" and self.unit != 1.0:
            decoded = b.emit(arith.MulfOp(decoded, b.fconst(self.unit)))
        self._decoded[key] = decoded
        return decoded

    def magic_terms(self, rm: int, rn: int, position: int, rk: int) -> tuple[SSAValue, SSAValue, SSAValue | None]:
        """(s, −MAGIC · s, t) with s · t the register's factor, for ``_magic_rescale``.

        s is the side known at compile time if there is one (the unit side of a one-sided
        scale), else A's scale (B's where a thread holds fewer columns than rows, ``b_first``).
        −MAGIC · s must be exact (``narrow``) and finite: a decoded ue8m0 scale s (A's carries
        2^-shift) reaches 2^127, and above 2^104 the product overflows — such a block is made
        NaN, never a wrong number; the scales ``qdot.scale_bits`` states (below 2^104 by its
        definition) need no such guard. t is None when it is 1.
        """
        block = self.block_of(rk)
        sa = self._decode("a", rm, position >> 1, block)
        sb = self._decode("b", rn, position & 1, block)
        s_elem = self.sa_elem
        if not isinstance(sa, float) and (isinstance(sb, float) or self.b_first):
            sa, sb, s_elem = sb, sa, self.sb_elem
        b = self.b
        if isinstance(sa, float) and isinstance(sb, float) and _narrow_side(sa * sb, None):
            sa, sb = sa * sb, 1.0
        if sa not in self._magic:
            if isinstance(sa, float):
                self._magic[sa] = (b.fconst(sa), b.fconst(-MAGIC * sa))
            elif scale_kind_of(s_elem) is not ScaleKind.UE8M0:
                self._magic[sa] = (sa, b.mulf(sa, b.fconst(-MAGIC)))
            else:
                # above 2^104 the product overflows to −inf, and fma(d, s, −inf) would be −inf:
                # x · 0 + x turns that into NaN (finite x stay as they are), so such a row is
                # NaN, never a wrong number
                neg_magic = b.mulf(sa, b.fconst(-MAGIC))
                self._magic[sa] = (sa, b.fma(neg_magic, b.fconst(0.0), neg_magic))
        scale, neg_magic = self._magic[sa]
        if isinstance(sb, float):
            return scale, neg_magic, None if sb == 1.0 else b.fconst(sb)
        return scale, neg_magic, sb

    def factor(self, rm: int, rn: int, position: int, rk: int) -> SSAValue:
        block = self.block_of(rk)
        row_half, col_half = position >> 1, position & 1
        sa = self._decode("a", rm, row_half, block)
        sb = self._decode("b", rn, col_half, block)
        key = (sa, sb)  # by value: a unit side gives the same product for both of its halves
        if key not in self._products:
            b = self.b
            if isinstance(sa, float) and isinstance(sb, float):
                product = b.fconst(sa * sb)
            elif isinstance(sa, float):
                product = sb if sa == 1.0 else b.mulf(b.fconst(sa), sb)
            elif isinstance(sb, float):
                product = sa if sb == 1.0 else b.mulf(sa, b.fconst(sb))
            else:
                product = b.mulf(sa, sb)
            self._products[key] = product
        return self._products[key]


class _SubScales:
    """The integer factor of each 16-value half of a scale block (``lhs_sub`` / ``rhs_sub``).

    An m16n8k32 s8 tile splits into two m16n8k16 ones without moving a register: A's registers
    0-1 hold k 0-15 of its rows and 2-3 k 16-31, B's register 0 k 0-15 and 1 k 16-31, in both
    shapes (PTX ISA 9.7.14.5.8/.10). So each half's exact s32 sum is weighted by its factor
    (q6_K's int8 scale) and added in s32 — exact: |sum| ≤ 2 · 16 · 128 · 128 · 128 < 2^31 —
    before the block's f32 scales apply once.
    """

    def __init__(self, b: Builder, mma: MmaOp, scales: "_BlockScales"):
        self.b = b
        self.scales = scales
        self.sides = []
        for value in (mma.a_sub, mma.b_sub):
            if value is None:
                self.sides.append(None)
                continue
            layout = distributed_layout(_tensor(value))
            assert isinstance(layout, DotScaleLayout)
            self.sides.append((layout, to_regs(b, value)))
        self.sig = MmaSignature(MmaShape.M16N8K16, MmaType.S32, _PTX_TYPE[mma.lhs], _PTX_TYPE[mma.rhs], MmaType.S32)

    def _factor(self, side: int, rep: int, half: int, block: int, which: int) -> SSAValue | None:
        entry = self.sides[side]
        if entry is None:
            return None
        layout, regs = entry
        reg, _ = layout.element_slot(rep, half, 2 * block + which)
        return regs[reg]

    def weighted_sums(self, a_tile: list[SSAValue], b_tile: list[SSAValue], rm: int, rn: int,
                      rk: int) -> list[SSAValue]:
        """The four accumulator registers' block sums Σ_h f_h · (A_h · B_h) of one k tile, in s32."""
        b = self.b
        zero = b.const(0)
        halves = [b.insert(MmaSyncOp(self.sig, a_tile[2 * h:2 * h + 2], b_tile[h:h + 1], [zero] * 4)).results
                  for h in range(2)]
        block = self.scales.block_of(rk)
        out = []
        for position in range(4):
            total = None
            for h in range(2):
                term = halves[h][position]
                for factor in (self._factor(0, rm, position >> 1, block, h), self._factor(1, rn, position & 1, block, h)):
                    if factor is not None:
                        term = b.mul(term, factor)
                total = term if total is None else b.add(total, term)
            assert total is not None
            out.append(total)
        return out


class _Folds:
    """The rank-1 term of each K block, ``fa[row, kb] · fb[col, kb]``, added at accumulate.

    For q4_K × q8_1 it is llama.cpp's dmin correction: a q4_K value is
    ``d·sc·q − dmin·m``, so a block's dot is ``(d_a)(d·sc)·Σ q_a q − (dmin·m)(s_a)``
    with ``s_a`` the q8_1 block sum; the second part needs no mma at all, only the
    two per-block factors (the minus sign lives in the q4_K ``min`` part's load).
    """

    def __init__(self, b: Builder, mma: MmaOp, scales: "_BlockScales"):
        fa_type, fb_type = _tensor(mma.a_fold), _tensor(mma.b_fold)
        self.fa_layout, self.fb_layout = distributed_layout(fa_type), distributed_layout(fb_type)
        assert isinstance(self.fa_layout, DotScaleLayout) and isinstance(self.fb_layout, DotScaleLayout)
        self.fa_regs, self.fb_regs = to_regs(b, mma.a_fold), to_regs(b, mma.b_fold)
        self.scales = scales
        self.b = b
        self._negated: dict[int, SSAValue] = {}
        self._products: dict[tuple[int, int], SSAValue] = {}
        self._magic: dict[tuple[str, int], tuple[SSAValue, SSAValue]] = {}

    def terms(self, rm: int, rn: int, position: int, rk: int) -> tuple[SSAValue, SSAValue]:
        """(−fa, fb) of an accumulator register, for ``acc = fma(−fa, fb, acc)``."""
        block = self.scales.block_of(rk)
        reg_a, _ = self.fa_layout.element_slot(rm, position >> 1, block)
        reg_b, _ = self.fb_layout.element_slot(rn, position & 1, block)
        if reg_a not in self._negated:
            self._negated[reg_a] = self.b.emit(arith.NegfOp(self.fa_regs[reg_a]))
        return self._negated[reg_a], self.fb_regs[reg_b]

    def magic_terms(self, rm: int, rn: int, position: int, rk: int) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(s, −MAGIC · s, t) with s · t = −fa · fb, for ``_magic_rescale`` of a min sum (``_Mins``): s the
        negated factor of the side with fewer registers (fewer −MAGIC · s products), exact as
        ``qdot.scale_bits`` states for the fold factors too."""
        block = self.scales.block_of(rk)
        reg_a, _ = self.fa_layout.element_slot(rm, position >> 1, block)
        reg_b, _ = self.fb_layout.element_slot(rn, position & 1, block)
        pairs = [("a", reg_a, self.fa_regs[reg_a]), ("b", reg_b, self.fb_regs[reg_b])]
        if len(self.fb_regs) < len(self.fa_regs):
            pairs.reverse()
        (side, reg, value), (_, _, other) = pairs
        key = (side, reg)
        if key not in self._magic:
            b = self.b
            self._magic[key] = (b.emit(arith.NegfOp(value)), b.mulf(value, b.fconst(MAGIC)))
        scale, neg_magic = self._magic[key]
        return scale, neg_magic, other

    def product(self, rm: int, rn: int, position: int, rk: int) -> SSAValue:
        """−fa · fb of an accumulator register, once per pair of fold registers: the factor of a min
        sum (``_Mins``), which takes the place of the implicit 1 of ``terms``."""
        block = self.scales.block_of(rk)
        reg_a, _ = self.fa_layout.element_slot(rm, position >> 1, block)
        reg_b, _ = self.fb_layout.element_slot(rn, position & 1, block)
        key = (reg_a, reg_b)
        if key not in self._products:
            neg_a, fb = self.terms(rm, rn, position, rk)
            self._products[key] = self.b.mulf(neg_a, fb)
        return self._products[key]


class _Mins:
    """``lhs_min`` / ``rhs_min``: the fold term's integer sum Σ_k min[k/16] · other[k] per k tile.

    The min side's operand registers are replaced by its mins: each register of an s8 m16n8k32 operand
    holds four consecutive k of one 16-value half (A: registers 0-1 k 0-15, 2-3 k 16-31; B: 0 and 1), so
    its min repeated in four bytes stands for it — the mins arrive in the operand scale layout (``operand = true``),
    which puts each register's row (A) or column (B) in the thread that holds it — and one more mma from a
    zero accumulator gives the sum, exact in s32 (|sum| ≤ 32 · 255 · 128).
    """

    def __init__(self, b: Builder, mma: MmaOp, sig: MmaSignature, a: DotOperandLayout, b_op: DotOperandLayout):
        self.b = b
        self.sig = sig
        self.side = 0 if mma.a_min is not None else 1
        value = mma.a_min if self.side == 0 else mma.b_min
        assert value is not None
        layout = distributed_layout(_tensor(value))
        assert isinstance(layout, DotScaleLayout)
        self.layout = layout
        self.regs = to_regs(b, value)
        self.operand = a if self.side == 0 else b_op
        self._broadcast: dict[int, SSAValue] = {}
        self.mma = mma

    def _operand(self, reg: int) -> SSAValue:
        """The min of operand register ``reg``'s four values in each of its bytes: one ``prmt`` that
        repeats its byte of the mins' register."""
        slot = group_slot(self.operand, self.layout, reg)
        if slot not in self._broadcast:
            word, byte = self.regs[slot[0]], slot[1]
            self._broadcast[slot] = self.b.emit(PrmtOp(word, word, self.b.const(byte * 0x1111)))
        return self._broadcast[slot]

    def sums(self, a_tile: list[SSAValue], b_tile: list[SSAValue], rm: int, rn: int, rk: int,
             start: int = 0) -> list[SSAValue]:
        """The four accumulator registers' Σ_k min · other of k tile ``rk`` in s32, plus ``start``
        (``MAGIC_BITS`` for the magic form)."""
        if self.side == 0:
            a_tile = [self._operand(r) for r in self.operand.tile_registers(rm, rk)]
        else:
            b_tile = [self._operand(r) for r in self.operand.tile_registers(rn, rk)]
        first = self.b.const(start)
        return list(self.b.insert(MmaSyncOp(self.sig, a_tile, b_tile, [first] * 4)).results)


def _narrow_side(splat: float | None, elem, stated: bool = False) -> bool:  # noqa: ANN001
    """Whether every scale of one side has at most NARROW_SCALE_BITS significant bits: a splat
    constant that short, ue8m0 codes (powers of two), or registers ``qdot.scale_bits`` speaks
    for (``stated``). ue4m3 scales come per 16 values, which the per-block s8 mma (one 32-value
    block per k tile) never takes."""
    if splat is None:
        return stated or scale_kind_of(elem) is ScaleKind.UE8M0
    if not math.isfinite(splat) or splat == 0:
        return splat == 0
    numerator, _ = abs(splat).as_integer_ratio()
    return (numerator >> ((numerator & -numerator).bit_length() - 1)).bit_length() <= NARROW_SCALE_BITS


def _splat_value(value: SSAValue | None) -> float | None:
    """The value of a splat ``arith.constant`` scale tensor (1.0 for unit scales), else None.

    The element types are real-valued (f32, f8E8M0FNU, f8E4M3FN), so the attribute holds
    the scale itself, not its code."""
    owner = value.owner if value is not None else None
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr) \
            and owner.value.is_splat():
        return float(owner.value.get_values()[0])
    return None


def _decode_scale(b: Builder, reg: SSAValue, byte: int, elem) -> SSAValue:  # noqa: ANN001
    """One scale byte of a register as f32: ue8m0 2^(code-127) (0 → 2^-127, 255 → NaN), ue4m3 as e4m3."""
    code = b.and_(b.lshr(reg, 8 * byte), 0xFF)
    kind = scale_kind_of(elem)
    if kind is ScaleKind.UE4M3:
        # e4m3 → f32 bits: exponent rebias by 120, mantissa to bit 20; subnormals via a multiply
        exp_mant = b.shl(code, 20)
        as_float = b.emit(arith.BitcastOp(exp_mant, f32))
        scaled = b.emit(arith.MulfOp(as_float, b.fconst(2.0 ** 120)))
        is_nan = b.cmp("eq", code, 0x7F)
        return b.select(is_nan, b.fconst(float("nan")), scaled)
    # code << 23 is 2^(code − 127) for codes 1–254, but 0 for code 0 and +inf for 255: a max
    # with 2^-127 mends the first, inf · 0 + inf = NaN the second (finite values pass both) —
    # two float instructions where compares and selects take four
    power = b.emit(arith.BitcastOp(b.shl(code, 23), f32))
    power = b.emit(arith.MaxnumfOp(power, b.fconst(2.0 ** -127)))
    return b.fma(power, b.fconst(0.0), power)


class _HwScales:
    """Scale registers for the block-scaled mma: one per instruction and side, selectors 0."""

    def __init__(self, b: Builder, state: FunctionState, mma: MmaOp, inst: Instruction):
        self.b = b
        self.inst = inst
        self.sa_layout = distributed_layout(_tensor(mma.a_scale))
        self.sb_layout = distributed_layout(_tensor(mma.b_scale))
        assert isinstance(self.sa_layout, DotScaleLayout) and isinstance(self.sb_layout, DotScaleLayout)
        self.sa_regs = to_regs(b, mma.a_scale)
        self.sb_regs = to_regs(b, mma.b_scale)
        self.odd_lane = b.cmp("ne", b.and_(state.ids.lane, 1), 0)
        self.zero16 = b.const(0, i16)
        self._cache: dict[tuple[str, int, int], SSAValue] = {}

    def _packed(self, side: str, rep: int, rk: int) -> SSAValue:
        key = (side, rep, rk)
        if key in self._cache:
            return self._cache[key]
        b = self.b
        n = self.inst.blocks_per_tile
        value = b.const(0)
        for j in range(n):
            block = rk * n + j
            if side == "a":
                lo = self._byte(self.sa_layout, self.sa_regs, rep, 0, block)
                hi = self._byte(self.sa_layout, self.sa_regs, rep, 1, block)
                byte = b.select(self.odd_lane, hi, lo)
            else:
                byte = self._byte(self.sb_layout, self.sb_regs, rep, 0, block)
            value = b.or_(value, b.shl(byte, 8 * j))
        self._cache[key] = value
        return value

    def _byte(self, layout: DotScaleLayout, regs: list[SSAValue], rep: int, half: int, block: int) -> SSAValue:
        reg, byte = layout.element_slot(rep, half, block)
        return self.b.and_(self.b.lshr(regs[reg], 8 * byte), 0xFF)

    def operands(self, rm: int, rn: int, rk: int) -> tuple[tuple[SSAValue, ...], tuple[SSAValue, ...]]:
        z = self.zero16
        return (self._packed("a", rm, rk), z, z), (self._packed("b", rn, rk), z, z)


__all__ = ["LowerMmaPass", "DotOperandEncodingAttr", "i32"]
