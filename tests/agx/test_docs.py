"""docs/agx.md stays true: its tables are the field tables, and its worked examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from targets.agx import emit
from targets.agx.doctable import DOCS, render_into
from targets.agx.tiles import FULL_PIPELINE, compile_ir

TEXT = Path(DOCS).read_text(encoding="utf-8")
_FENCE = r"\n```[a-z]*\n(.*?)\n```"
EXAMPLES = re.findall(r"<!-- example: (\w+) (input|output|emit) ?([^\n]*?) -->" + _FENCE, TEXT, re.S)
PYTHON = re.findall(r"```python\n(.*?)\n```", TEXT, re.S)


def _input(name: str) -> str:
    for example, kind, _, body in EXAMPLES:
        if example == name and kind == "input":
            return body
    raise AssertionError(f"docs/agx.md has no input for example {name}")


def _in_order(shown: str, actual: str) -> None:
    position = 0
    lines = actual.splitlines()
    for wanted in (line.strip() for line in shown.splitlines() if line.strip()):
        while position < len(lines) and lines[position].strip() != wanted:
            position += 1
        assert position < len(lines), f"docs/agx.md shows a line the tool does not print (in this order):\n{wanted}"
        position += 1


def test_generated_tables_are_in_sync() -> None:
    assert render_into(TEXT) == TEXT, "run: python -m targets.agx.doctable --write"
    for block in ("agx3b-fields", "agx3c-fields", "assumptions"):
        assert f"<!-- BEGIN GENERATED: {block} -->\n<!-- END" not in TEXT  # every block is filled
        assert f"<!-- BEGIN GENERATED: {block} -->" in TEXT


def test_examples_are_found() -> None:
    assert {(name, kind) for name, kind, _, _ in EXAMPLES} >= {("fp16", "input"), ("fp16", "output"),
                                                                 ("fp16", "emit"), ("mx", "output")}
    assert len(PYTHON) >= 2


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e[1] != "input"], ids=lambda e: f"{e[0]}-{e[1]}")
def test_worked_example_runs_as_shown(example: tuple[str, str, str, str]) -> None:
    name, kind, argument, shown = example
    if kind == "output":
        from io import StringIO

        from compiler.cli.common import print_module

        module = compile_ir(_input(name), argument)
        out = StringIO()
        print_module(module, out)
        _in_order(shown, out.getvalue())
    else:
        form, fmt = argument.split()
        module = compile_ir(_input(name), FULL_PIPELINE % form)
        result = emit(module, form, fmt)
        assert isinstance(result, str)
        _in_order(shown, result)


@pytest.mark.parametrize("snippet", PYTHON, ids=lambda s: s.splitlines()[0][:40])
def test_python_snippets_run(snippet: str) -> None:
    exec(compile(snippet, "docs/agx.md", "exec"), {})  # noqa: S102 - the docs' own examples


def test_named_modules_exist() -> None:
    """Every ``targets.agx.<name>`` the page names with a lowercase name is a module of
    targets/agx, and what it names inside that module exists (the page named a module
    ``targets.agx.emit``; the emitter is ``targets.agx.emitter``)."""
    import importlib

    package = Path(DOCS).resolve().parents[1] / "targets" / "agx"
    names = set(re.findall(r"\btargets\.agx\.[a-z_]\w*(?:\.\w+)*", TEXT))
    assert "targets.agx.emitter.emit" in names
    for dotted in sorted(names):
        module_name, *rest = dotted.split(".")[2:]
        assert (package / f"{module_name}.py").is_file(), \
            f"docs/agx.md names {dotted}: no targets/agx/{module_name}.py"
        target: object = importlib.import_module(f"targets.agx.{module_name}")
        for attribute in rest:
            assert hasattr(target, attribute), \
                f"docs/agx.md names {dotted}: targets.agx.{module_name} has no {attribute}"
            target = getattr(target, attribute)
