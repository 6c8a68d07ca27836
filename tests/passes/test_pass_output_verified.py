"""IR a pass produces that does not verify is reported as that pass's bug, not as a refusal.

The input verifies before the pipeline runs, so a verifier failure afterwards can only come
from a pass; the diagnostic says which, and `PassOutputError` lets a fuzz count it as a bug
(a wrongly typed dmin scale was once lowered into wrong code, unseen, because nothing ran the
verifier between the pass that built it and the lowering)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32, i64
from xdsl.passes import ModulePass

from compiler import registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from compiler.diagnostics import PassOutputError

SOURCE = """func.func @f() -> i32 {
  %c = arith.constant 1 : i32
  func.return %c : i32
}
"""


@dataclass(frozen=True)
class RetypeConstant(ModulePass):
    """A broken pass: gives the constant an i64 value under an i32 result."""

    name = "test-retype-constant"

    def apply(self, ctx, op: ModuleOp) -> None:  # noqa: ANN001
        for const in op.walk():
            if isinstance(const, arith.ConstantOp):
                const.properties["value"] = IntegerAttr(1, i64)
                assert const.result.type == i32


@pytest.mark.parametrize("verify_each", [True, False])
def test_invalid_pass_output_names_the_pass(verify_each: bool) -> None:
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(SOURCE, False)[0], "f.mlir")
    pipeline = build_pipeline({RetypeConstant.name: lambda: RetypeConstant}, RetypeConstant.name,
                              verify_each=verify_each)
    with pytest.raises(PassOutputError) as info:
        pipeline.apply(ctx, module)
    assert info.value.pass_name == "test-retype-constant"
    assert info.value.render().startswith("f.mlir:2:3: error: 'arith.constant' op attribute i32 expected")
    assert "[in the IR test-retype-constant produced: a compiler bug, not a problem of the input]" in \
        info.value.render()
