"""Pass pipeline text as the user typed it: a quoted number or boolean is that value (MLIR's reading of
``num-stages="2"``), and a syntax error is placed in the text given, not in the normalized text xDSL
parses (without the ``builtin.module(...)`` anchor and the spaces around commas)."""

from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler.cli.pipeline_spec import PipelineError, normalized, normalized_with_origins

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "int8_gemm.mlir"


@pytest.mark.parametrize(("given", "read"), [
    ('qdot-pipeline{num-stages="2"}', "qdot-pipeline{num-stages=2}"),
    ('builtin.module(qdot-lower-local-load{ldmatrix="false" arch="sm_90"} , cse)',
     'qdot-lower-local-load{ldmatrix=false arch="sm_90"},cse'),
    ('x{a="-1" b="1.5" c="two words" d="2x"}', 'x{a=-1 b=1.5 c="two words" d="2x"}'),
])
def test_quotes_come_off_numbers_and_booleans_only(given: str, read: str) -> None:
    assert normalized(given) == read


def test_every_character_read_maps_to_the_one_typed() -> None:
    given = ' builtin.module( cse ,  qdot-pipeline{num-stages="2"} ) '
    text, origins = normalized_with_origins(given)
    assert all(given[origin] == char for char, origin in zip(text, origins, strict=False))
    assert len(origins) == len(text) + 1


def test_a_stray_parenthesis_is_placed_where_it_was_typed() -> None:
    with pytest.raises(PipelineError, match=r"unexpected '\)' at column 31 of the pipeline") as raised:
        normalized("builtin.module(qdot-lower-mma))")
    assert str(raised.value).endswith("\n  builtin.module(qdot-lower-mma))\n" + " " * 32 + "^")


def test_a_syntax_error_names_the_column_in_the_text_given() -> None:
    with pytest.raises(ValueError, match=r"pass-pipeline:1:20\nbuiltin\.module\(cse,, dce\)\n {19}\^"):
        compiler.compile(EXAMPLE, target="llvm", pipeline="builtin.module(cse,, dce)")


def test_compile_takes_a_quoted_stage_count() -> None:
    quoted = compiler.compile(EXAMPLE, target="llvm", pipeline=compiler.compile(EXAMPLE, target="llvm").pipeline
                              .replace("num-stages=3", 'num-stages="2"'))
    assert quoted.llvm_ir == compiler.compile(EXAMPLE, target="llvm", num_stages=2).llvm_ir
