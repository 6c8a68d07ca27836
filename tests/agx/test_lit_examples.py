"""Every dot tile in the AGX lit tests and the docs that lowers also computes the right numbers.

Each function of tests/lit/qdot-to-agx/*.mlir and docs/agx.md's example inputs that the
full pipeline accepts is compiled for both forms (a chunk of invalid.mlir, or one whose CHECK
lines expect an error, must be refused), run on the emulator with exactly
representable inputs, and compared with compiler.numerics.dot_scaled.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.func import FuncOp

from compiler import numerics
from compiler.diagnostics import QdotError
from targets.agx.doctable import DOCS
from targets.agx.run import emulate
from targets.agx.tiles import BLOCK_VALUES, FULL_PIPELINE, compile_ir, dot_inputs

LIT = Path(__file__).parents[1] / "lit" / "qdot-to-agx"


def _chunks() -> list[tuple[str, str]]:
    found = []
    for path in sorted(LIT.glob("*.mlir")):
        for index, chunk in enumerate(path.read_text().split("// -----")):
            if "qdot.dot_scaled" in chunk:
                found.append((f"{path.name}#{index}", chunk))
    docs = Path(DOCS).read_text()
    for name, body in re.findall(r"<!-- example: (\w+) input -->\n```mlir\n(.*?)\n```", docs, re.S):
        found.append((f"docs:{name}", body))
    return found


CHUNKS = _chunks()


def test_examples_exist() -> None:
    assert len(CHUNKS) >= 8


@pytest.mark.parametrize("form", ["agx3b", "agx3c"])
@pytest.mark.parametrize(("name", "text"), CHUNKS, ids=[name for name, _ in CHUNKS])
def test_lowered_example_matches_dot_scaled(name: str, text: str, form: str) -> None:
    source = compile_ir(text, "")
    funcs = [op for op in source.walk() if isinstance(op, FuncOp)]
    if name.startswith("invalid.mlir") or " error: " in text:  # a refusal the chunk's CHECK lines expect
        expected = re.findall(r"// CHECK:.*? error: (.+)", text)
        assert expected, f"{name}: a refusing chunk with no CHECK line naming its error"
        with pytest.raises(QdotError) as raised:
            compile_ir(text, FULL_PIPELINE % form)
        assert expected[0].strip() in str(raised.value), f"{name}: refused for another reason: {raised.value}"
        return
    module = compile_ir(text, FULL_PIPELINE % form)
    assert len(funcs) == 1
    arrays, reference = dot_inputs(funcs[0], seed=11)
    result = emulate(module, form, arrays)
    expected = numerics.dot_scaled(**reference)
    if any(reference[side] in BLOCK_VALUES for side in ("lhs", "rhs")):  # dequantized to fp16: rounded values
        assert np.max(np.abs(result - expected)) <= 4e-3 * np.abs(expected).max()
    else:
        assert np.array_equal(result, expected.astype(np.float32))
