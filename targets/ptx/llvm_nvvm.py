"""`ptx` ops -> LLVM IR: NVVM intrinsics where LLVM 22 has them, inline PTX where it does not.

Intrinsic names and signatures: reference/ptx.md §5 (checked with llvmlite 0.50 / LLVM 22
and ptxas 13.0). Inline asm is used for `lop3` (no intrinsic), `mul.rn.bf16x2` (LLVM
would otherwise fuse it with a following add), the predicated global loads/stores
(``@p ld``: the predicate must reach the instruction, a branch would not guarantee it),
and `cp.async` with an L2 prefetch-size hint (the intrinsics have no such form).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from dialects.ptx.attrs import CvtKind, MmaKind, MmaType
from dialects.ptx.ops import (
    BarSyncOp,
    BitcastOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
    CvtOp,
    FmaRnBf16x2Op,
    LdGlobalOp,
    LdmatrixOp,
    LdSharedOp,
    Lop3Op,
    MmaSyncOp,
    MulRnBf16x2Op,
    PackOp,
    UnpackOp,
    PrmtOp,
    ShflSyncOp,
    SpecialRegOp,
    PrefetchGlobalL2Op,
    RedGlobalAddOp,
    StGlobalOp,
    StSharedOp,
)
from dialects.ptx.base import NoOperandInstruction
from dialects.ptx.grid_dependency import GridDepLaunchDependentsOp, GridDepWaitOp
from dialects.ptx.sync import AtomGlobalAddOp, BarRedOrOp, FenceAcqRelGpuOp
from dialects.ptx.wgmma import FenceProxyAsyncOp, WgmmaCommitOp, WgmmaFenceOp, WgmmaOp, WgmmaWaitOp
from targets.ptx.llvm_core import FunctionEmitter, Lowering, bit_width, llvm_type, struct_type


def _bitcast(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, BitcastOp)
    em.assign(op.res, f"bitcast {em.typed(op.source)} to {llvm_type(op.res.type)}")


def _pack(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, PackOp)
    vector = f"<{len(op.parts)} x i32>"
    packed = "poison"
    for index, part in enumerate(op.parts):
        word = em.text(part) if llvm_type(part.type) == "i32" else em.temp(f"bitcast {em.typed(part)} to i32", "word")
        packed = em.temp(f"insertelement {vector} {packed}, i32 {word}, i32 {index}", "vec")
    em.assign(op.res, f"bitcast {vector} {packed} to {vector}")


def _unpack(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, UnpackOp)
    vector = f"<{len(op.parts)} x i32>"
    for index, part in enumerate(op.parts):
        em.assign(part, f"extractelement {vector} {em.text(op.vector)}, i32 {index}")


def _special_reg(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, SpecialRegOp)
    em.call(f"llvm.nvvm.read.ptx.sreg.{op.reg.data}", "i32", [], into=op.res)


def _results_from_call(em: FunctionEmitter, results: Sequence[SSAValue], name: str, field: str,
                       arguments: Sequence[tuple[str, str]]) -> None:
    """Call an intrinsic returning `field` (one result) or a struct of len(results) `field`s."""
    if len(results) == 1:
        em.call(name, field, arguments, into=results[0])
        return
    aggregate_type = struct_type([field] * len(results))
    aggregate = em.call(name, aggregate_type, arguments, "agg")
    em.unpack(aggregate, aggregate_type, results)


def _ldmatrix(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, LdmatrixOp)
    shape, num, trans, elt = op.form
    pointer = em.shared_pointer(em.text(op.offset))
    name = f"llvm.nvvm.ldmatrix.sync.aligned.{shape}.x{num}{'.trans' if trans else ''}.{elt}.p3"
    _results_from_call(em, op.res, name, "i32", [("ptr addrspace(3)", pointer)])


# -- mma ----------------------------------------------------------------------------------

def mma_intrinsic(op: MmaSyncOp) -> str:
    """The LLVM 22 intrinsic for a verified mma.sync form (ptx.md §5.2)."""
    sig = op.signature
    shape = sig.shape.value
    if sig.kind is MmaKind.F8F6F4:
        return f"llvm.nvvm.mma.{shape}.row.col.kind.f8f6f4.{sig.d_type}.{sig.a_type}.{sig.b_type}.{sig.c_type}"
    if sig.kind is not None:  # block-scaled: the verifier guarantees scale_vec and the scale type
        assert sig.scale_vec is not None and sig.scale_type is not None
        return (f"llvm.nvvm.mma.block.scale.{shape}.row.col.{sig.kind}.scale.{sig.scale_vec.value.lower()}."
                f"{sig.d_type}.{sig.a_type}.{sig.b_type}.{sig.c_type}.{sig.scale_type}")
    if sig.a_type in (MmaType.S8, MmaType.U8, MmaType.S4, MmaType.U4):
        types = f"{sig.a_type}" if sig.a_type is sig.b_type else f"{sig.a_type}.{sig.b_type}"
        return f"llvm.nvvm.mma.{shape}.row.col{'.satfinite' if sig.satfinite else ''}.{types}"
    if sig.a_type is MmaType.BF16:
        return f"llvm.nvvm.mma.{shape}.row.col.bf16"
    if sig.a_type is MmaType.F16:
        return f"llvm.nvvm.mma.{shape}.row.col.{sig.d_type}.{sig.c_type}"
    return f"llvm.nvvm.mma.{shape}.row.col.{sig.d_type}.{sig.a_type}.{sig.b_type}.{sig.c_type}"


def _mma(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, MmaSyncOp)
    sig = op.signature
    arguments: list[tuple[str, str]] = []
    for value in [*op.a, *op.b]:
        if sig.a_type is MmaType.F16:  # the f16 intrinsics take A/B as <2 x half>
            arguments.append(("<2 x half>", em.temp(f"bitcast i32 {em.text(value)} to <2 x half>", "h2")))
        else:
            arguments.append(("i32", em.text(value)))
    arguments += [(llvm_type(v.type), em.text(v)) for v in [*op.c, *op.scale_a, *op.scale_b]]
    field = llvm_type(op.res[0].type)
    aggregate_type = struct_type([field] * len(op.res))
    aggregate = em.call(mma_intrinsic(op), aggregate_type, arguments, "mma")
    em.unpack(aggregate, aggregate_type, op.res)


# -- memory -------------------------------------------------------------------------------

def _alignment(type_: Attribute) -> int:
    return bit_width(type_) // 8


def _ld_shared(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, LdSharedOp)
    pointer = em.shared_pointer(em.text(op.offset))
    type_ = llvm_type(op.res.type)
    em.assign(op.res, f"load {type_}, ptr addrspace(3) {pointer}, align {_alignment(op.res.type)}")


def _st_shared(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, StSharedOp)
    pointer = em.shared_pointer(em.text(op.offset))
    em.emit(f"store {em.typed(op.value)}, ptr addrspace(3) {pointer}, align {_alignment(op.value.type)}")


def _lanes(type_: Attribute) -> tuple[int, int]:
    """(element count, element bits) of a scalar or vector memory type."""
    if isinstance(type_, VectorType):
        return type_.get_shape()[0], bit_width(type_.get_element_type())
    return 1, bit_width(type_)


# .b8 data travels in 16-bit registers: PTX has no 8-bit registers.
_REGISTER = {8: ("h", "i16", 16), 16: ("h", "i16", 16), 32: ("r", "i32", 32), 64: ("l", "i64", 64)}


def _integer_view(count: int, bits: int) -> str:
    return f"i{bits}" if count == 1 else f"<{count} x i{bits}>"


def _brace(operands: Sequence[str]) -> str:
    return operands[0] if len(operands) == 1 else "{" + ", ".join(operands) + "}"


def _vector_suffix(count: int) -> str:
    return "" if count == 1 else f".v{count}"


def _predicate_prelude(index: int) -> str:
    return f"{{\n\t.reg .pred %qdot_p;\n\tsetp.ne.b32 %qdot_p, ${index}, 0;\n"


def _predicate_argument(em: FunctionEmitter, predicate: SSAValue) -> tuple[str, str]:
    return ("i32", em.memo(f"zext i1 {em.text(predicate)} to i32", "pred"))


def _ld_global(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, LdGlobalOp)
    type_ = llvm_type(op.res.type)
    pointer = em.global_pointer(em.text(op.address))
    if op.predicate is None:
        metadata = ""
        if op.nc is not None:
            em.module.invariant_load_metadata = True
            metadata = ", !invariant.load !0"
        em.assign(op.res, f"load {type_}, ptr addrspace(1) {pointer}, align {_alignment(op.res.type)}{metadata}")
        return
    count, bits = _lanes(op.res.type)
    letter, register, register_bits = _REGISTER[bits]
    outputs = [f"${i}" for i in range(count)]
    zero = "".join(f"\tmov.b{register_bits} {out}, 0;\n" for out in outputs)
    text = (_predicate_prelude(count + 1) + zero
            + f"\t@%qdot_p {op.ptx_mnemonic()}{_vector_suffix(count)}.b{bits} {_brace(outputs)}, [${count}];\n}}")
    constraints = ",".join([f"={letter}"] * count + ["l", "r"])
    result_type = register if count == 1 else struct_type([register] * count)
    loaded = em.inline_asm(result_type, text, constraints,
                           [("ptr addrspace(1)", pointer), _predicate_argument(em, op.predicate)],
                           side_effects=False, hint="ld")
    lanes = [loaded] if count == 1 else [em.temp(f"extractvalue {result_type} {loaded}, {i}", "lane")
                                         for i in range(count)]
    if bits == 8:
        lanes = [em.temp(f"trunc i16 {lane} to i8", "byte") for lane in lanes]
    view = _integer_view(count, bits)
    packed = lanes[0]
    if count > 1:
        packed = "poison"
        for index, lane in enumerate(lanes):
            packed = em.temp(f"insertelement {view} {packed}, i{bits} {lane}, i32 {index}", "vec")
    em.assign(op.res, f"bitcast {view} {packed} to {type_}")


def _st_global(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, StGlobalOp)
    pointer = em.global_pointer(em.text(op.address))
    if op.predicate is None:
        em.emit(f"store {em.typed(op.value)}, ptr addrspace(1) {pointer}, align {_alignment(op.value.type)}")
        return
    count, bits = _lanes(op.value.type)
    letter, register, _ = _REGISTER[bits]
    packed = op.value.owner
    if isinstance(packed, PackOp) and bits == 32 and all(llvm_type(p.type) == "i32" for p in packed.parts):
        lanes = [em.text(part) for part in packed.parts]  # the words the pack was built from
    else:
        view = _integer_view(count, bits)
        integer = em.temp(f"bitcast {em.typed(op.value)} to {view}", "bits")
        lanes = [integer] if count == 1 else [em.temp(f"extractelement {view} {integer}, i32 {i}", "lane")
                                              for i in range(count)]
    if bits == 8:
        lanes = [em.temp(f"zext i8 {lane} to i16", "wide") for lane in lanes]
    inputs = [f"${i + 1}" for i in range(count)]
    text = (_predicate_prelude(count + 1)
            + f"\t@%qdot_p {op.ptx_mnemonic()}{_vector_suffix(count)}.b{bits} [$0], {_brace(inputs)};\n}}")
    constraints = ",".join(["l"] + [letter] * count + ["r", "~{memory}"])
    arguments = [("ptr addrspace(1)", pointer), *[(register, lane) for lane in lanes],
                 _predicate_argument(em, op.predicate)]
    em.inline_asm("void", text, constraints, arguments, side_effects=True)


def _red_global_add(em: FunctionEmitter, op: Operation) -> None:
    """Inline asm: ``atomicrmw fadd`` cannot be predicated, and the store's bounds are a predicate."""
    assert isinstance(op, RedGlobalAddOp)
    pointer = em.global_pointer(em.text(op.address))
    if op.predicate is None:
        em.inline_asm("void", "red.global.add.f32 [$0], $1;", "l,f,~{memory}",
                      [("ptr addrspace(1)", pointer), ("float", em.text(op.value))], side_effects=True)
        return
    text = _predicate_prelude(2) + "\t@%qdot_p red.global.add.f32 [$0], $1;\n}"
    em.inline_asm("void", text, "l,f,r,~{memory}",
                  [("ptr addrspace(1)", pointer), ("float", em.text(op.value)),
                   _predicate_argument(em, op.predicate)], side_effects=True)


def _atom_global_add(em: FunctionEmitter, op: Operation) -> None:
    """Inline asm: ``atomicrmw`` cannot be predicated; a lane whose predicate is false gets 0."""
    assert isinstance(op, AtomGlobalAddOp)
    pointer = em.global_pointer(em.text(op.address))
    arguments = [("ptr addrspace(1)", pointer), ("i32", em.text(op.value))]
    if op.predicate is None:
        em.inline_asm("i32", "atom.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}", arguments,
                      side_effects=True, into=op.res)
        return
    text = _predicate_prelude(3) + "\tmov.b32 $0, 0;\n\t@%qdot_p atom.global.add.u32 $0, [$1], $2;\n}"
    em.inline_asm("i32", text, "=r,l,r,r,~{memory}", [*arguments, _predicate_argument(em, op.predicate)],
                  side_effects=True, into=op.res)


def _bar_red_or(em: FunctionEmitter, op: Operation) -> None:
    """The intrinsic, not inline asm: LLVM knows it as a convergent barrier and never duplicates or sinks it."""
    assert isinstance(op, BarRedOrOp)
    em.call("llvm.nvvm.barrier.cta.red.or.aligned.all", "i1", [("i32", "0"), ("i1", em.text(op.predicate))],
            into=op.res)


def _prefetch_global_l2(em: FunctionEmitter, op: Operation) -> None:
    """Inline asm: a prefetch that may be predicated, kept in order by its memory clobber."""
    assert isinstance(op, PrefetchGlobalL2Op)
    pointer = em.global_pointer(em.text(op.address))
    if op.predicate is None:
        em.inline_asm("void", "prefetch.global.L2 [$0];", "l,~{memory}", [("ptr addrspace(1)", pointer)],
                      side_effects=True)
        return
    text = _predicate_prelude(1) + "\t@%qdot_p prefetch.global.L2 [$0];\n}"
    em.inline_asm("void", text, "l,r,~{memory}", [("ptr addrspace(1)", pointer),
                                                   _predicate_argument(em, op.predicate)], side_effects=True)


def _cp_async(em: FunctionEmitter, op: Operation) -> None:
    """The intrinsic, or inline asm for the L2 prefetch-size hint, which LLVM 22's cp.async
    intrinsics cannot carry (they have no ``.L2::128B`` form)."""
    assert isinstance(op, CpAsyncOp)
    destination = em.shared_pointer(em.text(op.dst))
    source = em.global_pointer(em.text(op.src))
    if op.l2_prefetch is not None:
        _cp_async_hinted(em, op, destination, source)
        return
    arguments = [("ptr addrspace(3)", destination), ("ptr addrspace(1)", source)]
    name = f"llvm.nvvm.cp.async.{op.cache.data}.shared.global.{op.size.value.data}"
    if op.src_size is not None:
        name += ".s"
        arguments.append(("i32", em.text(op.src_size)))
    em.call(name, "void", arguments)


def _cp_async_hinted(em: FunctionEmitter, op: CpAsyncOp, destination: str, source: str) -> None:
    """``cp.async…L2::<n>B [dst], [src], bytes{, src_size}`` as inline asm. The shared address is
    a 32-bit register (shared pointers are short, ``targets/ptx/nvptx.py``), as the intrinsic's is;
    the memory clobber keeps it in order with the loads, stores and barriers around it."""
    shared = em.temp(f"ptrtoint ptr addrspace(3) {destination} to i32", "saddr")
    arguments = [("i32", shared), ("ptr addrspace(1)", source)]
    operands = f"[$0], [$1], {op.size.value.data}"
    constraints = "r,l"
    if op.src_size is not None:
        operands += ", $2"
        constraints += ",r"
        arguments.append(("i32", em.text(op.src_size)))
    em.inline_asm("void", f"{op.ptx_mnemonic()} {operands};", constraints + ",~{memory}", arguments,
                  side_effects=True)


def _cp_async_commit(em: FunctionEmitter, op: Operation) -> None:
    em.call("llvm.nvvm.cp.async.commit.group", "void", [])


def _cp_async_wait(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, CpAsyncWaitOp)
    em.call("llvm.nvvm.cp.async.wait.group", "void", [("i32", str(op.pending.value.data))])


def _bar_sync(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, BarSyncOp)
    em.call("llvm.nvvm.barrier.cta.sync.aligned.all", "void", [("i32", str(op.barrier.value.data))])


# -- warpgroup mma (sm_90a) ---------------------------------------------------------------

def _descriptor(em: FunctionEmitter, offset: SSAValue, high_bits: int) -> str:
    """The i64 matrix descriptor of the shared buffer at byte ``offset`` of the dynamic shared
    memory: its shared-window address / 16 in bits 0–13, the op's layout fields above."""
    em.module.shared_align = max(em.module.shared_align, 1024)
    pointer = em.shared_pointer(em.text(offset))
    address = em.temp(f"ptrtoint ptr addrspace(3) {pointer} to i64", "saddr")
    field = em.temp(f"lshr i64 {em.temp(f'and i64 {address}, 262143', 'saddr')}, 4", "field")
    return em.temp(f"or i64 {field}, {high_bits}", "desc")


_WGMMA_IMMEDIATES = {MmaType.BF16: ", 1, 1, 0, 0", MmaType.F16: ", 1, 1, 0, 0", MmaType.E4M3: ", 1, 1",
                     MmaType.E5M2: ", 1, 1", MmaType.S8: ""}
"""What follows scale-d: the operand scales (1) and, for 16-bit types, the transposes (0: K-major
A and B); the fp8 forms take no transposes (K-major only), the integer form neither."""


def _wgmma(em: FunctionEmitter, op: Operation) -> None:
    """Inline PTX (LLVM 22 has no intrinsic for the mma itself): the accumulators are outputs
    tied to the C inputs, the descriptors "l"; scale-d is a predicate set from 1 (D = A·B + C),
    or from 0 without C operands (D = A·B, nothing to tie), then the immediates of the operand
    type (``_WGMMA_IMMEDIATES``)."""
    assert isinstance(op, WgmmaOp)
    count = len(op.res)
    fresh = not op.c  # D = A·B: scale-d 0, no C inputs to tie
    a = _descriptor(em, op.a, op.desc_a.high_bits() - (1 << 64 if op.desc_a.high_bits() >> 63 else 0))
    b = _descriptor(em, op.b, op.desc_b.high_bits() - (1 << 64 if op.desc_b.high_bits() >> 63 else 0))
    outputs = _brace([f"${i}" for i in range(count)])
    immediates = _WGMMA_IMMEDIATES[op.a_type.data]
    text = (_predicate_prelude(count + 2)
            + f"\t{op.ptx_mnemonic()} {outputs}, ${count}, ${count + 1}, %qdot_p{immediates};\n}}")
    integer = op.accumulator is MmaType.S32
    reg, llvm = ("r", "i32") if integer else ("f", "float")
    constraints = ",".join([f"={reg}"] * count + ["l", "l", "r"] + ([] if fresh else [str(i) for i in range(count)]))
    result_type = struct_type([llvm] * count)
    arguments = [("i64", a), ("i64", b), ("i32", "0" if fresh else "1"), *[(llvm, em.text(v)) for v in op.c]]
    aggregate = em.inline_asm(result_type, text, constraints, arguments, side_effects=True, hint="wgmma")
    em.unpack(aggregate, result_type, op.res)


def _no_operand_asm(em: FunctionEmitter, op: Operation) -> None:
    """An instruction without operands or results that orders memory: inline asm with a memory clobber."""
    assert isinstance(op, (NoOperandInstruction, FenceAcqRelGpuOp))
    em.inline_asm("void", f"{op.ptx_mnemonic()};", "~{memory}", [], side_effects=True)


def _wgmma_wait(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, WgmmaWaitOp)
    em.inline_asm("void", f"{op.ptx_mnemonic()} {op.pending.value.data};", "~{memory}", [], side_effects=True)


# -- register instructions ----------------------------------------------------------------

def _shfl(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, ShflSyncOp)
    type_ = llvm_type(op.value.type)
    name = f"llvm.nvvm.shfl.sync.{op.mode.data}.{'f32' if type_ == 'float' else 'i32'}"
    em.call(name, type_, [("i32", em.text(op.member_mask)), (type_, em.text(op.value)),
                          ("i32", em.text(op.lane)), ("i32", em.text(op.clamp))], into=op.res)


def _prmt(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, PrmtOp)
    em.call("llvm.nvvm.prmt", "i32", [("i32", em.text(v)) for v in (op.a, op.b, op.selector)], into=op.res)


def _lop3(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, Lop3Op)
    text = f"lop3.b32 $0, $1, $2, $3, {op.lut.value.data:#04x};"
    em.inline_asm("i32", text, "=r,r,r,r", [("i32", em.text(v)) for v in (op.a, op.b, op.c)],
                  side_effects=False, into=op.res)


_CVT_INTRINSICS: dict[CvtKind, str] = {
    CvtKind.F16X2_E4M3X2: "llvm.nvvm.e4m3x2.to.f16x2.rn",
    CvtKind.F16X2_E5M2X2: "llvm.nvvm.e5m2x2.to.f16x2.rn",
    CvtKind.F16X2_E2M1X2: "llvm.nvvm.e2m1x2.to.f16x2.rn",
    CvtKind.F16X2_E2M3X2: "llvm.nvvm.e2m3x2.to.f16x2.rn",
    CvtKind.F16X2_E3M2X2: "llvm.nvvm.e3m2x2.to.f16x2.rn",
    CvtKind.E4M3X2_F32: "llvm.nvvm.ff.to.e4m3x2.rn",
    CvtKind.E5M2X2_F32: "llvm.nvvm.ff.to.e5m2x2.rn",
    CvtKind.E4M3X2_F16X2: "llvm.nvvm.f16x2.to.e4m3x2.rn",
    CvtKind.E2M1X2_F32: "llvm.nvvm.ff.to.e2m1x2.rn",
    CvtKind.BF16X2_F32: "llvm.nvvm.ff2bf16x2.rn",
    CvtKind.F16X2_F32: "llvm.nvvm.ff2f16x2.rn",
}


def cvt_intrinsic(kind: CvtKind, relu: bool) -> str:
    name = _CVT_INTRINSICS[kind] + (".relu" if relu else "")
    return name + ".satfinite" if kind is CvtKind.E2M1X2_F32 else name


def _cvt(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, CvtOp)
    kind = op.kind.data
    result_type = llvm_type(op.res.type)
    if kind in (CvtKind.F32_F16, CvtKind.F32_BF16):
        em.assign(op.res, f"fpext {em.typed(op.operand_list[0])} to float")
        return
    arguments = [(llvm_type(v.type), em.text(v)) for v in op.operand_list]
    if kind is CvtKind.F16X2_E2M1X2:  # the intrinsic takes the byte in an i16
        arguments = [("i16", em.temp(f"zext i8 {arguments[0][1]} to i16", "e2m1x2"))]
    name = cvt_intrinsic(kind, op.relu is not None)
    if kind is CvtKind.E2M1X2_F32:  # ... and returns it in an i16
        value = em.call(name, "i16", arguments, "cvt")
        em.assign(op.res, f"trunc i16 {value} to i8")
    else:
        em.call(name, result_type, arguments, into=op.res)


def _fma_bf16x2(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, FmaRnBf16x2Op)
    em.call("llvm.nvvm.fma.rn.bf16x2", "<2 x bfloat>", [("<2 x bfloat>", em.text(v)) for v in (op.a, op.b, op.c)],
            into=op.res)


def _mul_bf16x2(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, MulRnBf16x2Op)
    a = em.temp(f"bitcast <2 x bfloat> {em.text(op.a)} to i32", "bits")
    b = em.temp(f"bitcast <2 x bfloat> {em.text(op.b)} to i32", "bits")
    value = em.inline_asm("i32", "mul.rn.bf16x2 $0, $1, $2;", "=r,r,r", [("i32", a), ("i32", b)],
                          side_effects=False, hint="mul")
    em.assign(op.res, f"bitcast i32 {value} to <2 x bfloat>")


PTX_LOWERINGS: dict[type[Operation], Lowering] = {
    BitcastOp: _bitcast,
    PackOp: _pack,
    UnpackOp: _unpack,
    SpecialRegOp: _special_reg,
    LdmatrixOp: _ldmatrix,
    MmaSyncOp: _mma,
    LdSharedOp: _ld_shared,
    StSharedOp: _st_shared,
    LdGlobalOp: _ld_global,
    StGlobalOp: _st_global,
    RedGlobalAddOp: _red_global_add,
    PrefetchGlobalL2Op: _prefetch_global_l2,
    CpAsyncOp: _cp_async,
    CpAsyncCommitOp: _cp_async_commit,
    CpAsyncWaitOp: _cp_async_wait,
    BarSyncOp: _bar_sync,
    BarRedOrOp: _bar_red_or,
    AtomGlobalAddOp: _atom_global_add,
    FenceAcqRelGpuOp: _no_operand_asm,
    WgmmaOp: _wgmma,
    WgmmaFenceOp: _no_operand_asm,
    WgmmaCommitOp: _no_operand_asm,
    WgmmaWaitOp: _wgmma_wait,
    FenceProxyAsyncOp: _no_operand_asm,
    GridDepWaitOp: _no_operand_asm,
    GridDepLaunchDependentsOp: _no_operand_asm,
    ShflSyncOp: _shfl,
    PrmtOp: _prmt,
    Lop3Op: _lop3,
    CvtOp: _cvt,
    FmaRnBf16x2Op: _fma_bf16x2,
    MulRnBf16x2Op: _mul_bf16x2,
}
