"""MLIR-style diagnostics: ``file:line:col: error: 'op.name' op message``.

xDSL reports a verifier failure by printing the whole module in generic form
with the message attached, and its parser does not record where an operation
came from. Users of an MLIR-family tool expect one line that names the file,
line and column of the offending operation and the rule it broke, so this
module (1) gives every parsed operation a ``FileLineColLoc``, (2) verifies a
module innermost-operation-first so the most specific failure is the one
reported, and (3) formats every error the same way, whether it comes from the
parser, a verifier or a pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, VerifyException

_XDSL_VERIFY_PREFIX = "Operation does not verify: "


class LocatingParser(Parser):
    """An xDSL parser that stamps each operation with the position it was parsed at."""

    line_offset: int = 0

    def parse_module(self, *args, **kwargs):  # type: ignore[override]
        """Attribute verifiers run while parsing; report their failures at the parse position."""
        try:
            return super().parse_module(*args, **kwargs)
        except VerifyException as err:
            self.raise_error(str(err).split("\n\n")[0], self._current_token.span)

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        if not isinstance(op.location, FileLineColLoc):
            location = start.get_location()
            op.location = FileLineColLoc(
                StringAttr(location.file),
                IntAttr(location.line + self.line_offset),
                IntAttr(location.col),
            )
        return op


def location_of(op: Operation | None) -> str:
    """``file:line:col`` of an operation, or of its nearest located ancestor."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return "<unknown>"


class QdotError(DiagnosticException):
    """An error anchored at an operation; printed as one MLIR-style diagnostic line."""

    def __init__(self, op: Operation | None, message: str):
        self.op = op
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        where = location_of(self.op)
        subject = f"'{self.op.name}' op " if self.op is not None else ""
        return f"{where}: error: {subject}{self.message}"


def emit_error(op: Operation | None, message: str) -> NoReturn:
    """Abort the current verifier or pass with a diagnostic at ``op``."""
    raise QdotError(op, message)


def _clean(message: str) -> str:
    while message.startswith(_XDSL_VERIFY_PREFIX):
        message = message[len(_XDSL_VERIFY_PREFIX):]
    return message.strip()


def verify_operation(op: Operation) -> None:
    """Verify ``op`` and everything nested in it, innermost operations first."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                verify_operation(child)
    try:
        op.verify(verify_nested_ops=False)
    except QdotError:
        raise
    except VerifyException as err:
        raise QdotError(op, _clean(str(err).split("\n\n")[0])) from None


def verify_module(module: ModuleOp) -> None:
    verify_operation(module)


@dataclass(frozen=True)
class ParseDiagnostic:
    """A parse error rendered as ``file:line:col: error: message`` plus the source line."""

    text: str


def render_parse_error(err: Exception, line_offset: int = 0) -> str:
    span = getattr(err, "span", None)
    msg = getattr(err, "msg", str(err))
    if span is None:
        return f"error: {msg}"
    loc = span.get_location()
    context = span.print_with_context(None).split("\n", 1)
    body = context[1] if len(context) > 1 else ""
    return f"{loc.file}:{loc.line + line_offset}:{loc.col}: error: {msg}\n{body}".rstrip()
