"""Regions nested deeper than ``MAX_REGION_NESTING`` are a located parse error, the same from
``compiler.compile`` as from the tools, and whatever the caller's stack depth: 200 nested
``scf.execute_region`` used to end in an internal ``RecursionError`` (exit 2). A module at the limit
goes through the parser, the verifier, the passes and the printer with room to spare."""

from __future__ import annotations

import sys

import pytest
from xdsl.utils.exceptions import ParseError

import compiler
from compiler.cli.common import MAX_REGION_NESTING


def nested(regions: int) -> str:
    """A function whose body holds ``regions - 1`` ``scf.execute_region`` inside one another."""
    inner = regions - 1
    return ("func.func @f() {\n" + "  scf.execute_region {\n" * inner + "  scf.yield\n  }\n" * inner
            + "  func.return\n}\n")


def at_depth(frames: int, call):  # noqa: ANN001, ANN201 - any callable
    """``call()`` with ``frames`` more Python frames on the stack, as a caller deep in its own code has."""
    return call() if frames == 0 else at_depth(frames - 1, call)


@pytest.mark.parametrize("regions", [MAX_REGION_NESTING + 1, 200, 5000])
def test_nesting_past_the_limit_is_a_located_error(regions: int) -> None:
    with pytest.raises(ParseError) as raised:
        compiler.compile(nested(regions), target="llvm", pipeline="")
    text = str(raised.value)
    assert f"<source>:{MAX_REGION_NESTING + 1}:3" in text
    assert f"nesting deeper than {MAX_REGION_NESTING} regions is not supported" in text


def test_the_limit_holds_from_a_deep_caller() -> None:
    """The limit, not Python's recursion limit, refuses the module when the caller has used a
    quarter of the recursion limit; deeper still, the parser's own guard refuses it, at the op it
    was reading, never a RecursionError."""
    limit = sys.getrecursionlimit()
    with pytest.raises(ParseError, match="nesting deeper than"):
        at_depth(limit // 4, lambda: compiler.compile(nested(300), target="llvm", pipeline=""))
    with pytest.raises(ParseError, match=r"<source>:\d+:3\n(.|\n)*nesting too deep to parse"):
        at_depth(limit * 4 // 5, lambda: compiler.compile(nested(300), target="llvm", pipeline=""))


def test_a_module_at_the_limit_goes_through_the_default_pipeline() -> None:
    """Every pass of the default pipeline walks the 64 regions; the LLVM IR emitter then refuses the
    structured op (there is no scf.execute_region in LLVM IR), a diagnostic and not a crash."""
    from compiler.diagnostics import QdotError

    with pytest.raises(QdotError, match="'scf.execute_region' has no translation to LLVM IR"):
        at_depth(sys.getrecursionlimit() // 4, lambda: compiler.compile(nested(MAX_REGION_NESTING), target="llvm"))


def test_attributes_nested_too_deep_are_a_located_error() -> None:
    text = "func.func @f() attributes {a = " + "[" * 2000 + "]" * 2000 + "} {\n  func.return\n}\n"
    with pytest.raises(ParseError, match=r"^<source>:1:1\n(.|\n)*\nnesting too deep to parse"):  # at the function
        compiler.compile(text, target="llvm", pipeline="")
