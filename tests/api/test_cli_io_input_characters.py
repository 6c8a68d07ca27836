"""Characters of the input no one can see: a UTF-8 byte-order mark before the text is dropped
(locations stay the ones an editor shows), and a character the lexer refuses that a terminal
would not print is named as U+XXXX instead of being written raw into the diagnostic."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from compiler import registry
from compiler.cli.common import Chunk, diagnostic_text, parse_module, read_input
from xdsl.utils.exceptions import ParseError

BOM = "\ufeff"
UNDEFINED = "func.func @f() {\n  %x = arith.addi %y, %y : i32\n}\n"


def _diagnostic(text: str) -> str:
    chunk = Chunk(text, 0)
    with pytest.raises(ParseError) as info:
        parse_module(registry.make_context(), chunk, "k.mlir")
    message = diagnostic_text(info.value, chunk)
    assert message is not None
    return message


def test_a_byte_order_mark_is_dropped_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_bytes(BOM.encode() + b"func.func @f() {\n  func.return\n}\n")
    text, name = read_input(str(path))
    assert (text, name) == ("func.func @f() {\n  func.return\n}\n", str(path))


def test_a_byte_order_mark_is_dropped_from_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(BOM.encode() + b"func.func @f() {}\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert read_input(None) == ("func.func @f() {}\n", "<stdin>")


def test_locations_after_a_byte_order_mark_are_the_editors(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_bytes(BOM.encode() + UNDEFINED.encode())
    text, _ = read_input(str(path))
    assert _diagnostic(text).startswith("k.mlir:2:19: error: use of undefined value '%y'")


def test_a_byte_order_mark_inside_the_text_is_named() -> None:
    message = _diagnostic("func.func @f() {\n  \ufeff\n}\n")
    assert message.splitlines()[0] == "k.mlir:2:3: error: Unexpected character: U+FEFF"


def test_a_nul_byte_is_named_and_not_printed() -> None:
    message = _diagnostic("func.func @f() {\n  \0\n}\n")
    assert message.splitlines() == ["k.mlir:2:3: error: Unexpected character: U+0000", "  \ufffd", "  ^"]
    assert "\0" not in message


def test_a_printable_character_is_left_as_it_is() -> None:
    assert _diagnostic("func.func @f() {\n  `\n}\n").splitlines()[0] == "k.mlir:2:3: error: Unexpected character: `"
