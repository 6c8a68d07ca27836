"""The AGX target emits one dot tile per function and nothing else, so it accepts nothing else.

It used to drop every other op in silence: an ``arith.addf`` of the dot's result, returned in the
dot's place, compiled to the same stream as the bare tile. Now qdot-to-agx refuses any op of a
dot's function that is not the dot, its zero acc or the return of its result, and the emitter
refuses the same of a lowered (or hand-written) agx tile, a function that holds no tile, and any
other op of the module, each with a diagnostic at that op (tests/lit/qdot-to-agx/not-a-tile.mlir
has the pass's cases)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import compiler
from compiler.diagnostics import QdotError
from targets.agx import emit
from targets.agx.run import emulate
from targets.agx.tiles import FULL_PIPELINE, compile_ir

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agx_tile_fp16.mlir"
NOT_IN_TILE = "is not part of an AGX dot tile"
EMITS_ONLY = r"the AGX target emits the MMA instruction stream of one dot tile per function .*nothing else"
TAIL = "(docs/agx.md)"
DOT = ("  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 "
       ": tensor<8x16xf16> * tensor<16x16xf16> -> tensor<8x16xf32>\n")
SIGNATURE = "func.func @tile(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<8x16xf32>)"


def _example_with(before: str = "", after: str = "", returned: str = "%d") -> str:
    """examples/agx_tile_fp16.mlir's function with ops added before and after its dot."""
    return (f"{SIGNATURE} -> tensor<8x16xf32> {{\n{before}{DOT}{after}"
            f"  func.return {returned} : tensor<8x16xf32>\n}}\n")


def _refusal(text: str, form: str = "agx3b") -> QdotError:
    with pytest.raises(QdotError) as raised:
        compiler.compile(text, target=form)
    return raised.value


@pytest.mark.parametrize("form", ["agx3b", "agx3c"])
def test_an_op_after_the_dot_is_refused_not_dropped(form: str) -> None:
    """The review's case: the addf's result replaces the dot's where it was returned."""
    text = _example_with(after="  %e = arith.addf %d, %d : tensor<8x16xf32>\n", returned="%e")
    message = str(_refusal(text, form))
    assert "<source>:3:3: error: 'arith.addf' op " + NOT_IN_TILE in message
    assert "@tile holds a dot, so it is a tile: one qdot.dot_scaled of its arguments" in message
    assert message.rstrip().endswith(TAIL)


def test_an_op_before_the_dot_is_refused() -> None:
    text = _example_with(before="  %a2 = arith.mulf %a, %a : tensor<8x16xf16>\n")
    assert "<source>:2:3: error: 'arith.mulf' op " + NOT_IN_TILE in str(_refusal(text))


def test_an_op_feeding_the_dot_is_refused_at_the_dot() -> None:
    text = _example_with(before="  %a2 = arith.mulf %a, %a : tensor<8x16xf16>\n")
    text = text.replace("dot_scaled %a,", "dot_scaled %a2,")
    assert "'qdot.dot_scaled' op lhs must be an argument of @tile (a tile's inputs)" in str(_refusal(text))


def test_returning_another_value_is_refused() -> None:
    message = str(_refusal(_example_with(returned="%acc")))
    assert "<source>:3:3: error: 'func.return' op returns %acc: a tile function returns its dot's result" in message


def test_a_function_without_a_dot_is_refused_at_the_function() -> None:
    text = EXAMPLE.read_text(encoding="utf-8") + (
        "func.func @helper(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
        "  %y = arith.addf %x, %x : tensor<8x16xf32>\n"
        "  func.return %y : tensor<8x16xf32>\n}\n")
    message = str(_refusal(text))
    assert f"error: 'func.func' op @helper {NOT_IN_TILE}: it holds no lowered dot (no agx.mma8)" in message


def test_an_op_of_the_module_is_refused() -> None:
    message = str(_refusal('"test.op"() : () -> ()\n' + _example_with()))
    assert f"<source>:1:1: error: 'test.op' op {NOT_IN_TILE}: the module holds tile functions only" in message


HAND_WRITTEN = """
func.func @t(%x: tensor<8x8xf16>, %w: tensor<8x8xf16>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %b = agx.load_frag rhs %w[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  %r = agx.store_tile %d : !agx.frag<fp32> -> tensor<8x8xf32>
%EXTRA  func.return %RESULT : tensor<8x8xf32>
}
"""
AFTER_ALLOCATION = "agx-allocate-registers,agx-hints-and-waits"


def _hand_written(extra: str = "", result: str = "%r") -> str:
    return HAND_WRITTEN.replace("%EXTRA", extra).replace("%RESULT", result)


def test_the_emitter_takes_a_hand_written_tile() -> None:
    module = compile_ir(_hand_written(), AFTER_ALLOCATION)
    assert len(emit(module, "agx3b", "bin")) == 12


@pytest.mark.parametrize(("extra", "result", "line", "wanted"), [
    ("  %e = arith.addf %r, %r : tensor<8x8xf32>\n", "%e", 7, f"'arith.addf' op {NOT_IN_TILE}: a lowered tile "
     "function holds agx.load_frag, agx.dequant_frag, agx.mma8, one agx.store_tile and the func.return of its result"),
    ("  %c0 = arith.constant 0 : index\n", "%r", 7, f"'arith.constant' op {NOT_IN_TILE}"),
    ("", "%c", 7, "'func.return' op returns %c: a tile function returns its dot's result once, or nothing"),
], ids=["addf", "constant", "return"])
def test_the_emitter_refuses_what_it_would_drop(extra: str, result: str, line: int, wanted: str) -> None:
    module = compile_ir(_hand_written(extra, result), AFTER_ALLOCATION)
    for fmt in ("hex", "bin", "asm"):
        with pytest.raises(QdotError, match=EMITS_ONLY) as raised:
            emit(module, "agx3b", fmt)
        assert f"tile.mlir:{line}:3: error: {wanted}" in str(raised.value)


def test_the_emulator_refuses_a_module_it_would_run_in_part() -> None:
    text = _example_with() + "func.func @helper() {\n  func.return\n}\n"
    module = compile_ir(text, FULL_PIPELINE % "agx3b")
    inputs = [np.zeros((8, 16), np.float16), np.zeros((16, 16), np.float16), np.zeros((8, 16), np.float32)]
    with pytest.raises(QdotError, match=f"'func.func' op @helper {NOT_IN_TILE}"):
        emulate(module, "agx3b", inputs)


@pytest.mark.parametrize("form", ["agx3b", "agx3c"])
def test_what_a_tile_may_hold_still_compiles(form: str) -> None:
    """The example, its zero-acc form (the constant is consumed) and a tile returning nothing
    give the streams they gave before: the same MMAs as the example, the multiply form first."""
    example = compiler.compile(EXAMPLE, target=form).data
    returns_nothing = _example_with().replace(" -> tensor<8x16xf32> {", " {").replace(
        "  func.return %d : tensor<8x16xf32>", "  func.return")
    assert compiler.compile(returns_nothing, target=form).data == example
    zero = _example_with().replace(", %acc: tensor<8x16xf32>)", ")").replace(
        "{\n", "{\n  %acc = arith.constant dense<0.0> : tensor<8x16xf32>\n", 1)
    assert "zero" in emit(compiler.compile(zero, target=form).lowered, form, "asm")
