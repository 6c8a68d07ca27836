"""The pieces every LLVM IR lowering uses: types, constants, value names, the emitter state.

We print LLVM IR text ourselves instead of going through `llvmlite.ir` (which has no
`bfloat`) or xDSL's llvm converter (which mishandles address-space GEPs and kernel
marking, reference/xdsl.md §5). Text is deterministic by construction: names come from
a walk in program order, declarations and attribute groups are numbered in first-use
order, nothing depends on hashing.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from compiler.diagnostics import QdotError

SHARED_SYMBOL = "qdot_dynamic_smem"
"""The one extern dynamic shared-memory array of a module; shared offsets index it."""


def llvm_type(type_: Attribute, op: Operation | None = None) -> str:
    """LLVM spelling of a scalar or 1-D vector type (`index` is i64)."""
    if isinstance(type_, IntegerType):
        return f"i{type_.width.data}"
    if isinstance(type_, IndexType):
        return "i64"
    if isinstance(type_, Float16Type):
        return "half"
    if isinstance(type_, BFloat16Type):
        return "bfloat"
    if isinstance(type_, Float32Type):
        return "float"
    if isinstance(type_, Float64Type):
        return "double"
    if isinstance(type_, VectorType) and type_.get_num_dims() == 1 and not type_.get_scalable_dims().count(True):
        return f"<{type_.get_shape()[0]} x {llvm_type(type_.get_element_type(), op)}>"
    raise QdotError(op, f"type {type_} has no LLVM IR equivalent here (scalars and 1-D vectors only)")


def bit_width(type_: Attribute) -> int:
    if isinstance(type_, IntegerType):
        return type_.width.data
    if isinstance(type_, IndexType):
        return 64
    if isinstance(type_, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(type_, Float32Type):
        return 32
    if isinstance(type_, Float64Type):
        return 64
    if isinstance(type_, VectorType):
        return type_.get_shape()[0] * bit_width(type_.get_element_type())
    raise ValueError(f"no bit width for {type_}")


def mangle(type_: Attribute) -> str:
    """Overloaded-intrinsic suffix: i32, f32, bf16, v2f16."""
    if isinstance(type_, VectorType):
        return f"v{type_.get_shape()[0]}{mangle(type_.get_element_type())}"
    if isinstance(type_, (IntegerType, IndexType)):
        return f"i{bit_width(type_)}"
    if isinstance(type_, BFloat16Type):
        return "bf16"
    return f"f{bit_width(type_)}"


def _int_literal(value: int, width: int) -> str:
    if width == 1:
        return "true" if value & 1 else "false"
    value &= (1 << width) - 1
    if value >= 1 << (width - 1):
        value -= 1 << width
    return str(value)


def _float32_bits(value: float) -> int:
    """IEEE binary32 bits of `value` rounded to nearest even (the C cast that `struct` does),
    infinity where that overflows."""
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:
        return 0xFF800000 if value < 0 else 0x7F800000


def _float16_bits(value: float) -> int:
    """IEEE binary16 bits of `value`, rounded to nearest even, infinity where that overflows;
    a NaN keeps its sign and the top of its payload (numpy's `float16` conversion)."""
    if value != value:
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        half = 0x7C00 + ((bits & 0x000FFFFFFFFFFFFF) >> 42)
        return ((bits >> 48) & 0x8000) | (half if half != 0x7C00 else 0x7C01)
    try:
        return struct.unpack("<H", struct.pack("<e", value))[0]
    except OverflowError:
        return 0xFC00 if value < 0 else 0x7C00


def _float_literal(value: float, type_: Attribute) -> str:
    """Hex spellings, exact for every value: double bits for float/double, 0xH / 0xR for half / bfloat.

    Out-of-range values round to infinity, as a conversion to the type would. `struct`
    does the roundings (no numpy: importing it costs a tenth of a second of cold start).
    """
    if isinstance(type_, Float16Type):
        return f"0xH{_float16_bits(value):04X}"
    if isinstance(type_, BFloat16Type):
        if value != value:
            return "0xR7FC0"
        bits = _float32_bits(value)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return f"0xR{rounded & 0xFFFF:04X}"
    if isinstance(type_, Float32Type):
        value = struct.unpack("<f", struct.pack("<I", _float32_bits(value)))[0]
    return "0x" + struct.pack(">d", value).hex().upper()


def scalar_literal(value: int | float, type_: Attribute) -> str:
    if isinstance(type_, (IntegerType, IndexType)):
        return _int_literal(int(value), bit_width(type_))
    return _float_literal(float(value), type_)


def constant_text(attr: Attribute, type_: Attribute, op: Operation | None = None) -> str:
    """The LLVM constant (without its type) for an `arith.constant` value."""
    if isinstance(attr, (IntegerAttr, FloatAttr)):
        return scalar_literal(attr.value.data, type_)
    if isinstance(attr, DenseIntOrFPElementsAttr) and isinstance(type_, VectorType):
        element = type_.get_element_type()
        values = list(attr.get_values())
        if len(values) == 1:
            values = values * type_.get_shape()[0]
        element_type = llvm_type(element, op)
        return "<" + ", ".join(f"{element_type} {scalar_literal(v, element)}" for v in values) + ">"
    raise QdotError(op, f"constant {attr} of type {type_} has no LLVM IR equivalent here")


_LOCAL_NAME = re.compile(r"[A-Za-z$._][A-Za-z0-9$._]*")
_GLOBAL_NAME = re.compile(r"[A-Za-z$._-][A-Za-z0-9$._-]*")


def _base_name(hint: str | None) -> str:
    """The local name a value with name hint ``hint`` gets (before any ``.N`` suffix): the
    hint itself when LLVM accepts it, else the hint with other characters replaced."""
    if hint and _LOCAL_NAME.fullmatch(hint) and not hint[0].isdigit():
        return hint
    cleaned = re.sub(r"[^A-Za-z0-9$._]", "_", hint or "")
    return cleaned if cleaned and not cleaned[0].isdigit() else f"v{cleaned}"


def global_name(name: str) -> str:
    """``@name``, quoted when LLVM needs it."""
    return f"@{name}" if _GLOBAL_NAME.fullmatch(name) else '@"' + name.replace('"', "\\22") + '"'


def asm_string(text: str) -> str:
    """An inline-asm string literal: quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in '"\\' or ord(char) < 0x20:
            out.append(f"\\{ord(char):02X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@dataclass
class ModuleState:
    """What the functions of one module share: declarations, metadata, attribute groups."""

    declarations: dict[str, str] = field(default_factory=dict)
    capability: int = 90
    """The target's compute capability (``Arch.capability``): a few translations work around NVPTX's lowering
    where it differs by target (``llvm_arith._int_to_bf16``)."""
    uses_shared: bool = False
    shared_align: int = 16
    """Alignment of the dynamic shared memory: 1024 once a wgmma reads it, whose swizzle
    patterns repeat every 8 · 128 bytes of the shared window (dialects/ptx/wgmma.py)."""
    invariant_load_metadata: bool = False
    attribute_groups: dict[str, int] = field(default_factory=dict)

    def declare(self, name: str, result: str, arguments: Sequence[str]) -> None:
        self.declarations.setdefault(name, f"declare {result} {global_name(name)}({', '.join(arguments)})")

    def attribute_group(self, body: str) -> int:
        return self.attribute_groups.setdefault(body, len(self.attribute_groups))


class FunctionEmitter:
    """Emission state of one function: value names, the current block's lines.

    Every SSA value is named before any instruction is printed (a phi may use a value
    whose block comes later), so names never depend on emission order.
    """

    def __init__(self, module: ModuleState):
        self.module = module
        self._texts: dict[SSAValue, str] = {}
        self._aliases: dict[SSAValue, SSAValue] = {}
        self._used: set[str] = set()
        self._next: dict[str, int] = {}
        self._type_texts: dict[int, tuple[Attribute, str]] = {}
        self._bases: dict[str | None, str] = {}
        self.lines: list[str] = []
        self._memo: dict[str, str] = {}

    def type_text(self, type_: Attribute, op: Operation | None = None) -> str:
        """`llvm_type`, remembered per type object: a kernel has 15 000 values of a handful
        of types, and lowered IR shares the type objects (the entry keeps its object alive,
        so its id cannot be reused)."""
        entry = self._type_texts.get(id(type_))
        if entry is not None and entry[0] is type_:
            return entry[1]
        text = llvm_type(type_, op)
        self._type_texts[id(type_)] = (type_, text)
        return text

    # -- naming -------------------------------------------------------------------------
    def fresh(self, hint: str | None) -> str:
        """A new local name ``%hint`` (``%hint.1``, ... when taken)."""
        base = self._bases.get(hint)
        if base is None:  # a kernel names thousands of values from a few dozen hints
            base = self._bases[hint] = _base_name(hint)
        # a per-base counter keeps naming linear in the number of values
        name = base
        counter = self._next.get(base, 0)
        if counter or name in self._used:
            while name in self._used:
                counter += 1
                name = f"{base}.{counter}"
        self._next[base] = counter
        self._used.add(name)
        return f"%{name}"

    def name_value(self, value: SSAValue) -> None:
        self._texts[value] = self.fresh(value.name_hint)

    def set_text(self, value: SSAValue, text: str) -> None:
        """Bind `value` to a constant or an already named value instead of a fresh name."""
        self._texts[value] = text

    def alias(self, value: SSAValue, source: SSAValue) -> None:
        self._aliases[value] = source

    def text(self, value: SSAValue) -> str:
        """The LLVM operand text of `value` (a ``%name`` or a constant)."""
        while value in self._aliases:
            value = self._aliases[value]
        return self._texts[value]

    def typed(self, value: SSAValue) -> str:
        return f"{self.type_text(value.type)} {self.text(value)}"

    # -- emission -----------------------------------------------------------------------
    def start_block(self) -> None:
        """Begin a basic block: what ``memo`` computed in the previous one need not dominate it."""
        self.lines = []
        self._memo = {}

    def memo(self, instruction: str, hint: str) -> str:
        """``temp`` for a pure instruction, emitted once per block for the same text: an
        epilogue's store and the pair store beside it name one address, and their predicates
        come from a few bounds tests, so each conversion is printed once, not per access
        (fewer lines for LLVM to parse and optimise, the same PTX after its CSE)."""
        name = self._memo.get(instruction)
        if name is None:
            name = self._memo[instruction] = self.temp(instruction, hint)
        return name

    def emit(self, line: str) -> None:
        self.lines.append(f"  {line}")

    def assign(self, value: SSAValue, instruction: str) -> None:
        """``%value = instruction``."""
        self.emit(f"{self.text(value)} = {instruction}")

    def temp(self, instruction: str, hint: str = "t", into: SSAValue | None = None) -> str:
        """Emit ``%tmp = instruction`` (``%into = ...`` when given) and return the name."""
        name = self.text(into) if into is not None else self.fresh(hint)
        self.emit(f"{name} = {instruction}")
        return name

    def call(self, name: str, result: str, arguments: Sequence[tuple[str, str]], hint: str = "t",
             into: SSAValue | None = None) -> str:
        """Declare and call `name`; `arguments` are (type, operand text) pairs. Returns the
        result's name ("" for void)."""
        self.module.declare(name, result, [t for t, _ in arguments])
        call = f"call {result} {global_name(name)}({', '.join(f'{t} {v}' for t, v in arguments)})"
        if result == "void":
            self.emit(call)
            return ""
        return self.temp(call, hint, into)

    def inline_asm(self, result: str, text: str, constraints: str, arguments: Sequence[tuple[str, str]],
                   side_effects: bool, hint: str = "asm", into: SSAValue | None = None) -> str:
        flag = " sideeffect" if side_effects else ""
        call = (f"call {result} asm{flag} {asm_string(text)}, {asm_string(constraints)}"
                f"({', '.join(f'{t} {v}' for t, v in arguments)})")
        if result == "void":
            self.emit(call)
            return ""
        return self.temp(call, hint, into)

    def unpack(self, aggregate: str, aggregate_type: str, results: Sequence[SSAValue]) -> None:
        """Bind each result to a field of a returned struct (``extractvalue``)."""
        for index, result in enumerate(results):
            self.assign(result, f"extractvalue {aggregate_type} {aggregate}, {index}")

    # -- addresses ----------------------------------------------------------------------
    def shared_pointer(self, offset: str) -> str:
        """``ptr addrspace(3)`` to byte `offset` (i32) of the dynamic shared memory."""
        self.module.uses_shared = True
        return self.temp(f"getelementptr inbounds i8, ptr addrspace(3) @{SHARED_SYMBOL}, i32 {offset}", "smem")

    def global_pointer(self, address: str) -> str:
        """``ptr addrspace(1)`` for an i64 generic address of global memory (cvta.to.global).

        The PTX then carries one `cvta.to.global` per access, which blocks LLVM's folding of
        constant offsets, but ptxas removes them all: the SASS is identical to that of direct
        global pointers (cuobjdump on sm_90), so we keep the conversion the PTX ISA asks for.
        """
        generic = self.memo(f"inttoptr i64 {address} to ptr", "gen")
        return self.memo(f"addrspacecast ptr {generic} to ptr addrspace(1)", "gptr")


Lowering = Callable[[FunctionEmitter, Operation], None]
"""Translates one op: reads operand texts, emits instructions, binds result names."""


def struct_type(fields: Sequence[str]) -> str:
    return "{" + ", ".join(fields) + "}"
