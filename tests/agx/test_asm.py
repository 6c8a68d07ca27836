"""Canonical assembly text of an 8x8 MMA: printing, parsing, and malformed text."""

from __future__ import annotations

import pytest

from targets.agx import AsmSyntaxError, Mma8, format_mma8, normalize, parse_mma8


@pytest.mark.parametrize("text", [
    "mma8.f32.f32.f32 r0_r1, r2_r3, r4_r5, r6_r7",
    "mma8.f32.f16.f32 r8_r9.cache, r0l_r0h.discard, r2_r3.cache, r8_r9.discard wait(0,5)",
    "mma8.f32.f16.f16 r8_r9, r0l_r0h, r2l_r2h, zero wait(1)",
])
def test_canonical_text_round_trips(text: str) -> None:
    assert format_mma8(parse_mma8(text)) == text


def test_descriptor_prints_normalized() -> None:
    desc = Mma8(d=8, a=0, b=2, c_zero=True, hints={"a": "discard"}, d_cache=True, wait=(3, 1))
    text = format_mma8(desc)
    assert text == "mma8.f32.f16.f16 r8_r9.cache, r0l_r0h.discard, r2l_r2h, zero wait(1,3)"
    assert parse_mma8(text) == normalize(desc)


def test_non_canonical_spellings_keep_what_the_refusals_need() -> None:
    desc = parse_mma8("mma8.f32.f16.f16 r4_r5, r0l_r0h, r2l_r2h, r6_r7 c_zero")
    assert (desc.c, desc.c_zero) == (6, True)
    desc = parse_mma8("mma8.f32.f16.f16 r4_r5, r0l_r0h, r2l_r2h, r6_r7 multiply")
    assert (desc.c, desc.accumulate) == (6, False)
    assert format_mma8(desc, canonical=False).endswith(" multiply")


def test_a_c_hint_on_the_multiply_form_is_printed_on_zero() -> None:
    """The multiply form reads no C, so a C hint is refused (``MultiplyWithCError``); the text keeps it, on
    ``zero``, so that the descriptor round-trips and the refusal can be written as a vector line."""
    desc = Mma8(d=0, a=2, b=4, accumulate=False, hints={"c": "cache"})
    text = format_mma8(desc)
    assert text == "mma8.f32.f16.f16 r0_r1, r2l_r2h, r4l_r4h, zero.cache"
    assert parse_mma8(text) == normalize(desc)


@pytest.mark.parametrize(("text", "message"), [
    ("mma9.f32.f16.f16 r0_r1, r0l_r0h, r2l_r2h, r0_r1", "is not a mnemonic"),
    ("mma8.f32.f8.f16 r0_r1, r0l_r0h, r2l_r2h, r0_r1", "unknown type 'f8'"),
    ("mma8.f32.f16.f16 r0_r2, r0l_r0h, r2l_r2h, r0_r1", "not an fp32 register pair"),
    ("mma8.f32.f16.f16 r0_r1, r0_r1, r2l_r2h, r0_r1", "not a 16-bit register pair"),
    ("mma8.f32.f16.f16 r0_r1, r0l_r1h, r2l_r2h, r0_r1", "not a 16-bit register pair"),
    ("mma8.f32.f16.f16 r0_r1.discard, r0l_r0h, r2l_r2h, r0_r1", "D takes only the .cache hint"),
    ("mma8.f32.f16.f16 r0_r1, r0l_r0h.keep, r2l_r2h, r0_r1", "unknown hint '.keep'"),
    ("mma8.f32.f16.f16 r0_r1, r0l_r0h", "expected 3 or 4 operands"),
    ("mma8.f32.f32.f32 r0_r1, r2_r3, r4_r5, r6_r7 wait(0) wait(1)", r"more than one wait\(\.\.\.\)"),
    ("mma8.f32.f16.f16 r0_r1, r0l_r0h, r2l_r2h, zero.keep", "C: unknown hint '.keep'"),
])
def test_malformed_text(text: str, message: str) -> None:
    with pytest.raises(AsmSyntaxError, match=message):
        parse_mma8(text)


def test_a_c_hint_without_a_c_register_has_no_text() -> None:
    """The accumulate form without C is refused (``MissingCError``); with a C hint it has no operand to print the hint
    on, so the printer refuses it rather than print a text that parses to another descriptor."""
    with pytest.raises(AsmSyntaxError, match="C hint cache on the accumulate form without a C register"):
        format_mma8(Mma8(d=0, a=2, b=4, hints={"c": "cache"}))
    assert format_mma8(Mma8(d=0, a=2, b=4)) == "mma8.f32.f16.f16 r0_r1, r2l_r2h, r4l_r4h"
