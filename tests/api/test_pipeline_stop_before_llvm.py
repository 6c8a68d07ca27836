"""A pipeline given in place of the default one (``compiler.compile(pipeline=...)``, qdot-translate's and
qdot-bench's ``--pipeline``) that stops before the LLVM-ready level is refused in the pipeline's terms, at the
first op it leaves: it used to reach the LLVM IR emitter, which blamed the input's types
(``type !qdot.ptr<f8E4M3FN> has no LLVM IR equivalent here``). The same module through a pipeline that does
reach the level, and IR already at it through ``pipeline=""``, still compile."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

import pytest

import compiler
from compiler.cli import translate
from compiler.diagnostics import QdotError
from compiler.pipelines import PtxOptions, ptx_pipeline

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mx_gemm_e4m3_e2m1.mlir"
DEFAULT = ptx_pipeline(PtxOptions())


@pytest.mark.parametrize("pipeline", ["", "qdot-accelerate-matmul{arch=sm_89}", DEFAULT.rsplit(",", 1)[0]])
def test_a_pipeline_cut_short_is_named_at_the_op_it_leaves(pipeline: str) -> None:
    with pytest.raises(QdotError) as raised:
        compiler.compile(EXAMPLE, target="llvm", pipeline=pipeline)
    message = str(raised.value)
    assert message.startswith(f"{EXAMPLE}:27:3: error: 'qdot.program_id' op the pipeline '{pipeline}' leaves this op")
    assert "needs the module lowered to the LLVM-ready level" in message
    assert "qdot-to-llvm; qdot-translate --print-pipeline lists the default)" in message
    assert "no LLVM IR equivalent" not in message


def test_the_passes_left_out_are_named_in_the_default_order() -> None:
    with pytest.raises(QdotError, match=r"this one leaves out qdot-lower-quantize, qdot-optimize-dot-operands, "
                                        r"qdot-pipeline, qdot-lower-local-load, qdot-lower-mma, qdot-to-llvm;"):
        compiler.compile(EXAMPLE, pipeline="qdot-accelerate-matmul")


def test_qdot_translate_reports_it_as_a_located_error_with_status_1() -> None:
    err = io.StringIO()
    with redirect_stderr(err):
        status = translate.run([str(EXAMPLE), "--pipeline", "", "--target", "ptx", "-o", "/dev/null"])
    assert status == 1
    assert err.getvalue().startswith(f"{EXAMPLE}:27:3: error: 'qdot.program_id' op the pipeline '' leaves this op "
                                     "and 11 more of the qdot dialect (qdot.make_desc, qdot.load, qdot.dot_scaled, "
                                     "qdot.store); emitting PTX needs")


def test_a_pipeline_that_reaches_the_level_still_compiles() -> None:
    custom = compiler.compile(EXAMPLE, target="llvm", pipeline=DEFAULT)
    assert custom.llvm_ir == compiler.compile(EXAMPLE, target="llvm").llvm_ir


def test_ir_at_the_level_and_an_empty_module_need_no_pass() -> None:
    lowered = compiler.compile(EXAMPLE, target="llvm").lowered
    assert "define ptx_kernel void @mx_gemm_e4m3_e2m1(" in compiler.compile(str(lowered), target="llvm",
                                                                            pipeline="").llvm_ir
    assert "target triple" in compiler.compile("// nothing\n", target="llvm", pipeline="").llvm_ir
