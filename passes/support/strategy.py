"""How a dot reaches the tensor cores: the strategy table of qdot-accelerate-matmul.

One function, ``choose_plan``, decides for an (arch, strategy, lhs, rhs, scales)
problem which mma instruction family runs it and what each operand becomes in
registers; illegal requests come back as a sentence for the diagnostic. The
decisions follow DESIGN.md §3 and seed 003:

* ``native`` (sm_120a / sm_120f / sm_121a): fp8/fp6/fp4 operands go to the
  tensor core as they are: ``kind::f8f6f4`` (unscaled) or the block-scaled kinds
  (``mxf8f6f4`` with ue8m0 per 32; ``mxf4`` for MXFP4 × MXFP4; ``mxf4nvf4`` 4X
  for NVFP4). A packed fp4 operand of a mixed or unscaled pair is staged through
  ``fp4Padded`` shared memory and read by ``ldmatrix .b4x16_p64`` into an
  ``fp4Unpacked`` dot operand (the ``00xxxx00`` shift happens at the mma).
* ``promote-fp8`` (sm_89+; emulated by ptxas on sm_90): fp4/fp6 become e4m3 in
  registers (exact), e5m2 stays; scales are applied to the fp32 accumulator per
  scale block (exact: one mma per block, then ``acc += d · sa · sb``).
* ``promote-int8`` (sm_80+): values that are small integers after a power-of-two
  shift become s8 (e2m1 × 2, e2m3 × 8, i8, ggml quants); the s8 mma accumulates
  one scale block exactly in i32 and the block scales are applied as an fp32
  rescale at accumulate, the way llama.cpp's MMQ applies its scales.
* ``dequant-bf16`` (sm_80+): both operands become bf16 (fp16 when either is fp16);
  power-of-two MX scales are folded into the bf16 values during the conversion
  (exact while the scaled value stays in bf16's range), other scales are applied
  per block to the accumulator.
* ``auto``: the fastest legal strategy for the arch, asking each in turn — native
  on sm_120a-class, promote-fp8 where the fp8 mma is native (sm_89, sm_120a-class;
  never the emulated fp8 mma of sm_90), then dequant-bf16 before promote-int8 on
  Hopper (measured faster there) and after it elsewhere. So a scale on one side only
  (which the block-scaled mma cannot take) and NVFP4's 16-value scale groups (which the
  32-wide fp8/s8 k tiles cannot rescale) go to the next strategy that can run them.

fp4 packed along M or N (``lhs_k_pack`` / ``rhs_k_pack = false``) runs on dequant-bf16
only (``auto`` picks it): the cooperative upcast unpacks it along M/N once per CTA, and
the scales are applied to the accumulator per K block (``_free_packed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xdsl.utils.str_enum import StrEnum

from dialects.qdot.formats import Format, ScaleKind, format_info
from dialects.qgpu.register_formats import S8_FACTOR, RegFormat, Rescale


class Strategy(StrEnum):
    AUTO = "auto"
    NATIVE = "native"
    PROMOTE_FP8 = "promote-fp8"
    PROMOTE_INT8 = "promote-int8"
    DEQUANT_BF16 = "dequant-bf16"


NATIVE_ARCHES = ("sm_120a", "sm_120f", "sm_121a")
FP8_MMA_ARCHES = ("sm_89", "sm_90", "sm_90a", *NATIVE_ARCHES)
FP8_MMA_NATIVE_ARCHES = ("sm_89", *NATIVE_ARCHES)
"""sm_90 accepts fp8 mma.sync but ptxas emulates it with f16 HMMA (reference/ptx.md §1.1)."""

F8F6F4 = (Format.E4M3, Format.E5M2, Format.E2M3, Format.E3M2, Format.E2M1)
INT8_SHIFT = {Format.E2M1: S8_FACTOR[RegFormat.E2M1].bit_length() - 1,
              Format.E2M3: S8_FACTOR[RegFormat.E2M3].bit_length() - 1, Format.I8: 0}
"""Formats whose values times 2^shift are exact int8 (the shift is log2 of qgpu's S8_FACTOR):
e2m1 ∈ {0, ±0.5, …, ±6} × 2 ⊂ [-12, 12]; e2m3 ∈ {k/8} × 8 ⊂ [-60, 60]."""


@dataclass(frozen=True)
class OperandPlan:
    source: Format
    reg: RegFormat
    fp4_unpacked: bool = False
    """Staged through fp4Padded shared memory and ldmatrix .b4x16_p64 (native mixed fp4)."""
    fp4_packed_mma: bool = False
    """Consumed packed by an m16n8k64 mxf4/mxf4nvf4 mma."""
    exp: int = 0
    """Register value = real value × 2^exp (promote-int8 shifts)."""
    fold_scale: bool = False
    """The operand's block scale is multiplied into the converted register values."""
    free_packed: bool = False
    """Packed fp4 along M (lhs) or N (rhs), not K: unpacked once per CTA along that dimension."""
    staged_fp8: bool = False
    """promote-fp8, packed e2m1: converted to e4m3 once per CTA into a shared buffer, which
    ldmatrix reads in the ISA arrangement; qdot-accelerate-matmul sets it where the tile allows."""


@dataclass(frozen=True)
class Plan:
    strategy: Strategy
    lhs: OperandPlan
    rhs: OperandPlan
    rescale: Rescale
    acc_int: bool = False
    """s8 × s8 without scales accumulates in i32 (i8 × i8 dots)."""
    block_k: int = 32
    """Scale block length along K (16 for NVFP4)."""
    refused: tuple[tuple[Strategy, str], ...] = field(default=(), compare=False)
    """``auto``: the strategies it asked before this one, each with its refusal (the PlanError
    message), for qdot-accelerate-matmul's remark."""
    rule: str = field(default="", compare=False)
    """Where the formats decide the strategy whatever was asked (ggml blocks, i8, fp4 packed
    along M or N), that rule, for the remark."""

    @property
    def mma_kind(self) -> str:
        """The mma family, for diagnostics and lit tests."""
        if self.rescale is Rescale.HW:
            if self.lhs.fp4_packed_mma:
                return "mxf4nvf4" if self.block_k == 16 else "mxf4"
            return "mxf8f6f4"
        if self.lhs.reg in (RegFormat.BF16, RegFormat.FP16):
            return self.lhs.reg.value
        if self.lhs.reg is RegFormat.S8:
            return "s8"
        if self.strategy is Strategy.NATIVE and any(
            p.reg in (RegFormat.E2M1, RegFormat.E2M3, RegFormat.E3M2) for p in (self.lhs, self.rhs)
        ):
            return "f8f6f4"
        return "fp8"


BLOCK_RULE = "ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ"
I8_RULE = "i8 × i8 runs on the s8 mma"
FREE_PACKED_RULE = "fp4 packed along M or N runs on dequant-bf16 only (the other mma fragments pack fp4 along K)"


class PlanError(Exception):
    """An illegal (arch, strategy, formats) request; the message is the diagnostic."""


def _has_scale(scale: ScaleKind | None) -> bool:
    return scale is not None


def choose_plan(
    arch: str,
    strategy: Strategy,
    lhs: Format,
    rhs: Format,
    lhs_scale: ScaleKind | None,
    rhs_scale: ScaleKind | None,
    lhs_k_pack: bool = True,
    rhs_k_pack: bool = True,
) -> Plan:
    """The plan for one dot, or PlanError saying why the request is illegal."""
    block_k = 16 if ScaleKind.UE4M3 in (lhs_scale, rhs_scale) else 32
    if format_info(lhs).is_block or format_info(rhs).is_block:
        if strategy not in (Strategy.AUTO, Strategy.PROMOTE_INT8, Strategy.NATIVE):
            raise PlanError(
                f"block formats ({lhs} × {rhs}) carry their scales inside ggml blocks and take strategy "
                f"'promote-int8', not '{strategy}'")
        # llama.cpp's MMQ: int8 quants (q4_K as raw nibbles), the s8 mma per 32-value block,
        # the block scales and the q4_K dmin term folded in fp32 at accumulate
        return Plan(Strategy.PROMOTE_INT8, OperandPlan(lhs, RegFormat.S8), OperandPlan(rhs, RegFormat.S8),
                    Rescale.PER_BLOCK, rule=BLOCK_RULE)
    if lhs is Format.I8 or rhs is Format.I8:
        if strategy not in (Strategy.AUTO, Strategy.PROMOTE_INT8, Strategy.NATIVE):
            raise PlanError(f"i8 × i8 runs on the s8 mma (strategy 'promote-int8' or 'auto'), not '{strategy}'")
        return Plan(Strategy.PROMOTE_INT8, OperandPlan(lhs, RegFormat.S8), OperandPlan(rhs, RegFormat.S8),
                    Rescale.NONE, acc_int=True, rule=I8_RULE)
    if strategy is Strategy.NATIVE:
        return _native(arch, lhs, rhs, lhs_scale, rhs_scale, lhs_k_pack, rhs_k_pack, block_k)
    if not (lhs_k_pack and rhs_k_pack):
        return _free_packed(strategy, lhs, rhs, lhs_scale, rhs_scale, lhs_k_pack, rhs_k_pack, block_k)
    if strategy is Strategy.AUTO:
        return _auto(arch, lhs, rhs, lhs_scale, rhs_scale, block_k)
    return _plan(strategy, arch, lhs, rhs, lhs_scale, rhs_scale, block_k)


def _plan(strategy: Strategy, arch: str, lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None,
          block_k: int) -> Plan:
    """The plan of one explicit strategy for K-packed operands (PlanError when illegal)."""
    if strategy is Strategy.NATIVE:
        return _native(arch, lhs, rhs, ls, rs, True, True, block_k)
    if strategy is Strategy.PROMOTE_FP8:
        return _promote_fp8(arch, lhs, rhs, ls, rs, block_k)
    if strategy is Strategy.PROMOTE_INT8:
        return _promote_int8(lhs, rhs, ls, rs, block_k)
    return _dequant(lhs, rhs, ls, rs, block_k)


DEQUANT_BEFORE_INT8_ARCHES = ("sm_90", "sm_90a")
"""Where dequant-bf16 was measured faster than promote-int8 for the float pairs both run (run 134
of bench/RESULTS.md, H200: e2m1 × e2m1 and e2m3 × e2m1, the best tile of each at 8192³, 4096³
and 512 × 4096²: 1.13–1.42 × on sm_90's bf16 mma.sync, 1.55–2.14 × on sm_90a's wgmma). promote-int8
costs a fold per s8 mma that bf16's tensor-core accumulation does not; its accuracy is the better
one (see ``_auto``)."""


def _auto(arch: str, lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None, block_k: int) -> Plan:
    """The first legal strategy, fastest first: native on the sm_120a family, the fp8 mma
    where it is native (sm_89, sm_120a family; never sm_90's f16 emulation), then the s8 mma
    and dequant-bf16, which runs every float pair — in the measured order on Hopper (dequant-bf16
    first, ``DEQUANT_BEFORE_INT8_ARCHES``), by the s8 mma's twice the bf16 rate elsewhere (not
    measured). Asking the strategies themselves keeps auto from promising what the chosen
    strategy then refuses (a scale on one side only for native, NVFP4's 16-value groups for the
    32-wide fp8/s8 k tiles).

    Speed is what auto weighs, not accuracy. The two differ there: promote-int8 sums each
    32-value block exactly and folds it into f32 rounding to nearest (relative error ~2e-7 at
    K = 8192, growing as √K), while a bf16 tensor core truncates its running sum toward zero at
    every k16 step (``compiler.numerics.tensor_core``), a bias that grows with K: 3e-6 at
    K = 8192, 1.3e-5 at 32768 (docs/numerics.md). Ask for promote-int8 where that matters, or
    promote the bf16 sum each K step (``GemmConfig(promote=True)``: the dot from zero, then
    ``arith.addf``)."""
    refusals: list[tuple[Strategy, str]] = []
    for strategy in auto_order(arch):
        try:
            plan = _plan(strategy, arch, lhs, rhs, ls, rs, block_k)
        except PlanError as err:
            refusals.append((strategy, str(err)))
            continue
        return replace(plan, refused=tuple(refusals)) if refusals else plan
    raise PlanError(f"no strategy runs {lhs} × {rhs} on {arch}: {'; '.join(text for _, text in refusals)}")


def auto_order(arch: str) -> list[Strategy]:
    """The strategies ``auto`` asks on ``arch``, in order (``_auto`` says why this order)."""
    candidates: list[Strategy] = []
    if arch in NATIVE_ARCHES:
        candidates.append(Strategy.NATIVE)
    if arch in FP8_MMA_NATIVE_ARCHES:
        candidates.append(Strategy.PROMOTE_FP8)
    if arch in DEQUANT_BEFORE_INT8_ARCHES:
        candidates += [Strategy.DEQUANT_BF16, Strategy.PROMOTE_INT8]
    else:
        candidates += [Strategy.PROMOTE_INT8, Strategy.DEQUANT_BF16]
    return candidates


def auto_not_asked(arch: str, lhs: Format, rhs: Format, lhs_scale: ScaleKind | None,
                   rhs_scale: ScaleKind | None) -> list[tuple[Strategy, str]]:
    """The strategies ``auto`` never asks on ``arch`` (``auto_order`` leaves them out), each with
    why: for qdot-accelerate-matmul's remark, so that "why not native?" has an answer on sm_90."""
    skipped: list[tuple[Strategy, str]] = []
    if arch not in NATIVE_ARCHES:
        skipped.append((Strategy.NATIVE, _native_not_here(lhs, rhs, lhs_scale, rhs_scale)))
    if arch not in FP8_MMA_NATIVE_ARCHES:
        skipped.append((Strategy.PROMOTE_FP8, f"ptxas emulates the fp8 mma.sync with f16 HMMA on {arch}"
                        if arch in FP8_MMA_ARCHES else "no fp8 mma.sync before sm_89"))
    return skipped


def _native_not_here(lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None) -> str:
    """Why native cannot run ``lhs × rhs`` off the sm_120a family, naming the mma.sync kind it
    would run these formats on there (``Plan.mma_kind`` of its plan), or why it would refuse
    them even there."""
    archs = ", ".join(NATIVE_ARCHES)
    block_k = 16 if ScaleKind.UE4M3 in (ls, rs) else 32
    try:
        kind = _native(NATIVE_ARCHES[0], lhs, rhs, ls, rs, True, True, block_k).mma_kind
    except PlanError as err:
        return f"it is {archs} only, and would refuse {lhs} × {rhs} there too: {err}"
    if kind == "fp8":  # no kind:: qualifier: the fp8 mma.sync that promote-fp8 runs
        return f"it is {archs} only; {lhs} × {rhs} would run there on the fp8 mma.sync, as under promote-fp8"
    return f"the kind::{kind} mma.sync it would run {lhs} × {rhs} on is {archs} only"


def _native(arch: str, lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None,
            lhs_k_pack: bool, rhs_k_pack: bool, block_k: int) -> Plan:
    if arch not in NATIVE_ARCHES:
        raise PlanError(
            f"strategy 'native' needs the kind::f8f6f4 mma.sync of sm_120a, sm_120f or sm_121a; got {arch}")
    for side, fmt in (("lhs", lhs), ("rhs", rhs)):
        if fmt not in F8F6F4:
            raise PlanError(f"strategy 'native' takes fp8/fp6/fp4 operands; {side} is {fmt}")
    if not (lhs_k_pack and rhs_k_pack):
        raise PlanError("strategy 'native' needs K-packed fp4 (the mma fragments pack fp4 along K); "
                        "use 'dequant-bf16' for M/N-packed fp4")
    scaled = _has_scale(ls) or _has_scale(rs)
    if block_k == 16 and not (lhs is Format.E2M1 and rhs is Format.E2M1):
        raise PlanError("NVFP4 (ue4m3 scales per 16) needs e2m1 × e2m1 for kind::mxf4nvf4")
    if scaled and not (_has_scale(ls) and _has_scale(rs)):
        raise PlanError("the block-scaled mma needs scales on both sides; give the unscaled side unit scales "
                        "(ue8m0 code 127)")
    if block_k == 16:
        return Plan(Strategy.NATIVE, OperandPlan(lhs, RegFormat.E2M1, fp4_packed_mma=True),
                    OperandPlan(rhs, RegFormat.E2M1, fp4_packed_mma=True), Rescale.HW, block_k=16)
    if scaled and lhs is Format.E2M1 and rhs is Format.E2M1:
        return Plan(Strategy.NATIVE, OperandPlan(lhs, RegFormat.E2M1, fp4_packed_mma=True),
                    OperandPlan(rhs, RegFormat.E2M1, fp4_packed_mma=True), Rescale.HW)
    lhs_plan = OperandPlan(lhs, RegFormat(lhs.value), fp4_unpacked=lhs is Format.E2M1)
    rhs_plan = OperandPlan(rhs, RegFormat(rhs.value), fp4_unpacked=rhs is Format.E2M1)
    return Plan(Strategy.NATIVE, lhs_plan, rhs_plan, Rescale.HW if scaled else Rescale.NONE)


def _promote_fp8(arch: str, lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None,
                 block_k: int) -> Plan:
    if arch not in FP8_MMA_ARCHES:
        raise PlanError(f"strategy 'promote-fp8' needs the fp8 mma.sync of sm_89 or later; got {arch}")
    plans = []
    for side, fmt in (("lhs", lhs), ("rhs", rhs)):
        if fmt not in F8F6F4:
            raise PlanError(f"strategy 'promote-fp8' takes fp8/fp6/fp4 operands; {side} is {fmt}")
        reg = RegFormat.E5M2 if fmt is Format.E5M2 else RegFormat.E4M3
        plans.append(OperandPlan(fmt, reg))
    _refuse_16_value_groups("promote-fp8", "fp8", block_k)
    rescale = Rescale.PER_BLOCK if (_has_scale(ls) or _has_scale(rs)) else Rescale.NONE
    return Plan(Strategy.PROMOTE_FP8, plans[0], plans[1], rescale, block_k=block_k)


def _promote_int8(lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None, block_k: int) -> Plan:
    for side, fmt in (("lhs", lhs), ("rhs", rhs)):
        if fmt not in INT8_SHIFT:
            raise PlanError(
                f"strategy 'promote-int8' needs values that are exact small integers after a power-of-two "
                f"shift (e2m1, e2m3, i8, ggml quants); {side} is {fmt}")
    _refuse_16_value_groups("promote-int8", "s8", block_k)
    # The s8 mma accumulates in i32; an f32 accumulator takes each block's integer sum
    # times its scales (unit scales when there are none) and the 2^-shift of the promotion.
    rescale = Rescale.PER_BLOCK
    return Plan(Strategy.PROMOTE_INT8,
                OperandPlan(lhs, RegFormat.S8, exp=INT8_SHIFT[lhs]),
                OperandPlan(rhs, RegFormat.S8, exp=INT8_SHIFT[rhs]), rescale, block_k=block_k)


def _refuse_16_value_groups(strategy: str, mma: str, block_k: int) -> None:
    """A per-block rescale runs one mma k tile per scale group; the fp8 and s8 mma tiles
    are 32 values wide (no k16 form exists), so 16-value groups (NVFP4's ue4m3) cannot be
    applied one per tile."""
    if block_k < 32:
        raise PlanError(
            f"strategy '{strategy}' cannot apply scales per {block_k} values (NVFP4 ue4m3): the {mma} mma "
            f"k tile spans 32 values, two scale groups; use 'dequant-bf16', which folds them exactly")


def _free_packed(strategy: Strategy, lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None,
                 lhs_k_pack: bool, rhs_k_pack: bool, block_k: int) -> Plan:
    """fp4 packed along M or N: only dequant-bf16 runs it. The mma fragments of the fp8, s8
    and f8f6f4 forms hold fp4 pairs along K, so a free-packed operand must be unpacked before
    any mma sees it; the cooperative (once per CTA) upcast does that along the operand's
    contiguous dimension, which for a free-packed operand is M or N. Its bf16 result carries
    no scale: the unpacking threads hold runs along M/N, not whole 32-value K groups, so both
    sides' scales are applied to the accumulator per K block instead of folded into values."""
    if strategy not in (Strategy.AUTO, Strategy.DEQUANT_BF16):
        free = ", ".join(f"{side} packed along {dim}" for side, dim, packed in
                         (("lhs", "M", lhs_k_pack), ("rhs", "N", rhs_k_pack)) if not packed)
        raise PlanError(f"strategy '{strategy}' needs fp4 packed along K ({free}): the {strategy} mma "
                        f"fragments hold fp4 pairs along K; use 'dequant-bf16' (or 'auto')")
    plan = _dequant(lhs, rhs, ls, rs, block_k)
    scaled = _has_scale(ls) or _has_scale(rs)
    return Plan(Strategy.DEQUANT_BF16,
                OperandPlan(lhs, plan.lhs.reg, free_packed=not lhs_k_pack),
                OperandPlan(rhs, plan.rhs.reg, free_packed=not rhs_k_pack),
                Rescale.PER_BLOCK if scaled else Rescale.NONE, block_k=block_k, rule=FREE_PACKED_RULE)


def _dequant(lhs: Format, rhs: Format, ls: ScaleKind | None, rs: ScaleKind | None, block_k: int) -> Plan:
    for side, fmt in (("lhs", lhs), ("rhs", rhs)):
        if fmt not in (*F8F6F4, Format.BF16, Format.FP16):
            raise PlanError(f"strategy 'dequant-bf16' takes float formats; {side} is {fmt}")
    if {lhs, rhs} == {Format.BF16, Format.FP16}:  # either conversion changes values: fp16 → NaN/inf or rounded
        raise PlanError(f"{lhs} × {rhs} has no exact 16-bit mma type: fp16 lacks bf16's exponent range (bf16 "
                        f"values overflow or round in it) and bf16 fp16's 11 significant bits; convert one operand "
                        f"to the other's type in the IR, where the rounding is yours to choose")
    compute = RegFormat.FP16 if Format.FP16 in (lhs, rhs) else RegFormat.BF16
    # Scales multiply exactly into bf16 values: ue8m0 is a power of two (exact while the
    # product stays in bf16's range), and ue4m3 (4 significant bits) times e2m1 (2 bits)
    # needs at most 6 of bf16's 8. fp16 lacks ue8m0's range, so fp16 compute rescales those per
    # block; NVFP4 (ue4m3, e2m1 data only) folds there too: |e2m1 · ue4m3| lies in [2^-10, 2688],
    # normal fp16 with 6 of its 11 significant bits, so the product is exact.
    fold = compute is RegFormat.BF16 or all(scale in (None, ScaleKind.UE4M3) for scale in (ls, rs))
    rescale = Rescale.NONE if fold or not (_has_scale(ls) or _has_scale(rs)) else Rescale.PER_BLOCK
    return Plan(Strategy.DEQUANT_BF16,
                OperandPlan(lhs, compute, fold_scale=fold and _has_scale(ls)),
                OperandPlan(rhs, compute, fold_scale=fold and _has_scale(rs)), rescale, block_k=block_k)


STRATEGY_NAMES = tuple(s.value for s in Strategy)
