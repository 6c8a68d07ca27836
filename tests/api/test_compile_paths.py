"""``compiler.compile`` takes a path as a ``str`` too: a one-line str that names an existing file is
read from it; a one-line str ending in .mlir that names no file is a FileNotFoundError naming it,
not the parse error it used to be (``<source>:1:1 Could not parse entire input!``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from xdsl.utils.exceptions import ParseError

import compiler

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agx_tile_fp16.mlir"


def test_str_path_compiles_as_the_path_does() -> None:
    from_path = compiler.compile(EXAMPLE, target="agx3b")
    from_str = compiler.compile(str(EXAMPLE), target="agx3b")
    from_text = compiler.compile(EXAMPLE.read_text(encoding="utf-8"), target="agx3b")
    assert from_str.data == from_path.data == from_text.data


def test_relative_str_path_is_read_from_the_working_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLE.parent)
    assert compiler.compile(EXAMPLE.name, target="agx3b").data == compiler.compile(EXAMPLE, target="agx3b").data


def test_missing_mlir_path_names_the_file() -> None:
    missing = str(EXAMPLE.with_name("no_such_tile.mlir"))
    with pytest.raises(FileNotFoundError, match="no_such_tile.mlir") as raised:
        compiler.compile(missing, target="agx3b")
    assert raised.value.filename == missing
    assert not isinstance(raised.value, ParseError)


def test_a_str_path_names_its_file_in_diagnostics(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n", encoding="utf-8")
    with pytest.raises(ParseError, match="bad.mlir"):
        compiler.compile(os.fspath(bad), target="agx3b")


@pytest.mark.parametrize("text", [
    "func.func @f() { func.return }",  # one line of IR, not a file
    "func.func @f() {\n  func.return\n}\n// see examples/agx_tile_fp16.mlir",  # mentions a path, has newlines
])
def test_ir_text_is_still_parsed_as_ir(text: str) -> None:
    llvm_ir = compiler.compile(text, target="llvm", pipeline="").llvm_ir
    assert llvm_ir is not None and "define void @f()" in llvm_ir


def test_text_with_a_newline_is_never_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParseError, match="<source>"):
        compiler.compile("missing.mlir\n", target="agx3b")
