"""Types of the qdot dialect: quantized blocks, global pointers, block descriptors.

    !qdot.block<q4_K>            one 256-value q4_K super-block (144 bytes, ggml layout)
    !qdot.ptr<f8E4M3FN>          a pointer to global memory holding f8E4M3FN elements
    !qdot.desc<64x128xi8>        a 64x128 tile descriptor over such a pointer (qdot.make_desc)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, IntAttr, IntegerType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dialects.qdot.attrs import FormatAttr
from dialects.qdot.formats import BLOCK_FORMATS, Format, FormatInfo, format_info


@irdl_attr_definition
class BlockType(ParametrizedAttribute, TypeAttribute):
    """One block of a llama.cpp block format, byte-compatible with ggml.

    A tensor of blocks holds ``values_per_element`` values per element along its
    last (K) dimension; the block's scales travel inside it.
    """

    name = "qdot.block"

    format: FormatAttr

    def __init__(self, fmt: Format | str | FormatAttr):
        super().__init__(fmt if isinstance(fmt, FormatAttr) else FormatAttr(Format(fmt)))

    @property
    def info(self) -> FormatInfo:
        return format_info(self.format.data)

    def verify(self) -> None:
        if not self.info.is_block:
            choices = ", ".join(BLOCK_FORMATS)
            raise VerifyException(f"!qdot.block needs a block format ({choices}), got {self.format.data}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            position = parser.pos
            name = parser.parse_optional_identifier()
            if name not in BLOCK_FORMATS:
                choices = ", ".join(f"`{f}`" for f in BLOCK_FORMATS)
                got = f", got `{name}`" if name is not None else ""
                parser.raise_error(f"expected a block format: one of {choices}{got}", position, parser.pos)
        return (FormatAttr(Format(name)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.format.data)


def _raise_at(parser: AttrParser, start: int, build: Callable[[], Attribute]) -> None:
    """Report a parameter that fails verification as a parse error at its source span.

    Verification runs when an attribute is constructed; doing it here gives the
    user a ``file:line:col`` pointing at the bad parameters.
    """
    try:
        build()
    except VerifyException as err:
        parser.raise_error(str(err), start, parser.pos)


def is_memory_element_type(element_type: Attribute) -> bool:
    """What global memory may hold: builtin integers and floats, and qdot blocks."""
    return isinstance(element_type, IntegerType | AnyFloat | BlockType)


def _check_element_type(kind: str, element_type: Attribute) -> None:
    if not is_memory_element_type(element_type):
        raise VerifyException(
            f"{kind} element type must be a builtin integer or float type or !qdot.block, got {element_type}")


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer to global memory holding elements of ``pointee`` (a kernel argument)."""

    name = "qdot.ptr"

    pointee: Attribute

    def __init__(self, pointee: Attribute):
        super().__init__(pointee)

    def verify(self) -> None:
        _check_element_type("!qdot.ptr", self.pointee)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            pointee = parser.parse_type()
            _raise_at(parser, start, lambda: cls(pointee))
        return (pointee,)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.pointee)


@irdl_attr_definition
class DescType(ParametrizedAttribute, TypeAttribute):
    """A block descriptor: a tile of a fixed static ``shape`` over a global tensor.

    The descriptor also carries (as SSA values of ``qdot.make_desc``) the global
    tensor's shape and strides, so ``qdot.load``/``qdot.store`` can bound-check
    each tile; the tile shape and element type live in the type.
    """

    name = "qdot.desc"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element_type)

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    def verify(self) -> None:
        if not self.shape.data:
            raise VerifyException("!qdot.desc needs a tile of rank 1 or more, got rank 0")
        if any(d <= 0 for d in self.get_shape()):
            dims = "x".join("?" if d < 0 else str(d) for d in self.get_shape())
            raise VerifyException(f"!qdot.desc tile dimensions must be static and positive, got {dims}")
        _check_element_type("!qdot.desc", self.element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            dims, element_type = parser.parse_ranked_shape()
            _raise_at(parser, start, lambda: cls(dims, element_type))
        return (ArrayAttr(IntAttr(d) for d in dims), element_type)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_dimension_list(self.get_shape())
            printer.print_string("x")
            printer.print_attribute(self.element_type)
