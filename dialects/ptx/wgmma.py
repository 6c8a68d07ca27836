"""Warpgroup MMA (sm_90a): `ptx.wgmma` and the fences and groups around it.

A warpgroup is four consecutive warps (warp ids 4g..4g+3, 128 threads). One
`wgmma.mma_async` multiplies a 64×K tile of A by a K×N tile of B, both read by the
tensor cores straight from shared memory through 64-bit matrix descriptors, into a
64×N f32 accumulator spread over the warpgroup's registers: each warp holds 16 rows,
in the m16n8 C-fragment arrangement of `mma.sync` repeated N/8 times along N
(register 4·j + i of a thread is C fragment register i of the j-th 8-column tile).

The instruction is asynchronous: it is issued after `wgmma.fence`, collected into a
group by `wgmma.commit_group`, and its accumulators may be read (or its shared
operands overwritten) only after `wgmma.wait_group N` has left at most N groups
pending. Shared memory written by ordinary stores becomes visible to the tensor cores'
reads (the async proxy) only through `fence.proxy.async` executed by the writing
threads before the barrier that orders them ([ISA] 9.7.15, 9.7.12.15.21).

Here A and B are i32 byte offsets into the kernel's dynamic shared memory, like every
other shared address of this dialect; the LLVM emitter turns each into a descriptor
with the layout fields the op carries (`smem_descriptor` in this module), so the
fields are visible in the IR and the one encoding lives here:

    ptx.fence_proxy_async
    ptx.wgmma_fence
    %d:64 = ptx.wgmma m64n128k16 f32.bf16.bf16 A[%a] B[%b] C[%c0, ..., %c63]
              desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
    ptx.wgmma_commit
    ptx.wgmma_wait 0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue
from xdsl.irdl import AnyOf, EqAttrConstraint, irdl_op_definition, operand_def, prop_def, traits_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.arch import Feature, Requirement, requirement
from dialects.ptx.attrs import MmaType, MmaTypeAttr
from dialects.ptx.base import F32, I32, GroupWaitInstruction, NoOperandInstruction, PtxInstruction, int_prop, int_value, \
    parse_bracketed_operands, print_attr_dict, print_bracketed_operands, resolve

SWIZZLE_MODES = {0: 0, 128: 1, 64: 2, 32: 3}
"""Swizzle width in bytes → the descriptor's 2-bit layout field (bits 62–63): none, 128B, 64B, 32B."""

WGMMA_M = 64
WGMMA_K_BYTES = 32
"""K extent of one instruction in bytes: k16 of 16-bit types (k32 of 8-bit types)."""

WGMMA_TYPES = (MmaType.BF16, MmaType.F16, MmaType.E4M3, MmaType.E5M2, MmaType.S8)
"""A/B types this op accepts: 16-bit ones (k16 per instruction) and 8-bit ones (k32); s8
accumulates in s32, the others in f32. The passes emit the 16-bit forms; the 8-bit ones are the
form a per-32-block MX kernel would use (run 66 of bench/RESULTS.md), checked by ptxas and the
emulator but not chosen by any strategy yet."""
_FP8 = (MmaType.E4M3, MmaType.E5M2)


def element_bytes(type_: MmaType) -> int:
    """Bytes per element of a wgmma operand type."""
    return 2 if type_ in (MmaType.BF16, MmaType.F16) else 1


def accumulator_type(type_: MmaType) -> MmaType:
    """The D / C element type of a wgmma on ``type_`` operands."""
    return MmaType.S32 if type_ is MmaType.S8 else MmaType.F32


@dataclass(frozen=True)
class SmemDescriptor:
    """The layout fields of a wgmma shared-memory matrix descriptor, in bytes.

    ``swizzle``: 0, 32, 64 or 128 (the repeating pattern XORs address bits [4, 4+log2(swizzle/16))
    with the bits 3 above them, so a buffer must start at a multiple of 8 · swizzle bytes);
    ``lbo``: leading-dimension byte offset (between core matrices along K; unused by a
    K-major swizzled operand whose instruction K fits one swizzle row); ``sbo``:
    stride-dimension byte offset, between groups of 8 rows along M (N)."""

    swizzle: int
    lbo: int
    sbo: int

    def problem(self) -> str | None:
        if self.swizzle not in SWIZZLE_MODES:
            return f"swizzle must be 0, 32, 64 or 128 bytes, got {self.swizzle}"
        for name, value in (("lbo", self.lbo), ("sbo", self.sbo)):
            if value % 16 or not 0 <= value < (1 << 18):
                return f"{name} must be a multiple of 16 below 2^18 bytes, got {value}"
        return None

    def high_bits(self) -> int:
        """Every field but the start address (bits 16–63); the address goes in bits 0–13."""
        return ((self.lbo >> 4) << 16) | ((self.sbo >> 4) << 32) | (SWIZZLE_MODES[self.swizzle] << 62)


def smem_descriptor(address: int, desc: SmemDescriptor) -> int:
    """The 64-bit descriptor of a matrix at shared-window byte ``address`` ([ISA] 9.7.15.5.1.2,
    "Matrix Descriptor Format"):
    bits 0–13 address/16, 16–29 lbo/16, 32–45 sbo/16, 49–51 base offset (0: buffers start on
    the swizzle pattern), 62–63 swizzle mode."""
    return ((address & 0x3FFFF) >> 4) | desc.high_bits()


def wgmma_n_problem(n: int) -> str | None:
    """Why ``n`` is not the N of a wgmma shape m64nNk*, or None ([ISA] 9.7.15.5.1). The parser and
    the constructor ask before sizing the accumulator list from N, which an unchecked N would blow up."""
    if n % 8 or not 8 <= n <= 256:
        return f"wgmma N must be a multiple of 8 in 8..256, got {n}"
    return None


def accumulator_count(n: int) -> int:
    """f32 accumulator registers per thread of an m64nN tile: 64·N values over 128 threads."""
    return n // 2


@irdl_op_definition
class WgmmaOp(PtxInstruction):
    """`wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b>` with both operands in shared memory.

    D = A · B + C for the warpgroup; A is K-major (row-major M×K), B is K-major (N×K, the
    `.col` B of `mma.sync`); no transposes, unit scales. With no C operands (``C[]``) it is
    D = A · B (scale-d = 0): a fresh partial product, what a per-block fold of block-scaled
    formats starts each block from.
    """

    name = "ptx.wgmma"
    a = operand_def(I32)
    b = operand_def(I32)
    c = var_operand_def(AnyOf([EqAttrConstraint(F32), EqAttrConstraint(I32)]))
    n = prop_def(IntegerAttr)
    a_type = prop_def(MmaTypeAttr, prop_name="aType")
    b_type = prop_def(MmaTypeAttr, prop_name="bType")
    a_swizzle = prop_def(IntegerAttr, prop_name="aSwizzle")
    a_lbo = prop_def(IntegerAttr, prop_name="aLbo")
    a_sbo = prop_def(IntegerAttr, prop_name="aSbo")
    b_swizzle = prop_def(IntegerAttr, prop_name="bSwizzle")
    b_lbo = prop_def(IntegerAttr, prop_name="bLbo")
    b_sbo = prop_def(IntegerAttr, prop_name="bSbo")
    res = var_result_def(AnyOf([EqAttrConstraint(F32), EqAttrConstraint(I32)]))
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, n: int, a_type: MmaType, b_type: MmaType, a: SSAValue, b: SSAValue, c: Sequence[SSAValue],
                 desc_a: SmemDescriptor, desc_b: SmemDescriptor):
        # An invalid N sizes nothing (the verifier names the rule) rather than a list of N/2 results.
        results = len(c) or (0 if wgmma_n_problem(n) is not None else accumulator_count(n))
        super().__init__(
            operands=[a, b, c],
            result_types=[[I32 if accumulator_type(a_type) is MmaType.S32 else F32] * results],
            properties={
                "n": int_prop(n), "aType": MmaTypeAttr(a_type), "bType": MmaTypeAttr(b_type),
                "aSwizzle": int_prop(desc_a.swizzle), "aLbo": int_prop(desc_a.lbo), "aSbo": int_prop(desc_a.sbo),
                "bSwizzle": int_prop(desc_b.swizzle), "bLbo": int_prop(desc_b.lbo), "bSbo": int_prop(desc_b.sbo),
            },
        )

    @property
    def n_value(self) -> int:
        return int_value(self.n)

    @property
    def desc_a(self) -> SmemDescriptor:
        return SmemDescriptor(int_value(self.a_swizzle), int_value(self.a_lbo), int_value(self.a_sbo))

    @property
    def desc_b(self) -> SmemDescriptor:
        return SmemDescriptor(int_value(self.b_swizzle), int_value(self.b_lbo), int_value(self.b_sbo))

    @property
    def k(self) -> int:
        """K per instruction: 32 bytes of a row, k16 of a 16-bit type, k32 of an 8-bit one."""
        return WGMMA_K_BYTES // element_bytes(self.a_type.data)

    @property
    def accumulator(self) -> MmaType:
        return accumulator_type(self.a_type.data)

    @property
    def shape(self) -> str:
        return f"m{WGMMA_M}n{self.n_value}k{self.k}"

    def verify_(self) -> None:
        n = self.n_value
        if (problem := wgmma_n_problem(n)) is not None:
            raise VerifyException(problem)
        for side, attr in (("A", self.a_type), ("B", self.b_type)):
            if attr.data not in WGMMA_TYPES:
                raise VerifyException(f"wgmma {side} type must be one of {', '.join(WGMMA_TYPES)}, got {attr.data}")
        a, b = self.a_type.data, self.b_type.data
        if a is not b and not (a in _FP8 and b in _FP8):
            raise VerifyException(f"wgmma A and B types must match (or both be fp8), got {a} and {b}")
        acc = self.accumulator
        if len(self.c) not in (0, accumulator_count(n)) or len(self.res) != accumulator_count(n):
            raise VerifyException(f"m64n{n} takes {accumulator_count(n)} {acc} accumulators (C, or none for "
                                  f"D = A·B, and D), got {len(self.c)} and {len(self.res)}")
        want = I32 if acc is MmaType.S32 else F32
        for value in (*self.c, *self.res):
            if value.type != want:
                raise VerifyException(f"a wgmma on {a} operands accumulates in {acc}, got a {value.type} "
                                      "accumulator")
        for side, desc in (("desc_a", self.desc_a), ("desc_b", self.desc_b)):
            problem = desc.problem()
            if problem is not None:
                raise VerifyException(f"{side}: {problem}")

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.WGMMA, "8.0", "wgmma.mma_async"),)

    def ptx_mnemonic(self) -> str:
        return f"wgmma.mma_async.sync.aligned.{self.shape}.{self.accumulator}.{self.a_type.data}.{self.b_type.data}"

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.shape} {self.accumulator}.{self.a_type.data}.{self.b_type.data}")
        print_bracketed_operands(printer, "A", [self.a])
        print_bracketed_operands(printer, "B", [self.b])
        print_bracketed_operands(printer, "C", self.c)
        for side, desc in (("desc_a", self.desc_a), ("desc_b", self.desc_b)):
            printer.print_string(f" {side}<swizzle = {desc.swizzle}, lbo = {desc.lbo}, sbo = {desc.sbo}>")
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaOp:
        pos = parser.pos
        shape = parser.parse_identifier()
        if not (shape.startswith("m64n") and shape[-3:] in ("k16", "k32") and shape[4:-3].isdigit()):
            parser.raise_error(f"expected a wgmma shape m64nNk16 or m64nNk32, got '{shape}'", pos, parser.pos)
        n = int(shape[4:-3])
        if (problem := wgmma_n_problem(n)) is not None:
            parser.raise_error(f"{problem} in '{shape}'", pos, parser.pos)
        pos = parser.pos
        types = parser.parse_identifier().split(".")
        if len(types) != 3 or any(t not in tuple(MmaType) for t in types) \
                or types[0] != accumulator_type(MmaType(types[1])):
            parser.raise_error("expected <accumulator type>.<a type>.<b type> (f32.bf16.bf16, s32.s8.s8, …)",
                               pos, parser.pos)
        if MmaType(types[1]) in WGMMA_TYPES and int(shape[-2:]) != WGMMA_K_BYTES // element_bytes(MmaType(types[1])):
            parser.raise_error(f"a wgmma on {types[1]} operands is k{WGMMA_K_BYTES // element_bytes(MmaType(types[1]))}"
                               f", got '{shape}'", pos, parser.pos)
        a = resolve(parser, parse_bracketed_operands(parser, "A"), I32)
        b = resolve(parser, parse_bracketed_operands(parser, "B"), I32)
        c = resolve(parser, parse_bracketed_operands(parser, "C"), I32 if types[0] == "s32" else F32)
        if len(a) != 1 or len(b) != 1:
            parser.raise_error("A and B are one shared-memory offset each")
        descs = [_parse_desc(parser, side) for side in ("desc_a", "desc_b")]
        op = cls(n, MmaType(types[1]), MmaType(types[2]), a[0], b[0], c, descs[0], descs[1])
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


def _parse_desc(parser: Parser, keyword: str) -> SmemDescriptor:
    parser.parse_keyword(keyword)
    parser.parse_punctuation("<")
    values: dict[str, int] = {}
    for index, name in enumerate(("swizzle", "lbo", "sbo")):
        if index:
            parser.parse_punctuation(",")
        parser.parse_keyword(name)
        parser.parse_punctuation("=")
        values[name] = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(">")
    return SmemDescriptor(values["swizzle"], values["lbo"], values["sbo"])


class _NoOperandInstruction(NoOperandInstruction):
    """A wgmma bookkeeping instruction without operands; it orders memory and registers."""

    FEATURE: ClassVar[Feature] = Feature.WGMMA


@irdl_op_definition
class WgmmaFenceOp(_NoOperandInstruction):
    """`wgmma.fence.sync.aligned`: orders earlier register writes (the accumulators) before the
    next wgmma of the warpgroup reads them."""

    name = "ptx.wgmma_fence"
    MNEMONIC: ClassVar[str] = "wgmma.fence.sync.aligned"


@irdl_op_definition
class WgmmaCommitOp(_NoOperandInstruction):
    """`wgmma.commit_group.sync.aligned`: closes the group of the wgmma issued since the last one."""

    name = "ptx.wgmma_commit"
    MNEMONIC: ClassVar[str] = "wgmma.commit_group.sync.aligned"


@irdl_op_definition
class FenceProxyAsyncOp(_NoOperandInstruction):
    """`fence.proxy.async.shared::cta`: this thread's earlier shared-memory stores become visible
    to later async-proxy reads (wgmma operands) once a barrier orders them."""

    name = "ptx.fence_proxy_async"
    MNEMONIC: ClassVar[str] = "fence.proxy.async.shared::cta"
    FEATURE: ClassVar[Feature] = Feature.FENCE_PROXY_ASYNC


@irdl_op_definition
class WgmmaWaitOp(GroupWaitInstruction):
    """`wgmma.wait_group.sync.aligned N`: wait until at most N committed groups are pending.

        ptx.wgmma_wait 0
    """

    name = "ptx.wgmma_wait"

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.WGMMA, "8.0", "wgmma.wait_group"),)

    def ptx_mnemonic(self) -> str:
        return "wgmma.wait_group.sync.aligned"


WGMMA_OPS = [WgmmaOp, WgmmaFenceOp, WgmmaCommitOp, WgmmaWaitOp, FenceProxyAsyncOp]
