"""Memory instructions: ldmatrix, ld/st shared and global, cp.async, barriers.

Addresses follow the conventions of the lowering passes: shared memory is an **i32 byte
offset from the start of the kernel's dynamic shared memory**; global memory an **i64
byte address** (a generic address of global data, as cudaMalloc returns it).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, UnitAttr, f32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.arch import Feature, Requirement, requirement
from dialects.ptx.attrs import CacheOp, CacheOpAttr, LdmatrixEltAttr, LdmatrixShapeAttr
from dialects.ptx.base import (
    GroupWaitInstruction,
    I1,
    I32,
    I64,
    PtxInstruction,
    access_bytes,
    int_prop,
    int_value,
    parse_x_count,
    print_attr_dict,
)
from dialects.ptx.ldmatrix_forms import (
    LdmatrixElt,
    LdmatrixShape,
    ldmatrix_mnemonic,
    ldmatrix_problem,
    ldmatrix_register_count,
)


def ldmatrix_num_problem(num: int) -> str | None:
    """The count rule of ``ldmatrix_problem`` alone, for code that must check it before the rest of
    the form is known: ``m8n8 .b16`` without trans is a form for every valid count, so the only
    objection ``ldmatrix_problem`` can raise to it is the count's."""
    return ldmatrix_problem(LdmatrixShape.M8N8, num, False, LdmatrixElt.B16)


@irdl_op_definition
class LdmatrixOp(PtxInstruction):
    """`ldmatrix.sync.aligned.<shape>.x<num>{.trans}.shared.<elt>` ([ISA] 9.7.14.5.15).

    Warp-collective load of 1, 2 or 4 matrices from shared memory: each lane supplies the
    byte offset of one 16-byte row (lanes 0-7 matrix 0, 8-15 matrix 1, ...) and receives
    its fragment registers (ptx.md §2.3-2.5). The ``b8x16.b4x16_p64`` / ``b6x16_p32`` forms
    read 8 packed bytes (+8 padding) / 12 packed bytes (+4 padding) per row and widen each
    4/6-bit value to a byte (``0000xxxx`` / ``00xxxxxx``).

        %r:4 = ptx.ldmatrix m8n8 x4 trans b16 %offset
        %r:2 = ptx.ldmatrix m16n16 x1 trans b8x16.b4x16_p64 %offset
        %r:4 = ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64 %offset
    """

    name = "ptx.ldmatrix"
    offset = operand_def(I32)
    shape = prop_def(LdmatrixShapeAttr)
    num = prop_def(IntegerAttr)
    trans = opt_prop_def(UnitAttr)
    elt = prop_def(LdmatrixEltAttr)
    res = var_result_def(I32)
    traits = traits_def(MemoryReadEffect())

    def __init__(self, offset: SSAValue, shape: LdmatrixShape, num: int, elt: LdmatrixElt, trans: bool = False):
        # An invalid count gets no results rather than a list sized from it (x4294967300 would exhaust
        # memory); the verifier then names the count rule.
        registers = 0 if ldmatrix_num_problem(num) is not None else ldmatrix_register_count(shape, num)
        super().__init__(
            operands=[offset],
            result_types=[[I32] * registers],
            properties={
                "shape": LdmatrixShapeAttr(shape),
                "num": int_prop(num),
                "trans": UnitAttr() if trans else None,
                "elt": LdmatrixEltAttr(elt),
            },
        )

    @property
    def form(self) -> tuple[LdmatrixShape, int, bool, LdmatrixElt]:
        return self.shape.data, int_value(self.num), self.trans is not None, self.elt.data

    def verify_(self) -> None:
        shape, num, trans, elt = self.form
        if (problem := ldmatrix_problem(shape, num, trans, elt)) is not None:
            raise VerifyException(problem)
        expected = ldmatrix_register_count(shape, num)
        if len(self.res) != expected:
            raise VerifyException(f"{shape} x{num} writes {expected} registers, got {len(self.res)} results")

    def requirements(self) -> Sequence[Requirement]:
        feature = self.shape.data.feature
        return (requirement(feature, "6.5" if feature is Feature.LDMATRIX else "8.6", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return ldmatrix_mnemonic(*self.form)

    def print(self, printer: Printer) -> None:
        shape, num, trans, elt = self.form
        printer.print_string(f" {shape} x{num}{' trans' if trans else ''} {elt} ")
        printer.print_operand(self.offset)
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> LdmatrixOp:
        shape = parser.parse_str_enum(LdmatrixShape)
        start = parser.pos
        num = parse_x_count(parser, "num")
        if (problem := ldmatrix_num_problem(num)) is not None:
            # At the count, before the results are sized from it (and before xDSL binds %r:N to them).
            parser.raise_error(problem, start, parser.pos)
        trans = parser.parse_optional_keyword("trans") is not None
        elt = parser.parse_str_enum(LdmatrixElt)
        offset = parser.resolve_operand(parser.parse_unresolved_operand(), I32)
        attributes = parser.parse_optional_attr_dict()
        op = cls(offset, shape, num, elt, trans)
        op.attributes.update(attributes)
        return op


class _MemoryAccess(PtxInstruction):
    def accessed_type(self) -> Attribute:
        raise NotImplementedError

    def verify_(self) -> None:
        access_bytes(self.accessed_type(), "accessed type")

    def requirements(self) -> Sequence[Requirement]:
        return ()


@irdl_op_definition
class LdSharedOp(_MemoryAccess):
    """`ld.shared.<type>` ([ISA] 9.7.9.8): a load at an i32 byte offset into dynamic shared memory.

    The offset must be aligned to the accessed size (PTX requires natural alignment).

        %v = ptx.ld_shared %offset : vector<4xi32>
    """

    name = "ptx.ld_shared"
    offset = operand_def(I32)
    res = result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$offset attr-dict `:` type($res)"

    def __init__(self, offset: SSAValue, result_type: Attribute):
        super().__init__(operands=[offset], result_types=[result_type])

    def accessed_type(self) -> Attribute:
        return self.res.type

    def ptx_mnemonic(self) -> str:
        return "ld.shared"


@irdl_op_definition
class StSharedOp(_MemoryAccess):
    """`st.shared.<type>` ([ISA] 9.7.9.10): a store at an i32 byte offset into dynamic shared memory.

        ptx.st_shared %offset, %value : i32
    """

    name = "ptx.st_shared"
    offset = operand_def(I32)
    value = operand_def()
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$offset `,` $value attr-dict `:` type($value)"

    def __init__(self, offset: SSAValue, value: SSAValue):
        super().__init__(operands=[offset, value])

    def accessed_type(self) -> Attribute:
        return self.value.type

    def ptx_mnemonic(self) -> str:
        return "st.shared"


@irdl_op_definition
class LdGlobalOp(_MemoryAccess):
    """`ld.global{.nc}.<type>` ([ISA] 9.7.9.8, 9.7.9.9) at an i64 byte address.

    With a predicate, lanes whose predicate is false do not access memory and read 0
    (``mov 0; @p ld``): the zero fill of out-of-bounds elements. ``nc`` loads through the
    non-coherent (read-only) cache; only legal for data no thread writes during the kernel.

        %v = ptx.ld_global %addr : i32
        %v = ptx.ld_global nc %addr if %in_bounds : vector<4xi32>
    """

    name = "ptx.ld_global"
    address = operand_def(I64)
    predicate = opt_operand_def(I1)
    nc = opt_prop_def(UnitAttr)
    res = result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = "(`nc` $nc^)? $address (`if` $predicate^)? attr-dict `:` type($res)"

    def __init__(self, address: SSAValue, result_type: Attribute, predicate: SSAValue | None = None,
                 nc: bool = False):
        super().__init__(operands=[address, predicate], result_types=[result_type],
                         properties={"nc": UnitAttr() if nc else None})

    def accessed_type(self) -> Attribute:
        return self.res.type

    def ptx_mnemonic(self) -> str:
        return "ld.global.nc" if self.nc is not None else "ld.global"


@irdl_op_definition
class StGlobalOp(_MemoryAccess):
    """`st.global.<type>` ([ISA] 9.7.9.10) at an i64 byte address; with a predicate,
    lanes whose predicate is false store nothing.

        ptx.st_global %addr, %value if %in_bounds : vector<4xf32>
    """

    name = "ptx.st_global"
    address = operand_def(I64)
    value = operand_def()
    predicate = opt_operand_def(I1)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$address `,` $value (`if` $predicate^)? attr-dict `:` type($value)"

    def __init__(self, address: SSAValue, value: SSAValue, predicate: SSAValue | None = None):
        super().__init__(operands=[address, value, predicate])

    def accessed_type(self) -> Attribute:
        return self.value.type

    def ptx_mnemonic(self) -> str:
        return "st.global"


@irdl_op_definition
class RedGlobalAddOp(_MemoryAccess):
    """`red.global.add.f32` ([ISA] 9.7.13.6): atomically add an f32 to global memory, no result;
    with a predicate, lanes whose predicate is false do nothing.

        ptx.red_global_add %addr, %value if %in_bounds : f32
    """

    name = "ptx.red_global_add"
    address = operand_def(I64)
    value = operand_def()
    predicate = opt_operand_def(I1)
    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())
    assembly_format = "$address `,` $value (`if` $predicate^)? attr-dict `:` type($value)"

    def __init__(self, address: SSAValue, value: SSAValue, predicate: SSAValue | None = None):
        super().__init__(operands=[address, value, predicate])

    def accessed_type(self) -> Attribute:
        return self.value.type

    def verify_(self) -> None:
        super().verify_()
        if self.value.type != f32:
            raise VerifyException(f"red.global.add takes an f32 value, got {self.value.type}")

    def ptx_mnemonic(self) -> str:
        return "red.global.add"


@irdl_op_definition
class PrefetchGlobalL2Op(PtxInstruction):
    """`prefetch.global.L2 [addr]` ([ISA] 9.7.9.15, every target): bring the cache line holding a
    global address into L2; with a predicate, lanes whose predicate is false do nothing. A hint:
    it reads no value into a register and changes none in memory.

        ptx.prefetch_global_l2 %addr
        ptx.prefetch_global_l2 %addr if %in_bounds
    """

    name = "ptx.prefetch_global_l2"
    address = operand_def(I64)
    predicate = opt_operand_def(I1)
    # a write too: with read effects alone and no result an op is dead code to xDSL's DCE
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$address (`if` $predicate^)? attr-dict"

    def __init__(self, address: SSAValue, predicate: SSAValue | None = None):
        super().__init__(operands=[address, predicate])

    def ptx_mnemonic(self) -> str:
        return "prefetch.global.L2"


L2_PREFETCH_SIZES = (64, 128, 256)
"""The prefetch sizes of cp.async's ``.level::prefetch_size`` (``.L2::64B|.L2::128B|.L2::256B``)."""


def l2_prefetch_problem(size: int, name: str = "l2_prefetch") -> str | None:
    """Why ``size`` is not a cp.async prefetch size, or None (``name``: what the message calls it)."""
    if size in L2_PREFETCH_SIZES:
        return None
    return f"{name} must be 64, 128 or 256 (bytes), got {size}"


@irdl_op_definition
class CpAsyncOp(PtxInstruction):
    """`cp.async.<ca|cg>.shared.global [dst], [src], bytes{, src_size}` ([ISA] 9.7.9.25.3.1).

    Asynchronous copy of 4, 8 or 16 bytes from global to shared memory (``cg``: 16 only).
    With `src_size`, only that many bytes are read and the rest of the destination is
    zero-filled: ``src_size = 0`` zero-fills an out-of-bounds row without touching memory.
    Completes at `cp_async_commit` + `cp_async_wait`.

    `l2_prefetch` (64, 128 or 256 bytes) is the ``.level::prefetch_size`` qualifier
    (``.L2::128B``, PTX ISA 7.4): a performance hint that L2 may fetch the whole aligned
    64/128/256-byte block around the request from DRAM. It changes no value that is copied.

        ptx.cp_async cg %dst_offset, %src_addr, 16
        ptx.cp_async ca %dst_offset, %src_addr, 16, %src_size
        ptx.cp_async cg l2_prefetch 128 %dst_offset, %src_addr, 16, %src_size
    """

    name = "ptx.cp_async"
    dst = operand_def(I32)
    src = operand_def(I64)
    src_size = opt_operand_def(I32)
    cache = prop_def(CacheOpAttr)
    size = prop_def(IntegerAttr, prop_name="bytes")
    l2_prefetch = opt_prop_def(IntegerAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, dst: SSAValue, src: SSAValue, size: int, cache: CacheOp = CacheOp.CG,
                 src_size: SSAValue | None = None, l2_prefetch: int | None = None):
        super().__init__(operands=[dst, src, src_size],
                         properties={"cache": CacheOpAttr(cache), "bytes": int_prop(size),
                                     "l2_prefetch": None if l2_prefetch is None else int_prop(l2_prefetch)})

    @property
    def l2_prefetch_bytes(self) -> int | None:
        """The prefetch size of the hint, None without one."""
        return None if self.l2_prefetch is None else int_value(self.l2_prefetch)

    def verify_(self) -> None:
        size = int_value(self.size)
        if size not in (4, 8, 16):
            raise VerifyException(f"bytes must be 4, 8 or 16, got {size}")
        if self.cache.data is CacheOp.CG and size != 16:
            raise VerifyException(f"cache operator cg requires bytes = 16, got {size}")
        prefetch = self.l2_prefetch_bytes
        if prefetch is not None and (problem := l2_prefetch_problem(prefetch)) is not None:
            raise VerifyException(problem)

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.CP_ASYNC, "7.0" if self.l2_prefetch is None else "7.4", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        prefetch = self.l2_prefetch_bytes
        hint = "" if prefetch is None else f".L2::{prefetch}B"
        return f"cp.async.{self.cache.data}.shared.global{hint}"

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.cache.data} ")
        if self.l2_prefetch is not None:
            printer.print_string(f"l2_prefetch {int_value(self.l2_prefetch)} ")
        printer.print_operand(self.dst)
        printer.print_string(", ")
        printer.print_operand(self.src)
        printer.print_string(f", {int_value(self.size)}")
        if self.src_size is not None:
            printer.print_string(", ")
            printer.print_operand(self.src_size)
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncOp:
        cache = parser.parse_str_enum(CacheOp)
        l2_prefetch = None
        if parser.parse_optional_keyword("l2_prefetch") is not None:
            start = parser.pos
            l2_prefetch = parser.parse_integer(allow_boolean=False, allow_negative=False,
                                               context_msg=" (the prefetch size in bytes after l2_prefetch)")
            if (problem := l2_prefetch_problem(l2_prefetch)) is not None:
                parser.raise_error(problem, start, parser.pos)  # at the number, which may not fit an i32
        dst = parser.resolve_operand(parser.parse_unresolved_operand(), I32)
        parser.parse_punctuation(",")
        src = parser.resolve_operand(parser.parse_unresolved_operand(), I64)
        parser.parse_punctuation(",")
        size = parser.parse_integer(allow_boolean=False, allow_negative=False)
        src_size = None
        if parser.parse_optional_punctuation(",") is not None:
            src_size = parser.resolve_operand(parser.parse_unresolved_operand(), I32)
        attributes = parser.parse_optional_attr_dict()
        op = cls(dst, src, size, cache, src_size, l2_prefetch)
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class CpAsyncCommitOp(PtxInstruction):
    """`cp.async.commit_group` ([ISA] 9.7.9.25.3.2): close the group of preceding cp.async."""

    name = "ptx.cp_async_commit"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.CP_ASYNC, "7.0", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return "cp.async.commit_group"


@irdl_op_definition
class CpAsyncWaitOp(GroupWaitInstruction):
    """`cp.async.wait_group N` ([ISA] 9.7.9.25.3.3): wait until at most N groups are pending.

        ptx.cp_async_wait 1
    """

    name = "ptx.cp_async_wait"

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(Feature.CP_ASYNC, "7.0", self.ptx_mnemonic()),)

    def ptx_mnemonic(self) -> str:
        return "cp.async.wait_group"


@irdl_op_definition
class BarSyncOp(PtxInstruction):
    """`bar.sync id` ([ISA] 9.7.13.1): block-wide barrier (all threads of the CTA), barrier 0-15.

        ptx.bar_sync        // barrier 0
        ptx.bar_sync 1
    """

    name = "ptx.bar_sync"
    barrier = prop_def(IntegerAttr, prop_name="id")
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, barrier: int = 0):
        super().__init__(properties={"id": int_prop(barrier)})

    def verify_(self) -> None:
        if not 0 <= int_value(self.barrier) <= 15:
            raise VerifyException(f"barrier id must be in 0..15, got {int_value(self.barrier)}")

    def ptx_mnemonic(self) -> str:
        return "bar.sync"

    def print(self, printer: Printer) -> None:
        if int_value(self.barrier) != 0:
            printer.print_string(f" {int_value(self.barrier)}")
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> BarSyncOp:
        barrier = parser.parse_optional_integer(allow_boolean=False)
        op = cls(0 if barrier is None else barrier)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


MEMORY_OPS = [
    LdmatrixOp,
    LdSharedOp,
    StSharedOp,
    LdGlobalOp,
    StGlobalOp,
    RedGlobalAddOp,
    PrefetchGlobalL2Op,
    CpAsyncOp,
    CpAsyncCommitOp,
    CpAsyncWaitOp,
    BarSyncOp,
]
