"""What every `ptx` op shares: its target requirements, its PTX spelling, syntax helpers.

Each op stands for one PTX instruction. `requirements()` says which targets and PTX
versions accept the instruction form (checked by `check_arch` before LLVM sees the IR);
`ptx_mnemonic()` is the instruction as it appears in the PTX (the emitter's inline asm
and the tests that grep the PTX both use it, so the spelling is defined once).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, VariadicDef, prop_def, traits_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from dialects.ptx.arch import Feature, Requirement, requirement

I1 = IntegerType(1)
I8 = IntegerType(8)
I16 = IntegerType(16)
I32 = IntegerType(32)
I64 = IntegerType(64)
F16 = Float16Type()
BF16 = BFloat16Type()
F32 = Float32Type()
F64 = Float64Type()
F16X2 = VectorType(F16, [2])
BF16X2 = VectorType(BF16, [2])


@functools.cache
def _fixed_arity(cls: type[IRDLOperation]) -> tuple[int, int] | None:
    """(operands, results) of an op class whose every operand and result is single and that
    has no regions, successors or segment-size options; None otherwise."""
    op_def = cls.get_irdl_definition()
    defs = (*op_def.operands, *op_def.results)
    if op_def.options or op_def.regions or op_def.successors or any(isinstance(d, VariadicDef) for _, d in defs):
        return None
    return len(op_def.operands), len(op_def.results)


class PtxInstruction(IRDLOperation):
    """Base of the ops that become one PTX instruction."""

    def __init__(self, *, operands: Sequence[SSAValue | Operation] | None = None,
                 result_types: Sequence[Attribute] | None = None,
                 properties: Mapping[str, Attribute | None] | None = None,
                 attributes: Mapping[str, Attribute | None] | None = None, **kwargs: object):
        """IRDL's generic builder, short-cut for the fixed-arity ops (most of them): a
        lowered kernel builds thousands of ``ptx`` ops, and the generic builder, which sorts
        out variadic groups and segment sizes, costs three times what the op itself does.
        The result is the op IRDL would build (same operands, result types, properties and
        attributes, ``None`` entries dropped); anything else goes to IRDL, errors included."""
        operands = () if operands is None else operands
        result_types = () if result_types is None else result_types
        arity = _fixed_arity(type(self))
        values = [v if isinstance(v, SSAValue)
                  else v.results[0] if isinstance(v, Operation) and len(v.results) == 1 else None
                  for v in operands]
        if arity is None or kwargs or arity != (len(values), len(result_types)) \
                or any(v is None for v in values) or not all(isinstance(t, Attribute) for t in result_types):
            super().__init__(operands=operands, result_types=result_types, properties=properties,
                             attributes=attributes, **kwargs)  # type: ignore[arg-type]
            return
        Operation.__init__(
            self,
            operands=values,
            result_types=result_types,
            properties={k: v for k, v in (properties or {}).items() if v is not None},
            attributes={k: v for k, v in (attributes or {}).items() if v is not None},
        )

    def requirements(self) -> Sequence[Requirement]:
        """Target features and PTX ISA versions this instruction form needs."""
        return ()

    def ptx_mnemonic(self) -> str:
        """The instruction with all its qualifiers, as it appears in the PTX."""
        raise NotImplementedError


class NoOperandInstruction(PtxInstruction):
    """An instruction without operands or results (wgmma's fence and commit, fence.proxy.async,
    griddepcontrol): it orders memory, so it is never moved or removed. Subclasses name their
    mnemonic, the feature that gates it and the first PTX ISA version that has it."""

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"
    MNEMONIC: ClassVar[str] = ""
    FEATURE: ClassVar[Feature]
    MIN_PTX: ClassVar[str] = "8.0"

    def __init__(self) -> None:
        super().__init__()

    def requirements(self) -> Sequence[Requirement]:
        return (requirement(self.FEATURE, self.MIN_PTX, self.MNEMONIC),)

    def ptx_mnemonic(self) -> str:
        return self.MNEMONIC


MAX_WAIT_COUNT = 2**31 - 1
"""The largest N of ``<family>.wait_group N``: it is held as a 32-bit integer."""


def wait_count_problem(count: int, what: str = "pending") -> str | None:
    """Why ``count`` cannot be a ``wait_group`` count (the qgpu ops that lower to one ask too)."""
    if not 0 <= count <= MAX_WAIT_COUNT:
        return f"{what} must be from 0 to {MAX_WAIT_COUNT} (a wait_group count is a 32-bit integer), got {count}"
    return None


class GroupWaitInstruction(PtxInstruction):
    """Base of ``<family>.wait_group N`` (cp.async, wgmma): wait until at most N of this thread's
    committed groups are pending; spelled ``ptx.<op> N``."""

    pending = prop_def(IntegerAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, pending: int):
        super().__init__(properties={"pending": int_prop(pending)})

    def verify_(self) -> None:
        if (problem := wait_count_problem(int_value(self.pending))) is not None:
            raise VerifyException(problem)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {int_value(self.pending)}")
        print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> GroupWaitInstruction:
        op = cls(parser.parse_integer(allow_boolean=False))
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


def int_prop(value: int, width: int = 32) -> IntegerAttr:
    return IntegerAttr(value, IntegerType(width))


def int_value(attr: IntegerAttr) -> int:
    return attr.value.data


_SCALARS: dict[Attribute, int] = {I8: 1, I16: 2, I32: 4, I64: 8, F16: 2, BF16: 2, F32: 4, F64: 8}


def access_bytes(type_: Attribute, what: str) -> int:
    """Bytes moved by one ld/st of `type_`, or VerifyException naming `what`.

    Legal: a scalar i8/i16/i32/i64/f16/bf16/f32/f64, or a `.v2`/`.v4` vector of them of
    at most 16 bytes ([ISA] 9.7.9.8 `ld`: vector loads of 2 or 4 elements, 128 bits max).
    """
    size, problem = _access_size(type_)
    if problem is not None:
        raise VerifyException(f"{what} {problem}")
    return size


@functools.lru_cache(maxsize=256)
def _access_size(type_: Attribute) -> tuple[int, str | None]:
    """(bytes, None) or (0, what is wrong): remembered, since a kernel verifies thousands of
    loads and stores of a few types."""
    if type_ in _SCALARS:
        return _SCALARS[type_], None
    if isinstance(type_, VectorType) and type_.get_num_dims() == 1:
        count = type_.get_shape()[0]
        element = type_.get_element_type()
        if element not in _SCALARS:
            return 0, f"vector element must be i8, i16, i32, i64, f16, bf16, f32 or f64, got {element}"
        if count not in (2, 4):
            return 0, f"vector must have 2 or 4 elements (.v2/.v4), got {count}"
        size = count * _SCALARS[element]
        if size > 16:
            return 0, f"vector must be at most 16 bytes, got {size}"
        return size, None
    return 0, f"must be a scalar i8/i16/i32/i64/f16/bf16/f32/f64 or a vector of 2 or 4 of them, got {type_}"


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b, %c`` (at least one operand)."""
    return parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)


def parse_bracketed_operands(parser: Parser, keyword: str) -> list[UnresolvedOperand]:
    """``keyword[%a, %b]``."""
    parser.parse_keyword(keyword)
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_unresolved_operand)


def resolve(parser: Parser, operands: Sequence[UnresolvedOperand], type_: Attribute) -> list[SSAValue]:
    return [parser.resolve_operand(operand, type_) for operand in operands]


def print_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)


def print_bracketed_operands(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    printer.print_string(f" {keyword}[")
    print_operands(printer, values)
    printer.print_string("]")


def print_attr_dict(printer: Printer, op: IRDLOperation) -> None:
    """Discardable attributes only; properties are spelled by the custom syntax."""
    printer.print_op_attributes(op.attributes)


def parse_x_count(parser: Parser, what: str) -> int:
    """``x4`` -> 4 (PTX's `.num` / `.x4` spelling)."""
    pos = parser.pos
    word = parser.parse_identifier()
    if not (word.startswith("x") and word[1:].isdigit()):
        parser.raise_error(f"expected {what} as x1, x2 or x4, got '{word}'", pos, parser.pos)
    return int(word[1:])
