"""qdot-lower-local-load: shared memory → registers, as ``ldmatrix`` where it fits.

Decides, for each ``qgpu.local_load``, which instruction moves the buffer into
the destination layout. The register layout (``#qgpu.dot_op``, ``#qgpu.dot_scale``,
``#qgpu.blocked``) and the shared layout (``#qgpu.shared``) come from their one
layout function each (dialects/qgpu/layouts.py); composing them gives, per
destination byte, a shared-memory byte offset that is linear over GF(2) in the
bits of (element, lane, warp). An ``ldmatrix`` form (dialects/qgpu/ldmatrix.py)
is used when, for every lane, register and byte it writes, the byte it delivers
is the byte the layout wants there:

* ``.m8n16 .b8x16.b4x16_p64`` for an ``fp4Padded`` buffer read into an
  ``fp4Unpacked`` operand (sm_100a / sm_120a families), the fp4 mode of seed 003;
* ``.m8n8 .b16`` (and ``.trans``) for 8- and 16-bit operands;
* otherwise the fallback: scalar ``ld.shared`` — whole 32-bit registers where the
  four bytes are contiguous and 4-byte aligned, two 16-bit halves where they are contiguous
  and 2-byte aligned (the quants of q4_0's 18- and q8_0's 34-byte blocks), the two aligned
  words around four contiguous bytes at 1 or 3 mod 4 joined by one ``prmt`` (mxfp4's 17-byte blocks,
  unswizzled), single bytes otherwise, and for ``fp4Unpacked``
  destinations a 16-bit load whose two packed bytes are spread into four
  ``0000xxxx`` bytes (the same registers the fp4 ldmatrix produces).

The result is the destination's registers in layout order, re-assembled into
the tensor with an ``unrealized_conversion_cast`` for later passes; the buffer's
base offset is taken from the memdesc the same way (``qdot-to-llvm`` resolves both).

Lit tests: ``tests/lit/qdot-lower-local-load/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType, VectorType, f32, i8, i16, i32
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from compiler import remarks
from compiler.diagnostics import emit_error
from compiler.pipelines import PTX_ARCHES
from dialects.ptx.arch import Arch, Feature, targets_phrase
from dialects.ptx.ldmatrix_forms import LdmatrixElt, LdmatrixShape
from dialects.ptx.ops import LdmatrixOp, LdSharedOp, PrmtOp, UnpackOp
from dialects.qgpu.distributed import DistributedLayout
from dialects.qgpu.encodings import DotOperandEncodingAttr, DotScaleEncodingAttr
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import distributed_layout, shared_layout
from dialects.qgpu.block_parts import BlockPartLayout
from dialects.qgpu.ldmatrix import LdmatrixForm
from dialects.qgpu.ops import LocalLoadOp
from dialects.qgpu.shared_layout import SharedLayout
from dialects.qgpu.types import MemDescType
from passes.support.bank_conflicts import Wavefronts, access_wavefronts, ldmatrix_wavefronts
from passes.support.block_fields import lower_derived_load
from passes.support.builder import Builder
from passes.support.distributed import (
    FunctionState,
    LinearOffsets,
    combine,
    combined,
    element_coords,
    elements_per_thread,
    from_regs,
    reg_type,
)
from passes.support.options import check_option_values

PREFERRED_FORMS = (
    LdmatrixForm(LdmatrixShape.M8N16, 4, False, LdmatrixElt.B8X16_B4X16_P64),
    LdmatrixForm(LdmatrixShape.M8N16, 2, False, LdmatrixElt.B8X16_B4X16_P64),
    LdmatrixForm(LdmatrixShape.M8N16, 1, False, LdmatrixElt.B8X16_B4X16_P64),
    LdmatrixForm(LdmatrixShape.M8N8, 4, False, LdmatrixElt.B16),
    LdmatrixForm(LdmatrixShape.M8N8, 4, True, LdmatrixElt.B16),
    LdmatrixForm(LdmatrixShape.M8N8, 2, False, LdmatrixElt.B16),
    LdmatrixForm(LdmatrixShape.M8N8, 2, True, LdmatrixElt.B16),
    LdmatrixForm(LdmatrixShape.M8N8, 1, False, LdmatrixElt.B16),
    LdmatrixForm(LdmatrixShape.M8N8, 1, True, LdmatrixElt.B16),
)


@dataclass(frozen=True)
class LowerLocalLoadPass(ModulePass):
    name = "qdot-lower-local-load"
    OPTION_VALUES: ClassVar[dict[str, tuple[str, ...]]] = {"arch": PTX_ARCHES}
    """What each option takes (the tools' --help lists it; ``apply`` refuses anything else)."""

    arch: str = "sm_90"
    ldmatrix: bool = True
    """Set ``ldmatrix=false`` to force the scalar fallback (used by tests that compare the two)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_option_values(self)
        arch = Arch(self.arch)
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            state = FunctionState(func)
            for load in [o for o in func.walk() if isinstance(o, LocalLoadOp)]:
                try:
                    _lower(load, state, arch, self.ldmatrix and not _fallback_requested(load),
                           "ldmatrix=false" if not self.ldmatrix else "the op's fallback attribute asks for it")
                except LayoutError as err:
                    emit_error(load, str(err))


def _fallback_requested(load: LocalLoadOp) -> bool:
    return getattr(load, "fallback", None) is not None


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Access:
    """What the thread's layout asks of shared memory, as linear maps of (element, lane, warp)."""

    layout: DistributedLayout
    shared: SharedLayout
    offsets: LinearOffsets
    nibbles: LinearOffsets | None
    """fp4Unpacked: which nibble of the packed byte each register byte holds."""

    @property
    def elem_bytes(self) -> int:
        return self.layout.elem_bytes

    def byte_offset(self, reg: int, byte: int, lane: int, warp: int = 0) -> int:
        """Offset of byte ``byte`` of register ``reg`` (inner bytes of wider elements follow their start)."""
        within = byte % self.elem_bytes
        elem = (reg * 4 + byte - within) // self.elem_bytes
        return self.offsets.at(elem, lane, warp) + within

    def nibble(self, reg: int, byte: int, lane: int, warp: int = 0) -> int:
        if self.nibbles is None:
            return 0
        return self.nibbles.at(reg * 4 + byte, lane, warp)


def _access(load: LocalLoadOp) -> Access:
    tensor = load.result.type
    memdesc = load.src.type
    assert isinstance(tensor, TensorType) and isinstance(memdesc, MemDescType)
    layout = distributed_layout(tensor)
    shared = shared_layout(memdesc)
    if shared.stage_rank:
        emit_error(load, "local_load reads one stage: index the pipelined buffer with qgpu.memdesc_index first")
    unpacked = isinstance(tensor.encoding, DotOperandEncodingAttr) and tensor.encoding.fp4_unpacked
    elems = elements_per_thread(layout)

    coords = element_coords(load, tensor, layout)

    def offset_of(elem: int, lane: int, warp: int) -> int:
        c = coords(elem, lane, warp)
        return shared.offset(c[:2] if unpacked else c)

    def nibble_of(elem: int, lane: int, warp: int) -> int:
        return coords(elem, lane, warp)[2]

    warps = layout.num_warps
    check = [(e, lane, w) for e in range(0, elems, max(1, elems // 8)) for lane in (1, 6, 13, 31)
             for w in {0, warps - 1}]
    try:
        offsets = LinearOffsets.derive(offset_of, elems, warps, check, allow_additive=isinstance(shared, BlockPartLayout))
        nibbles = LinearOffsets.derive(nibble_of, elems, warps, check) if unpacked else None
    except ValueError as err:
        emit_error(load, f"shared layout and register layout do not compose linearly ({err}); "
                         f"use power-of-two tiles")
    return Access(layout, shared, offsets, nibbles)


@dataclass(frozen=True)
class LdmatrixPlan:
    form: LdmatrixForm
    groups: tuple[tuple[int, ...], ...]
    """For each instruction, our register receiving its destination register i."""
    row_bases: tuple[int, ...]
    """Per address lane bit: the XOR it contributes to the row address."""
    group_offsets: tuple[int, ...]
    row_origin: int = 0
    """Offset of lane 0's row (nonzero only for affine block_part views)."""


def _match_ldmatrix(access: Access, form: LdmatrixForm, why: list[str] | None = None) -> LdmatrixPlan | None:
    """The plan of ``form`` for this access, or None; ``why`` (remarks only) gets the condition
    that failed."""
    layout = access.layout
    regs = layout.regs_per_thread
    n = form.num_regs
    if regs % n:
        return _refused(why, lambda: f"a thread holds {regs} register{'s' if regs != 1 else ''}, not a multiple "
                                     f"of the form's {n}")
    unpacked = access.nibbles is not None
    if form.elt.is_sub_byte != unpacked:
        return _refused(why, lambda: "it delivers " + ("whole bytes, the layout wants unpacked fp4 nibbles" if unpacked
                                                      else "unpacked fp4 nibbles, the layout wants whole bytes"))
    if form.elt is LdmatrixElt.B8X16_B4X16_P64 and not access.shared.fp4_padded:
        return _refused(why, lambda: "the buffer is not fp4Padded (.b4x16_p64 reads rows of 8 packed bytes "
                                     "padded to 16)")
    # instruction register i -> our register (lowest register bits first)
    rows: dict[int, int] = {}
    for lane in range(32):
        for i in range(n):
            for byte in range(4):
                if not unpacked and byte % access.elem_bytes and form.elt is not LdmatrixElt.B16:
                    continue
                src = form.source(lane, i, byte)
                if unpacked:
                    data, nib = src.index >> 1, src.index & 1
                    if access.nibble(i, byte, lane) != nib:
                        return _refused(why, lambda: f"lane {lane} register {i} byte {byte} wants nibble "
                                                     f"{access.nibble(i, byte, lane)} of its byte, the form "
                                                     f"delivers nibble {nib}")
                else:
                    data = src.index
                ours = access.byte_offset(i, byte, lane)
                base = ours - data
                if base % 16:
                    return _refused(why, lambda: "the form reads 16-byte rows that must each begin at a multiple "
                                                 "of 16 bytes, and this operand's bytes are not laid out that way: "
                                                 f"lane {lane} register {i} byte {byte} comes from offset {ours}, "
                                                 f"but the form gives that lane byte {data} of a row, so that row "
                                                 f"would begin at offset {base}")
                if rows.setdefault(src.row, base) != base:
                    return _refused(why, lambda: f"the bytes the form reads as row {src.row} are not one "
                                                 f"contiguous row (offsets {rows[src.row]} and {base})")
    if any(w % 16 for w in access.offsets.warp_bases):
        return _refused(why, lambda: f"a warp's offset ({', '.join(map(str, access.offsets.warp_bases))}) is not a "
                                     "multiple of 16 bytes")
    used = form.num_rows
    additive = access.offsets.additive
    row_addr = [rows.get(r, rows.get(r % used, 0)) for r in range(32)]
    row_origin = row_addr[0]
    if row_origin and not additive:
        return _refused(why, lambda: f"lane 0's row starts at offset {row_origin} of a swizzled buffer")
    row_bases = tuple(row_addr[1 << j] - row_origin for j in range(5))
    for r in range(used):
        acc = 0
        for j in range(5):
            if r >> j & 1:
                acc = acc + row_bases[j] if additive else acc ^ row_bases[j]
        if row_origin + acc != row_addr[r]:
            return _refused(why, lambda: f"row {r}'s address is not linear in the lane bits of its address lane")
    groups = tuple(tuple(range(g, g + n)) for g in range(0, regs, n))
    group_offsets = []
    for group in groups:
        offset = access.byte_offset(group[0], 0, 0) - access.byte_offset(0, 0, 0)
        if offset % 16:
            return _refused(why, lambda: f"registers {group[0]}..{group[-1]} start {offset} bytes from the first "
                                         "instruction's, not a multiple of 16")
        # every group must be the first group shifted by a constant
        for lane in (0, 5, 31):
            for i in range(n):
                if access.byte_offset(group[i], 0, lane) != access.byte_offset(i, 0, lane) ^ offset and \
                        access.byte_offset(group[i], 0, lane) != access.byte_offset(i, 0, lane) + offset:
                    return _refused(why, lambda: f"registers {group[0]}..{group[-1]} are not the first instruction's "
                                                 "rows moved by one offset")
        group_offsets.append(offset)
    return LdmatrixPlan(form, groups, row_bases, tuple(group_offsets), row_origin)


def _refused(why: list[str] | None, reason: Callable[[], str]) -> None:
    """No plan; the reason, built only when a remark asks for it (``why`` given)."""
    if why is not None:
        why.append(reason())


def _lower(load: LocalLoadOp, state: FunctionState, arch: Arch, use_ldmatrix: bool,
           no_ldmatrix_reason: str = "") -> None:
    """``no_ldmatrix_reason``: why ``use_ldmatrix`` is False, for the remark."""
    memdesc = load.src.type
    assert isinstance(memdesc, MemDescType)
    shared = shared_layout(memdesc)
    if isinstance(shared, BlockPartLayout) and not shared.spec.raw:
        fields: list[tuple[int, list[int]]] | None = [] if remarks.enabled(LowerLocalLoadPass.name) else None
        out = lower_derived_load(load, shared, state, fields)
        if fields is not None:
            remarks.remark(load, LowerLocalLoadPass.name, f"{_destination(load)}: scalar ld.shared of the "
                           f"{shared.format} block fields that {shared.part!r} is decoded from (no ldmatrix: the "
                           f"values are computed, not copied); {_scalar_census(fields)} per warp")
        load.result.replace_all_uses_with(out)
        Rewriter.erase_op(load)
        return
    access = _access(load)
    tensor = load.result.type
    assert isinstance(tensor, TensorType)
    b = Builder.before(load)
    base = b.cast([load.src], [i32])[0]
    plan = None
    noting = remarks.enabled(LowerLocalLoadPass.name)
    refusals: list[tuple[LdmatrixForm, str]] = []  # remarks only: why each form that could apply does not
    if use_ldmatrix and arch.supports(Feature.LDMATRIX):
        for form in PREFERRED_FORMS:
            relevant = noting and form.elt.is_sub_byte == (access.nibbles is not None)
            if not arch.supports(form.shape.feature):
                if relevant:
                    refusals.append((form, f"{arch} has no {_form_name(form)} "
                                           f"({targets_phrase(form.shape.feature)} only)"))
                continue
            why: list[str] | None = [] if relevant else None
            plan = _match_ldmatrix(access, form, why)
            if plan is not None:
                break
            if why:
                refusals.append((form, f"{_form_name(form)} does not fit: {why[0]}"))
    if plan is not None:
        regs = _emit_ldmatrix(b, state, access, plan, base)  # the ptx.ldmatrix ops name their form
        if noting:
            remarks.remark(load, LowerLocalLoadPass.name, f"{_destination(load)}: {len(plan.groups)} × "
                           f"{plan.form.ptx}{_ldmatrix_census(access, plan)}")
    else:
        # 16-byte vector loads need a 16-byte aligned buffer start: a #qgpu.shared buffer's
        # stages are (allocations start 128-byte aligned); a block-part view's are not
        vectors = isinstance(shared, SharedLayout) and shared.buffer_bytes % VECTOR_BYTES == 0
        census: list[tuple[int, list[int]]] | None = [] if noting else None
        regs = _emit_scalar(b, state, access, base, tensor, vectors, census)
        traffic = f"; {_scalar_census(census)} per warp" if census else ""
        if noting and not isinstance(tensor.encoding, (DotOperandEncodingAttr, DotScaleEncodingAttr)):
            remarks.remark(load, LowerLocalLoadPass.name, f"{_destination(load)}: ld.shared (not a dot operand's "
                           f"fragments, which are what ldmatrix delivers){traffic}")
        elif noting:
            if not use_ldmatrix:
                reason = no_ldmatrix_reason
            elif not arch.supports(Feature.LDMATRIX):
                reason = f"{arch} has no ldmatrix"
            else:
                reason = _telling_refusal(refusals, access)
            remarks.remark(load, LowerLocalLoadPass.name, f"{_destination(load)}: scalar ld.shared fallback: "
                           f"{reason}{traffic}")
    out = from_regs(b, regs, tensor)
    load.result.replace_all_uses_with(out)
    Rewriter.erase_op(load)


def _ldmatrix_mask(offsets: LinearOffsets, plan: LdmatrixPlan) -> int:
    """The bits a lane's ldmatrix row address can touch (``combine``'s mask); 0 when parts are added."""
    return 0 if offsets.additive else LinearOffsets.thread_mask_of((*plan.row_bases, *offsets.warp_bases))


def _ldmatrix_census(access: Access, plan: LdmatrixPlan) -> str:
    """The remark's words on the shared-memory wavefronts of warp 0's ldmatrix instructions for one load
    (``bank_conflicts``), each lane's row address as ``_emit_ldmatrix`` builds it; none for the 16 × 16 shapes
    (rows of 32 bytes, two phases a matrix: not modelled)."""
    offsets, form = access.offsets, plan.form
    if form.shape == LdmatrixShape.M16N16:
        return ""
    mask = _ldmatrix_mask(offsets, plan)
    total = Wavefronts()
    for offset in plan.group_offsets:  # warp 0: the rows' part only, as _emit_ldmatrix composes it
        rows = [combined(offsets.bits_at(plan.row_bases, lane), mask, offset + plan.row_origin)
                for lane in range(8 * form.num)]
        total = total + ldmatrix_wavefronts(rows, form.num)
    return f"; {total.phrase()} per warp"


def _scalar_census(census: list[tuple[int, list[int]]]) -> str:
    """The wavefronts of warp 0's ``ld.shared`` for one load (``bank_conflicts``)."""
    total = Wavefronts()
    for width, addresses in census:
        total = total + access_wavefronts(addresses, width)
    return total.phrase()


def _telling_refusal(refusals: list[tuple[LdmatrixForm, str]], access: Access) -> str:
    """The refusal a remark gives: that of the most preferred form whose register count the
    thread's registers fill (its refusal says which byte or row broke the fit), else the first."""
    regs = access.layout.regs_per_thread
    for form, reason in refusals:
        if regs % form.num_regs == 0:
            return reason
    return refusals[0][1] if refusals else "no ldmatrix form applies"


def _form_name(form: LdmatrixForm) -> str:
    """``ldmatrix .m8n16.x4.b8x16.b4x16_p64``: the form's qualifiers, as a remark names them."""
    return "ldmatrix ." + ".".join(part for part in form.ptx.split(".")[1:] if part not in ("sync", "aligned", "shared"))


def _destination(load: LocalLoadOp) -> str:
    """What a load fills, for its remark: ``rhs operand 32x128xi8 (kWidth 2, fp4Unpacked)``."""
    tensor = load.result.type
    assert isinstance(tensor, TensorType)
    encoding = tensor.encoding
    shape = "x".join(str(d) for d in tensor.get_shape())
    what = f"{shape}x{tensor.get_element_type()}"
    if isinstance(encoding, DotOperandEncodingAttr):
        side = "lhs" if encoding.op_idx == 0 else "rhs"
        unpacked = ", fp4Unpacked" if encoding.fp4_unpacked else ""
        return f"{side} operand {what} (kWidth {encoding.k_width}{unpacked})"
    if isinstance(encoding, DotScaleEncodingAttr):
        return f"{'lhs' if encoding.op_idx == 0 else 'rhs'} scales {what}"
    return f"{what} in {encoding.name.removeprefix('qgpu.')} layout"


def _emit_ldmatrix(b: Builder, state: FunctionState, access: Access, plan: LdmatrixPlan,
                   base: SSAValue) -> list[SSAValue]:
    form = plan.form
    warp_bases = access.offsets.warp_bases
    offsets = access.offsets
    key = ("ldmatrix-rows", offsets.additive, plan.row_bases, warp_bases)

    def make(eb: Builder, ids) -> SSAValue:  # noqa: ANN001
        rows = offsets.bits_value(eb, ids.lane, plan.row_bases)
        warp = offsets.bits_value(eb, ids.warp, warp_bases)
        return eb.add(rows, warp) if offsets.additive else eb.xor(rows, warp)

    thread = state.per_thread(key, make)
    mask = _ldmatrix_mask(offsets, plan)
    regs: list[SSAValue | None] = [None] * access.layout.regs_per_thread
    for group, offset in zip(plan.groups, plan.group_offsets, strict=True):
        address = b.add(base, combine(b, thread, mask, offset + plan.row_origin))
        op = b.insert(LdmatrixOp(address, form.shape, form.num, form.elt, form.trans))
        for i, reg in enumerate(group):
            regs[reg] = op.results[i]
    return [r for r in regs if r is not None]


VECTOR_BYTES = 16
"""One ``ld.shared.v4.b32``."""


def _emit_scalar(b: Builder, state: FunctionState, access: Access, base: SSAValue,
                 tensor: TensorType, vectors: bool = False,
                 census: list[tuple[int, list[int]]] | None = None) -> list[SSAValue]:
    """Register by register, except that the four registers of a thread's 16-byte aligned run
    are one ``ld.shared.v4`` (``vectors``; f32 registers bitcast from its words): LLVM does not merge
    the four loads itself, as the XOR swizzle of each one's offset hides that they are adjacent (run 81:
    the raw e2m1 reads of the wgmma kernels' conversion were four ``ld.shared.b32`` with 4-way bank
    conflicts; the swizzled decoded q4_K scales, 47 LDS per K step against 23 unswizzled). ``census`` (remarks
    only) gets each load's width and its lanes' first bytes (warp 0), for ``bank_conflicts``."""

    def noted(width: int, reg: int, start: int = 0, extra: int = 0) -> None:
        if census is not None:
            census.append((width, [access.byte_offset(reg, start, lane) + extra for lane in range(32)]))

    offsets = access.offsets
    thread = state.per_thread(("offsets", *offsets.key),
                              lambda eb, ids: offsets.thread_part(eb, ids))
    mask = offsets.thread_mask
    unpacked = access.nibbles is not None
    register = reg_type(tensor)
    regs: list[SSAValue] = []
    per_reg = access.layout.elements_per_register
    elems = elements_per_thread(access.layout)
    runs = _vector_runs(access, offsets, elems) if vectors and register in (i32, f32) and not unpacked else {}
    for reg in range(access.layout.regs_per_thread):
        if reg < len(regs):  # loaded with the vector of the run it belongs to
            continue
        if reg in runs:
            noted(VECTOR_BYTES, reg)
            address = b.add(base, combine(b, thread, mask, runs[reg]))
            vector = b.emit(LdSharedOp(address, VectorType(i32, [VECTOR_BYTES // 4])))
            words = b.insert(UnpackOp(vector)).results
            regs.extend(words if register == i32 else (b.emit(arith.BitcastOp(w, f32)) for w in words))
            continue
        if unpacked:
            regs.append(_unpacked_register(b, access, base, thread, mask, reg, noted))
            continue
        const0 = _word_offset(access, offsets, reg, elems)
        if const0 is not None:
            noted(4, reg)
            address = b.add(base, combine(b, thread, mask, const0))
            regs.append(b.emit(LdSharedOp(address, register)))
            continue
        const0 = _word_offset(access, offsets, reg, elems, alignment=2)
        if const0 is not None and register == i32:  # ggml blocks' quants at 2 mod 4 (q8_0, q4_0)
            noted(2, reg)
            noted(2, reg, extra=2)
            address = b.add(base, combine(b, thread, mask, const0))
            # an XOR-swizzled thread part may flip bit 1 or carry past it: each half its own address
            upper = b.add(address, 2) if mask == 0 else b.add(base, combine(b, thread, mask, const0 + 2))
            low, high = (b.cast_int(b.emit(LdSharedOp(at, i16)), i32) for at in (address, upper))
            regs.append(b.or_(low, b.shl(high, 16)))
            continue
        const0 = _word_offset(access, offsets, reg, elems, alignment=1)
        if const0 is not None and register == i32 and mask == 0 \
                and not any(v % 4 for v in (*offsets.lane_bases, *offsets.warp_bases)):
            # 4 bytes at 1 or 3 mod 4 in every thread (mxfp4's 17-byte blocks): the two aligned words
            # around them, the four picked by one prmt
            shift = const0 % 4
            noted(4, reg, extra=-shift)
            noted(4, reg, extra=4 - shift)
            words = [b.emit(LdSharedOp(b.add(base, b.add(thread, const0 - shift + 4 * i)), i32)) for i in (0, 1)]
            regs.append(b.emit(PrmtOp(words[0], words[1], b.const(0x3210 + 0x1111 * shift))))
            continue
        count = min(per_reg, elems - reg * per_reg)  # the last register of a blocked layout may be part-empty
        # element by element
        value = b.const(0)
        for start in range(0, count * access.elem_bytes, access.elem_bytes):
            elem = (reg * 4 + start) // access.elem_bytes
            noted(access.elem_bytes, reg, start)
            address = b.add(base, combine(b, thread, mask, offsets.elem_part(elem)))
            width = {1: i8, 2: i16, 4: i32}[access.elem_bytes]
            part = b.emit(LdSharedOp(address, width))
            part = b.cast_int(part, i32) if width != i32 else part
            value = b.or_(value, b.shl(part, 8 * start))
        regs.append(value)
    return regs


def _word_offset(access: Access, offsets, reg: int, elems: int,  # noqa: ANN001 - LinearOffsets
                 alignment: int = 4) -> int | None:
    """The constant offset of register ``reg`` when, in every thread, it is 4 whole bytes side by
    side at an ``alignment``-byte aligned address: one 32-bit load (with 2, two 16-bit loads: the
    quants of 34- and 18-byte ggml blocks start 2 bytes in). None otherwise."""
    per_reg = access.layout.elements_per_register
    if min(per_reg, elems - reg * per_reg) != per_reg:
        return None
    starts = [access.byte_offset(reg, byte, 0) for byte in range(4)]
    const0 = offsets.elem_part((reg * 4) // access.elem_bytes)
    if any(starts[byte] != starts[0] + byte for byte in range(4)) or const0 % alignment \
            or any(v % alignment for v in (*offsets.lane_bases, *offsets.warp_bases)):
        return None
    return const0


def _vector_runs(access: Access, offsets, elems: int) -> dict[int, int]:  # noqa: ANN001 - LinearOffsets
    """{first register: its constant offset} of every 4 registers that hold one 16-byte aligned
    run of shared memory in every thread: each register one 32-bit word (``_word_offset``), the
    next register the next word, the run's constant and every lane / warp contribution multiples
    of 16 (so the thread's XOR or sum never reaches inside the run)."""
    if any(v % VECTOR_BYTES for v in (*offsets.lane_bases, *offsets.warp_bases)):
        return {}
    words = VECTOR_BYTES // 4
    runs: dict[int, int] = {}
    for first in range(0, access.layout.regs_per_thread - words + 1, words):
        constants = [_word_offset(access, offsets, reg, elems) for reg in range(first, first + words)]
        if constants[0] is not None and constants[0] % VECTOR_BYTES == 0 \
                and all(c == constants[0] + 4 * i for i, c in enumerate(constants)):
            runs[first] = constants[0]
    return runs


def _unpacked_register(b: Builder, access: Access, base: SSAValue, thread: SSAValue, mask: int,
                       reg: int, noted: Callable[..., None]) -> SSAValue:
    """Four fp4 values as 0000xxxx bytes, from the packed bytes of an fp4Padded buffer (``noted``: ``_emit_scalar``'s
    record of each load, for the remark)."""
    offsets = access.offsets
    nibbles = access.nibbles
    assert nibbles is not None
    elems = [reg * 4 + byte for byte in range(4)]
    consts = [offsets.elem_part(e) for e in elems]
    nibs = [nibbles.elem_part(e) for e in elems]
    lane_nibbles = any(nibbles.lane_bases) or any(nibbles.warp_bases)
    if not lane_nibbles and nibs == [0, 1, 0, 1] and consts[1] == consts[0] and consts[2] == consts[0] + 1 \
            and consts[3] == consts[2] and consts[0] % 2 == 0 and all(v % 2 == 0 for v in
                                                                      (*offsets.lane_bases, *offsets.warp_bases)):
        noted(2, reg)
        address = b.add(base, combine(b, thread, mask, consts[0]))
        pair = b.cast_int(b.emit(LdSharedOp(address, i16)), i32)
        # [b0, b0, b1, b1] then keep the low nibble of bytes 0 and 2, the high nibble of bytes 1 and 3
        spread = b.emit(PrmtOp(pair, b.const(0), b.const(0x1100)))
        low = b.and_(spread, 0x000F000F)
        high = b.and_(b.lshr(spread, 4), 0x0F000F00)
        return b.or_(low, high)
    value = b.const(0)
    for byte, (const, nib) in enumerate(zip(consts, nibs, strict=True)):
        noted(1, reg, byte)
        address = b.add(base, combine(b, thread, mask, const))
        packed = b.cast_int(b.emit(LdSharedOp(address, i8)), i32)
        if lane_nibbles:
            emit_error(None, "fp4Unpacked fallback: the nibble index depends on the lane; unsupported layout")
        nibble = b.and_(b.lshr(packed, 4 * nib), 0xF)
        value = b.or_(value, b.shl(nibble, 8 * byte))
    return value


__all__ = ["LowerLocalLoadPass", "IntegerType", "reg_type"]
