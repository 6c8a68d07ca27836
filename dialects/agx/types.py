"""``!agx.frag``: one simdgroup's 8x8 operand fragment in a register pair.

    !agx.frag<fp16>        an fp16 fragment, not yet placed (each lane holds 2 halves of one register)
    !agx.frag<fp32, r8>    an fp32 fragment in the pair r8_r9 of every lane

The register is part of the type, as xDSL's riscv/x86 register allocators put
registers in value types: after ``agx-allocate-registers`` every fragment
value says where it lives, and the emitter reads operands' registers straight
from their types. Each lane holds two horizontally adjacent elements of the
tile (Metal's layout, ``targets.agx.lanes``).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from targets.agx.errors import EncodingError
from targets.agx.mma8 import ElemType, check_register

FRAGMENT_TYPES: tuple[ElemType, ...] = (ElemType.FP16, ElemType.FP32)
"""Element types a fragment may hold: the MMA has no bf16 form, so bf16 is widened to fp32."""


@irdl_attr_definition
class FragType(ParametrizedAttribute, TypeAttribute):
    """An 8x8 fragment distributed over a simdgroup: fp16 in ``rNl_rNh``, fp32 in ``rN_rN+1``."""

    name = "agx.frag"

    elem: StringAttr
    register: IntAttr | NoneAttr

    def __init__(self, elem: ElemType | str, register: int | None = None):
        super().__init__(StringAttr(str(elem)), IntAttr(register) if register is not None else NoneAttr())

    @property
    def elem_type(self) -> ElemType:
        return ElemType(self.elem.data)

    @property
    def reg(self) -> int | None:
        return self.register.data if isinstance(self.register, IntAttr) else None

    @property
    def registers(self) -> range:
        """32-bit registers the fragment occupies (empty if not placed)."""
        if self.reg is None:
            return range(0)
        return range(self.reg, self.reg + self.elem_type.registers)

    def placed(self, register: int) -> FragType:
        return FragType(self.elem_type, register)

    def verify(self) -> None:
        if self.elem.data not in FRAGMENT_TYPES:
            choices = ", ".join(FRAGMENT_TYPES)
            widen = "; widen bf16 to fp32 when loading" if self.elem.data == ElemType.BF16 else ""
            raise VerifyException(f"fragment element type must be one of {choices}, got {self.elem.data}{widen}")
        if self.reg is not None:
            try:
                check_register("fragment", self.reg, self.elem_type)
            except EncodingError as err:
                raise VerifyException(str(err)) from None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            position = parser.pos
            elem = parser.parse_optional_identifier()
            if elem is None:
                parser.raise_error("expected a fragment element type (fp16 or fp32)", position, parser.pos)
            register: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(","):
                position = parser.pos
                name = parser.parse_optional_identifier()
                if name is None or not name.startswith("r") or not name[1:].isdigit():
                    parser.raise_error("expected a register rN", position, parser.pos)
                register = IntAttr(int(name[1:]))
        return (StringAttr(elem), register)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.elem.data)
            if self.reg is not None:
                printer.print_string(f", r{self.reg}")
