"""Which comments ``qdot-opt --verify-diagnostics`` reads as ``expected-*`` annotations, and what it
says of one that does not parse (the tool's output: tests/lit/tools/qdot-opt-expected-unmet.mlir)."""

from __future__ import annotations

from compiler.cli.common import annotation_errors, check_expected, split_chunks


def _problems(text: str) -> list[str]:
    return annotation_errors(split_chunks(text, False)[0], "k.mlir")


def test_prose_that_mentions_an_annotation_is_not_one() -> None:
    chunk = split_chunks("// MLIR-style expected-error annotations are checked\n"
                         "// CHECK: qdot-opt-expected-error.mlir:10:3: error: unexpected diagnostic\n", False)[0]
    assert (chunk.expected, chunk.malformed) == ([], [])


def test_an_annotation_after_other_words_of_a_comment_counts() -> None:
    chunk = split_chunks("func.return // the rest: expected-error {{Expected}}\n", False)[0]
    assert [(e.line, e.message, e.where) for e in chunk.expected] == [(1, "Expected", (1, 26))]


def test_each_annotation_that_does_not_parse_is_named_where_it_is() -> None:
    text = ("  // expected-error {{unclosed\n"
            "  // expected-eror {{misspelt}}\n"
            "  // expected-remark {{a kind qdot-opt does not check}}\n"
            "  // expected-error @above2 {{bad designator}}\n"
            "  // expected-error\n")
    assert _problems(text) == [
        "k.mlir:1:6: error: malformed expected-error annotation: no closing '}}' on its line",
        "k.mlir:2:6: error: unknown annotation 'expected-eror'; did you mean 'expected-error'?",
        "k.mlir:3:6: error: qdot-opt checks 'expected-error' annotations only, not 'expected-remark'",
        "k.mlir:4:6: error: malformed expected-error annotation: bad line designator '@above2' "
        "(expected @+N, @-N, @above or @below)",
        "k.mlir:5:6: error: malformed expected-error annotation: expected '{{' and the message",
    ]


def test_unmet_expectations_are_reported_at_the_annotation_in_file_order() -> None:
    chunk = split_chunks("// expected-error @+2 {{first}}\n"
                         "%x = arith.addi %y, %y : i32 // expected-error {{undefined}}\n"
                         "func.return // expected-error {{third}}\n", False)[0]
    assert check_expected(chunk, "k.mlir:2:17: error: use of undefined value '%y'", "k.mlir")
    assert annotation_errors(chunk, "k.mlir") == [
        'k.mlir:1:4: error: expected error "first" was not produced',
        'k.mlir:3:16: error: expected error "third" was not produced',
    ]


def test_locations_count_the_lines_of_the_chunks_before() -> None:
    chunks = split_chunks("func.func @a() {\n  func.return\n}\n// -----\n  // expected-eror {{x}}\n", True)
    assert annotation_errors(chunks[1], "k.mlir") == [
        "k.mlir:5:6: error: unknown annotation 'expected-eror'; did you mean 'expected-error'?"]
