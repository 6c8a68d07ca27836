"""Triton's keyword-struct syntax for attributes: ``#qgpu.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>``.

xDSL 0.74 has no declarative attribute format, so every qgpu encoding parses
and prints its parameters by hand (reference/xdsl.md §1.5). The keyword list is
shared here so that all encodings accept the same things: keys in any order,
no duplicates, a clear message naming the unknown or missing key, and an
attribute verifier failure reported at the attribute's position instead of as
a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Position
from xdsl.utils.str_enum import StrEnum


class Value(StrEnum):
    """What a keyword's value looks like."""

    INT = "an integer"
    INT_LIST = "a list of integers like [2, 2]"
    BOOL = "`true` or `false`"
    ATTR = "an attribute"


ParsedValue = int | tuple[int, ...] | bool | Attribute


def _parse_value(parser: AttrParser, kind: Value) -> ParsedValue:
    if kind == Value.INT:
        return parser.parse_integer(allow_boolean=False)
    if kind == Value.INT_LIST:
        values = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False))
        return tuple(values)
    if kind == Value.BOOL:
        return parser.parse_boolean()
    return parser.parse_attribute()


def parse_keyword_struct(
    parser: AttrParser,
    what: str,
    keys: Mapping[str, Value],
    optional: Sequence[str] = (),
) -> dict[str, ParsedValue]:
    """Parse ``<{key = value, ...}>``; every key of ``keys`` not in ``optional`` is required."""
    values: dict[str, ParsedValue] = {}
    with parser.in_angle_brackets():
        parser.parse_punctuation("{", f" to open the parameters of {what}")
        if parser.parse_optional_punctuation("}") is None:
            while True:
                start = parser.pos
                key = parser.parse_identifier(f" (a parameter name of {what})")
                if key not in keys:
                    expected = ", ".join(keys)
                    parser.raise_error(f"{what} has no parameter `{key}`; expected one of: {expected}",
                                       start, parser.pos)
                if key in values:
                    parser.raise_error(f"{what} parameter `{key}` is given twice", start, parser.pos)
                parser.parse_punctuation("=", f" after `{key}`")
                values[key] = _parse_value(parser, keys[key])
                if parser.parse_optional_punctuation("}") is not None:
                    break
                parser.parse_punctuation(",", f" or `}}` after the value of `{key}`")
    missing = [k for k in keys if k not in values and k not in optional]
    if missing:
        parser.raise_error(f"{what} is missing parameter(s): {', '.join(missing)}")
    return values


def print_keyword_struct(printer: Printer, items: Sequence[tuple[str, int | Sequence[int] | bool | Attribute]]) -> None:
    """Print ``<{key = value, ...}>`` in the order given."""

    def print_item(item: tuple[str, int | Sequence[int] | bool | Attribute]) -> None:
        key, value = item
        printer.print_string(f"{key} = ")
        if isinstance(value, bool):
            printer.print_string("true" if value else "false")
        elif isinstance(value, int):
            printer.print_string(str(value))
        elif isinstance(value, Attribute):
            printer.print_attribute(value)
        else:
            printer.print_string("[" + ", ".join(str(v) for v in value) + "]")

    with printer.in_angle_brackets():
        printer.print_string("{")
        printer.print_list(items, print_item)
        printer.print_string("}")


A = TypeVar("A", bound=ParametrizedAttribute)


def build_checked(parser: AttrParser, start: Position, build: Callable[[], A]) -> A:
    """Build the attribute now so that a verifier failure becomes a located parse error."""
    try:
        return build()
    except VerifyException as err:
        parser.raise_error(str(err), start, parser.pos)
