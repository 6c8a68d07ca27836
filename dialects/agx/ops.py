"""Ops of the agx dialect: fragment loads, the 8x8 MMA, and the result tile.

    %a = agx.load_frag lhs %x[0, 8] slot 1 : tensor<32x32xf16> -> !agx.frag<fp16>
    %b = agx.dequant_frag rhs %w scale %s[8, 0] e2m1 : tensor<16x32xi8>, tensor<32x1xf8E8M0FNU> -> !agx.frag<fp16>
    %d = agx.mma8 %a discard, %b cache, %c discard wait [0, 1] d_cache
         : !agx.frag<fp16, r0>, !agx.frag<fp16, r2>, !agx.frag<fp32, r8> -> !agx.frag<fp32, r8>
    %e = agx.mma8 %a, %b, zero : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
    %r = agx.store_tile %d00, %d01 : !agx.frag<fp32>, !agx.frag<fp32> -> tensor<8x16xf32>

Only ``agx.mma8`` is an encoded instruction. The load ops model the
asynchronous loads (and, for ``dequant_frag``, the ALU conversion) that fill a
fragment, whose encodings are unknown: the emitter prints them as the fragment
map, and the emulator plays their part. The function that holds a lowered tile
carries ``agx.form = "agx3b"``; the MMA verifier checks the encoder's rules for
that form, so a wait slot or type mix the form refuses is reported on the op.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    BoolAttr,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IntAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.agx.types import FragType
from dialects.qdot.attrs import FormatAttr
from dialects.qdot.dot import check_quantized_operand
from dialects.qdot.formats import Format, format_info
from targets.agx.errors import EncodingError
from targets.agx.forms import FORMS
from targets.agx.mma8 import ElemType, Hint, Mma8, validate

FORM_ATTR = "agx.form"
"""Discardable attribute on the function holding a lowered tile: ``"agx3b"`` or ``"agx3c"``."""

OPERAND_ROLES = ("lhs", "rhs", "acc")
MAX_WAIT_SLOTS = max(form.wait_slots for form in FORMS.values())


def form_of(op: Operation) -> str | None:
    """The AGX form the tile containing ``op`` is lowered for, if it says."""
    current: Operation | None = op
    while current is not None:
        attr = current.attributes.get(FORM_ATTR)
        if isinstance(attr, StringAttr):
            return attr.data
        current = current.parent_op()
    return None


def _frag(value: SSAValue, what: str) -> FragType:
    if not isinstance(value.type, FragType):
        raise VerifyException(f"{what} must be an !agx.frag, got {value.type}")
    return value.type


def _parse_role(parser: Parser) -> str:
    position = parser.pos
    role = parser.parse_optional_identifier()
    if role not in OPERAND_ROLES:
        parser.raise_error(f"expected the dot operand the fragment belongs to: {', '.join(OPERAND_ROLES)}",
                           position, parser.pos)
    return role


def _parse_offset(parser: Parser) -> tuple[int, int]:
    parser.parse_punctuation("[")
    row = parser.parse_integer(allow_boolean=False, allow_negative=False)
    parser.parse_punctuation(",")
    col = parser.parse_integer(allow_boolean=False, allow_negative=False)
    parser.parse_punctuation("]")
    return row, col


def _parse_slot(parser: Parser) -> int | None:
    if parser.parse_optional_keyword("slot") is None:
        return None
    return parser.parse_integer(allow_boolean=False, allow_negative=False)


def _check_slot(slot: IntAttr | None) -> None:
    if slot is not None and not 0 <= slot.data < MAX_WAIT_SLOTS:
        raise VerifyException(f"slot {slot.data} is not a scoreboard slot (0..{MAX_WAIT_SLOTS - 1})")


def _check_form_slot(op: Operation, slot: IntAttr | None) -> None:
    form = form_of(op)
    if slot is not None and form in FORMS and slot.data >= FORMS[form].wait_slots:
        raise VerifyException(
            f"slot {slot.data} does not exist on {form}, which has {FORMS[form].wait_slots} slots")


def _check_window(what: str, row: int, col: int, rows: int, cols: int) -> None:
    if row % 8 or col % 8:
        raise VerifyException(f"{what} offset [{row}, {col}] must be a multiple of 8")
    if row + 8 > rows or col + 8 > cols:
        raise VerifyException(
            f"{what} window [{row}:{row + 8}, {col}:{col + 8}] is outside the {rows}x{cols} operand")


def _frag_type(result: Attribute | ElemType | str) -> Attribute:
    """A result type given as a parsed type or as an element type (unplaced fragment)."""
    if isinstance(result, Attribute):
        return result
    return FragType(result)


def _role_attr(role: str) -> StringAttr:
    return StringAttr(role)


@irdl_op_definition
class LoadFragOp(IRDLOperation):
    """Load the 8x8 block at ``[row, col]`` of a float operand into a fragment (asynchronous).

    f16 loads as fp16 or fp32, f32 as fp32, bf16 as fp32: every conversion is
    exact (the MMA has no bf16 form). ``slot`` is the scoreboard slot the load
    signals, assigned by ``agx-hints-and-waits``.
    """

    name = "agx.load_frag"

    source = operand_def(TensorType)
    result = result_def(FragType)
    operand = prop_def(StringAttr)
    row = prop_def(IntAttr)
    col = prop_def(IntAttr)
    slot = opt_prop_def(IntAttr)

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, operand: str, row: int, col: int, result: Attribute | ElemType | str,
                 slot: int | None = None):
        properties: dict[str, Attribute] = {"operand": _role_attr(operand), "row": IntAttr(row), "col": IntAttr(col)}
        if slot is not None:
            properties["slot"] = IntAttr(slot)
        super().__init__(operands=[source], result_types=[_frag_type(result)], properties=properties)

    def verify_(self) -> None:
        if self.operand.data not in OPERAND_ROLES:
            raise VerifyException(f"operand must be one of {', '.join(OPERAND_ROLES)}, got {self.operand.data}")
        frag = _frag(self.result, "result")
        assert isinstance(self.source.type, TensorType)
        element = self.source.type.get_element_type()
        allowed = {Float16Type(): (ElemType.FP16, ElemType.FP32), Float32Type(): (ElemType.FP32,),
                   BFloat16Type(): (ElemType.FP32,)}
        if element not in allowed:
            raise VerifyException(
                f"source element type must be f16, f32 or bf16 (quantized operands use agx.dequant_frag), got {element}")
        if frag.elem_type not in allowed[element]:
            raise VerifyException(
                f"a {element} source loads as {' or '.join(allowed[element])} fragments (exactly), "
                f"got {frag.elem_type}")
        shape = self.source.type.get_shape()
        if len(shape) != 2:
            raise VerifyException(f"source must have rank 2, got {len(shape)}")
        _check_window("load", self.row.data, self.col.data, shape[0], shape[1])
        _check_slot(self.slot)
        _check_form_slot(self, self.slot)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.operand.data} ")
        printer.print_operand(self.source)
        printer.print_string(f"[{self.row.data}, {self.col.data}]")
        if self.slot is not None:
            printer.print_string(f" slot {self.slot.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadFragOp:
        role = _parse_role(parser)
        source = parser.parse_unresolved_operand()
        row, col = _parse_offset(parser)
        slot = _parse_slot(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        (resolved,) = parser.resolve_operands([source], [source_type], parser.pos)
        op = cls(resolved, role, row, col, result_type, slot)
        op.attributes.update(attributes)
        return op


def logical_extent(operand: str, fmt: Format, shape: Sequence[int], k_pack: bool) -> tuple[int, int]:
    """(rows, cols) in values of a quantized operand (A is M x K, B is K x N), from its tensor shape."""
    info = format_info(fmt)
    rows, cols = shape
    along_k = info.values_per_element if (info.is_block or (info.is_packed and k_pack)) else 1
    along_free = info.values_per_element if (info.is_packed and not k_pack) else 1
    if operand == "lhs":
        return rows * along_free, cols * along_k
    return rows * along_k, cols * along_free


@irdl_op_definition
class DequantFragOp(IRDLOperation):
    """Load the codes (and block scales) of the 8x8 block at ``[row, col]`` and dequantize them.

    ``[row, col]`` counts values of the logical operand (A is M x K, B is K x N),
    not packed bytes or blocks. The result is the values the format and its
    scale stand for (``compiler.numerics``), rounded to the fragment type. The
    load is asynchronous like ``agx.load_frag``; the conversion is ALU work
    before the MMAs that read the fragment. Neither has a published encoding:
    this op is modelled (fragment map, emulator), not emitted.
    """

    name = "agx.dequant_frag"

    source = operand_def(TensorType)
    scale = opt_operand_def(TensorType)
    result = result_def(FragType)
    operand = prop_def(StringAttr)
    row = prop_def(IntAttr)
    col = prop_def(IntAttr)
    format = prop_def(FormatAttr)
    k_pack = prop_def(BoolAttr, default_value=BoolAttr.from_bool(True))
    slot = opt_prop_def(IntAttr)

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, scale: SSAValue | None, operand: str, row: int, col: int,
                 fmt: Format | str, result: Attribute | ElemType | str, k_pack: bool = True,
                 slot: int | None = None):
        properties: dict[str, Attribute] = {
            "operand": _role_attr(operand), "row": IntAttr(row), "col": IntAttr(col),
            "format": FormatAttr(Format(fmt)), "k_pack": BoolAttr.from_bool(k_pack),
        }
        if slot is not None:
            properties["slot"] = IntAttr(slot)
        super().__init__(operands=[source, scale], result_types=[_frag_type(result)], properties=properties)

    @property
    def fmt(self) -> Format:
        return self.format.data

    @property
    def is_k_packed(self) -> bool:
        return bool(self.k_pack.value.data)

    def verify_(self) -> None:
        if self.operand.data not in ("lhs", "rhs"):
            raise VerifyException(f"operand must be lhs or rhs (the accumulator is never quantized), "
                                  f"got {self.operand.data}")
        _frag(self.result, "result")
        info = format_info(self.fmt)
        if not (info.is_block or info.takes_scale):
            raise VerifyException(f"format {self.fmt} is not quantized; load it with agx.load_frag")
        if self.scale is not None and info.is_block:
            raise VerifyException(f"{self.fmt} carries its scales in its blocks and takes no scale operand")
        assert isinstance(self.source.type, TensorType)
        shape = self.source.type.get_shape()
        if len(shape) != 2:
            raise VerifyException(f"source must have rank 2, got {len(shape)}")
        rows, cols = logical_extent(self.operand.data, self.fmt, shape, self.is_k_packed)
        free, k = (rows, cols) if self.operand.data == "lhs" else (cols, rows)
        check_quantized_operand(self.operand.data, self.fmt, self.source.type,
                                self.scale.type if self.scale is not None else None, free, k)
        _check_window("dequant", self.row.data, self.col.data, rows, cols)
        _check_slot(self.slot)
        _check_form_slot(self, self.slot)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.operand.data} ")
        printer.print_operand(self.source)
        if self.scale is not None:
            printer.print_string(" scale ")
            printer.print_operand(self.scale)
        printer.print_string(f"[{self.row.data}, {self.col.data}] {self.fmt}")
        if not self.is_k_packed:
            printer.print_string(" k_pack = false")
        if self.slot is not None:
            printer.print_string(f" slot {self.slot.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        if self.scale is not None:
            printer.print_string(", ")
            printer.print_attribute(self.scale.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> DequantFragOp:
        role = _parse_role(parser)
        source = parser.parse_unresolved_operand()
        scale = parser.parse_unresolved_operand() if parser.parse_optional_keyword("scale") else None
        row, col = _parse_offset(parser)
        position = parser.pos
        name = parser.parse_optional_identifier()
        try:
            fmt = Format(name)
        except ValueError:
            parser.raise_error(f"expected a quantized format, got {name}", position, parser.pos)
        k_pack = True
        if parser.parse_optional_keyword("k_pack"):
            parser.parse_punctuation("=")
            k_pack = parser.parse_boolean()
        slot = _parse_slot(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        if scale is not None:
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        unresolved = [source] if scale is None else [source, scale]
        resolved = parser.resolve_operands(unresolved, types, parser.pos)
        op = cls(resolved[0], resolved[1] if scale is not None else None, role, row, col, fmt,
                 result_type, k_pack, slot)
        op.attributes.update(attributes)
        return op


HINT_NAMES = (Hint.CACHE, Hint.DISCARD)


@irdl_op_definition
class Mma8Op(IRDLOperation):
    """D = A x B + C on 8x8 fragments: Apple's simdgroup multiply-accumulate (``f32matmad8x8``).

    Without C (``zero`` in its place) it is simdgroup_multiply, D = A x B. A and
    B are fp16 or fp32, C and D fp32 (the seed). Each source may carry a
    register-cache hint (``cache`` or ``discard``), D a ``d_cache`` hint;
    ``wait [i, ...]`` lists the scoreboard slots to wait on before reading.
    """

    name = "agx.mma8"

    a = operand_def(FragType)
    b = operand_def(FragType)
    c = opt_operand_def(FragType)
    result = result_def(FragType)
    a_hint = opt_prop_def(StringAttr)
    b_hint = opt_prop_def(StringAttr)
    c_hint = opt_prop_def(StringAttr)
    wait = opt_prop_def(DenseArrayBase)
    d_cache = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue | None, result_type: Attribute | None = None,
                 hints: dict[str, str] | None = None, wait: Sequence[int] = (), d_cache: bool = False):
        properties: dict[str, Attribute] = {}
        for operand, hint in (hints or {}).items():
            properties[f"{operand}_hint"] = StringAttr(str(hint))
        if wait:
            properties["wait"] = DenseArrayBase.from_list(i64, list(wait))
        if d_cache:
            properties["d_cache"] = UnitAttr()
        super().__init__(operands=[a, b, c], result_types=[result_type or FragType(ElemType.FP32)],
                         properties=properties)

    @property
    def wait_slots(self) -> tuple[int, ...]:
        if self.wait is None:
            return ()
        return tuple(int(v) for v in self.wait.get_values())

    def hint_of(self, operand: str) -> str | None:
        attr = {"a": self.a_hint, "b": self.b_hint, "c": self.c_hint}[operand]
        return attr.data if attr is not None else None

    def descriptor(self) -> Mma8:
        """The encoder's descriptor; unplaced fragments get register 0 (checked by the allocator)."""
        a, b, d = _frag(self.a, "A"), _frag(self.b, "B"), _frag(self.result, "D")
        c = _frag(self.c, "C") if self.c is not None else None
        hints = {name: self.hint_of(name) for name in ("a", "b", "c")}
        return Mma8(
            d=d.reg or 0,
            a=a.reg or 0,
            b=b.reg or 0,
            c=(c.reg or 0) if c is not None else None,
            a_type=a.elem_type,
            b_type=b.elem_type,
            cd_type=d.elem_type,
            accumulate=c is not None,
            hints={name: hint for name, hint in hints.items() if hint is not None},
            d_cache=self.d_cache is not None,
            wait=self.wait_slots,
        )

    def verify_(self) -> None:
        a, b, d = _frag(self.a, "A"), _frag(self.b, "B"), _frag(self.result, "D")
        c = _frag(self.c, "C") if self.c is not None else None
        for what, frag in (("C", c), ("D", d)):
            if frag is not None and frag.elem_type is not ElemType.FP32:
                raise VerifyException(f"{what} must be an fp32 fragment (the fp16-accumulator form is not mapped), "
                                      f"got {frag.elem_type}")
        for operand in ("a", "b", "c"):
            hint = self.hint_of(operand)
            if hint is not None and hint not in HINT_NAMES:
                raise VerifyException(f"{operand.upper()} hint must be cache or discard, got {hint}")
        if c is None and self.c_hint is not None:
            raise VerifyException("C hint given, but the multiply form (zero) reads no C")
        if self.wait is not None and self.wait.elt_type != i64:
            raise VerifyException(f"wait slots must be an i64 array, got element type {self.wait.elt_type}")
        slots = self.wait_slots
        if list(slots) != sorted(set(slots)):
            raise VerifyException(f"wait slots must be increasing and distinct, got {list(slots)}")
        for slot in slots:
            if not 0 <= slot < MAX_WAIT_SLOTS:
                raise VerifyException(f"wait slot {slot} is not a scoreboard slot (0..{MAX_WAIT_SLOTS - 1})")
        for what, frag in (("A", a), ("B", b)):
            overlap = set(d.registers) & set(frag.registers)
            if overlap:
                raise VerifyException(
                    f"D r{d.reg} overlaps {what} r{frag.reg}; D may share only C's register (in-place accumulate, A13)")
        form = form_of(self)
        if form in FORMS:
            try:
                validate(self.descriptor(), FORMS[form])
            except EncodingError as err:
                raise VerifyException(f"{form}: {err}") from None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.a)
        if self.a_hint is not None:
            printer.print_string(f" {self.a_hint.data}")
        printer.print_string(", ")
        printer.print_operand(self.b)
        if self.b_hint is not None:
            printer.print_string(f" {self.b_hint.data}")
        printer.print_string(", ")
        if self.c is None:
            printer.print_string("zero")
        else:
            printer.print_operand(self.c)
            if self.c_hint is not None:
                printer.print_string(f" {self.c_hint.data}")
        if self.wait_slots:
            printer.print_string(f" wait [{', '.join(str(s) for s in self.wait_slots)}]")
        if self.d_cache is not None:
            printer.print_string(" d_cache")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        types = [self.a.type, self.b.type] + ([self.c.type] if self.c is not None else [])
        printer.print_list(types, printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> Mma8Op:
        def hint() -> str | None:
            for name in HINT_NAMES:
                if parser.parse_optional_keyword(name):
                    return str(name)
            return None

        a = parser.parse_unresolved_operand()
        hints = {"a": hint()}
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        hints["b"] = hint()
        parser.parse_punctuation(",")
        c = None
        if parser.parse_optional_keyword("zero") is None:
            c = parser.parse_unresolved_operand()
            hints["c"] = hint()
        wait: list[int] = []
        if parser.parse_optional_keyword("wait"):
            wait = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False))
        d_cache = parser.parse_optional_keyword("d_cache") is not None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        unresolved = [a, b] + ([c] if c is not None else [])
        if len(types) != len(unresolved):
            parser.raise_error(f"expected {len(unresolved)} operand types, got {len(types)}")
        resolved = parser.resolve_operands(unresolved, types, parser.pos)
        op = cls(resolved[0], resolved[1], resolved[2] if c is not None else None, result_type,
                 hints={k: v for k, v in hints.items() if v is not None}, wait=wait, d_cache=d_cache)
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class StoreTileOp(IRDLOperation):
    """The result tile D[M, N] from its fp32 fragments, row-major by 8x8 block.

    Fragment ``i`` is block ``(i // (N/8), i % (N/8))``. Like the loads, the
    stores it stands for are modelled, not encoded: the emitter prints which
    register holds which block.
    """

    name = "agx.store_tile"

    fragments = var_operand_def(FragType)
    result = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "$fragments attr-dict `:` type($fragments) `->` type($result)"

    def __init__(self, fragments: Sequence[SSAValue], result_type: TensorType):
        super().__init__(operands=[list(fragments)], result_types=[result_type])

    def block_of(self, index: int) -> tuple[int, int]:
        """(row, col) of the 8x8 block fragment ``index`` holds."""
        assert isinstance(self.result.type, TensorType)
        cols = self.result.type.get_shape()[1] // 8
        return 8 * (index // cols), 8 * (index % cols)

    def verify_(self) -> None:
        assert isinstance(self.result.type, TensorType)
        shape = self.result.type.get_shape()
        if len(shape) != 2 or shape[0] % 8 or shape[1] % 8 or min(shape) <= 0:
            raise VerifyException(f"result must be an M x N tensor with M and N multiples of 8, got {list(shape)}")
        if self.result.type.get_element_type() != Float32Type():
            raise VerifyException(f"result element type must be f32, got {self.result.type.get_element_type()}")
        expected = (shape[0] // 8) * (shape[1] // 8)
        if len(self.fragments) != expected:
            raise VerifyException(
                f"a {shape[0]}x{shape[1]} tile needs ({shape[0]}/8)*({shape[1]}/8) = {expected} fragments, "
                f"got {len(self.fragments)}")
        for index, value in enumerate(self.fragments):
            frag = _frag(value, f"fragment {index}")
            if frag.elem_type is not ElemType.FP32:
                raise VerifyException(f"fragment {index} must be fp32, got {frag.elem_type}")
