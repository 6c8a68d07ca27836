"""Encoder and decoder of the 8x8 MMA: round trips, bits the seed states, every refusal."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from targets import agx
from targets.agx import (
    CWithCZeroError,
    ElemType,
    Fp16AccumulatorError,
    HintConflictError,
    MissingCError,
    MixedInputTypesError,
    Mma8,
    MultiplyWithCError,
    OddRegisterError,
    RegisterRangeError,
    UnsupportedTypeError,
    WaitSlotError,
    decode_mma8,
    encode_mma8,
    normalize,
)
from targets.agx.mma8 import assumptions_of, decode_stream

HINT_BITS = (32, 47, 48, 62, 71, 72, 73)
PAD = bytes.fromhex("cafebabe")


def _bit(data: bytes, position: int) -> int:
    return data[position // 8] >> (position % 8) & 1


@st.composite
def descriptors(draw: st.DrawFn, form: str) -> Mma8:
    slots = 6 if form == "agx3b" else 8
    a_type = draw(st.sampled_from([None, ElemType.FP16, ElemType.FP32]))
    if form == "agx3c":
        b_type = draw(st.sampled_from([None, a_type or ElemType.FP16]))
    else:
        b_type = draw(st.sampled_from([None, ElemType.FP16, ElemType.FP32]))
    accumulate = draw(st.booleans())
    pair = st.integers(0, 47).map(lambda p: 2 * p)
    hint = st.sampled_from([None, "cache", "discard"])
    return Mma8(
        d=draw(pair), a=draw(pair), b=draw(pair), c=draw(pair) if accumulate else None,
        a_type=a_type, b_type=b_type, accumulate=accumulate,
        hints={"a": draw(hint), "b": draw(hint), "c": draw(hint) if accumulate else None},
        d_cache=draw(st.booleans()),
        wait=tuple(draw(st.sets(st.integers(0, slots - 1)))),
    )


@pytest.mark.parametrize("form", ["agx3b", "agx3c"])
def test_design_example(form: str) -> None:
    desc = Mma8(d=0, a=2, b=4, c=6, a_type="fp32", b_type=None, accumulate=True, c_zero=False,
                hints={"a": "cache", "b": "discard", "c": None}, d_cache=False, wait=(0, 1))
    data = encode_mma8(desc, form)
    assert len(data) == {"agx3b": 12, "agx3c": 14}[form]
    back = decode_mma8(data + PAD, form)
    assert back == desc  # b_type=None is A's type (fp32): the same instruction, so equal
    assert (back.a, back.b_type, back.hints.a, back.wait) == (2, ElemType.FP32, {"cache"}, (0, 1))


@st.composite
def accepted_descriptors(draw: st.DrawFn, form: str) -> Mma8:
    """Any descriptor the encoder accepts, spelled any way it may be spelled: types left to their
    defaults or named, the multiply form as ``accumulate=False`` or as ``c_zero=True``."""
    slots = 6 if form == "agx3b" else 8
    a_type = draw(st.sampled_from([None, "fp16", "fp32", ElemType.FP16, ElemType.FP32]))
    same_as_a = [None, str(a_type or "fp16")]
    b_type = draw(st.sampled_from(same_as_a if form == "agx3c" else same_as_a + ["fp16", "fp32"]))
    mode = draw(st.sampled_from(["accumulate", "multiply", "c_zero"]))
    pair = st.integers(0, 47).map(lambda p: 2 * p)
    hint = st.sampled_from([None, "cache", "discard", ("cache",), ()])
    reads_c = mode == "accumulate"
    return Mma8(
        d=draw(pair), a=draw(pair), b=draw(pair), c=draw(pair) if reads_c else None,
        a_type=a_type, b_type=b_type, accumulate=mode != "multiply", c_zero=mode == "c_zero",
        hints={"a": draw(hint), "b": draw(hint), "c": draw(hint) if reads_c else None},
        d_cache=draw(st.booleans()),
        wait=draw(st.lists(st.integers(0, slots - 1), max_size=slots + 2)),
    )


@pytest.mark.parametrize("form", ["agx3b", "agx3c"])
@settings(max_examples=1500, deadline=None)
@given(data=st.data())
def test_decode_of_encode_is_the_identity(form: str, data: st.DataObject) -> None:
    """encode then decode gives back the very descriptor (==, not just equal bytes), and two
    descriptors are equal exactly when their bytes are."""
    desc, other = data.draw(accepted_descriptors(form)), data.draw(accepted_descriptors(form))
    encoded = encode_mma8(desc, form)
    assert decode_mma8(encoded + PAD, form) == desc
    assert normalize(desc) == desc
    assert (desc == other) == (encoded == encode_mma8(other, form))


def test_spellings_of_one_instruction_compare_equal() -> None:
    assert Mma8(d=0, a=2, b=4, c=6, a_type="fp32") == Mma8(d=0, a=2, b=4, c=6, a_type="fp32", b_type="fp32")
    assert Mma8(d=0, a=2, b=4, c=6) == Mma8(d=0, a=2, b=4, c=6, a_type="fp16", b_type="fp16")
    assert Mma8(d=0, a=2, b=4, c_zero=True) == Mma8(d=0, a=2, b=4, accumulate=False)
    assert Mma8(d=0, a=2, b=4, c=6, c_zero=True).c_zero  # refused as given, not respelled


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_round_trip_both_forms(data: st.DataObject) -> None:
    for form in ("agx3b", "agx3c"):
        desc = data.draw(descriptors(form))
        encoded = encode_mma8(desc, form)
        assert decode_mma8(encoded + PAD, form) == normalize(desc)
        assert decode_mma8(encoded, form) == normalize(desc)


@settings(max_examples=300, deadline=None)
@given(desc=descriptors("agx3b"))
def test_wait_bits_12_to_17_are_set_exactly_for_requested_waits(desc: Mma8) -> None:
    data = encode_mma8(desc, "agx3b")
    set_bits = {p for p in range(12, 18) if _bit(data, p)}
    assert len(set_bits) == len(desc.wait)
    assert (not set_bits) == (not desc.wait)
    assert set_bits == {12 + s for s in desc.wait}  # under A3; the two asserts above need no order


@settings(max_examples=300, deadline=None)
@given(desc=descriptors("agx3b"))
def test_bit_88_is_accumulate(desc: Mma8) -> None:
    assert _bit(encode_mma8(desc, "agx3b"), 88) == int(desc.reads_c)


@settings(max_examples=300, deadline=None)
@given(desc=descriptors("agx3b"))
def test_hint_bits_are_the_stated_set(desc: Mma8) -> None:
    data = encode_mma8(desc, "agx3b")
    requested = len(desc.hints.a) + len(desc.hints.b) + len(desc.hints.c) + int(desc.d_cache)
    assert sum(_bit(data, p) for p in HINT_BITS) == requested
    stripped = encode_mma8(Mma8(d=desc.d, a=desc.a, b=desc.b, c=desc.c, a_type=desc.a_type, b_type=desc.b_type,
                                accumulate=desc.accumulate, wait=desc.wait), "agx3b")
    assert all(_bit(stripped, p) == 0 for p in HINT_BITS)
    changed = int.from_bytes(data, "little") ^ int.from_bytes(stripped, "little")
    assert {p for p in range(96) if changed >> p & 1} <= set(HINT_BITS)


def test_hint_free_encoding_clears_all_seven_hint_bits() -> None:
    for a_type in ("fp16", "fp32"):
        data = encode_mma8(Mma8(d=8, a=0, b=2, c=8, a_type=a_type, wait=(0, 3)), "agx3b")
        assert [_bit(data, p) for p in HINT_BITS] == [0] * 7


def test_a_type_defaults_to_fp16_before_comparing_b_on_agx3c() -> None:
    """The seed's later fix: B named fp16 with A left unset is not a mix."""
    left_unset = encode_mma8(Mma8(d=8, a=0, b=2, c=8), "agx3c")
    named = encode_mma8(Mma8(d=8, a=0, b=2, c=8, b_type="fp16"), "agx3c")
    both = encode_mma8(Mma8(d=8, a=0, b=2, c=8, a_type="fp16", b_type="fp16"), "agx3c")
    assert left_unset == named == both
    with pytest.raises(MixedInputTypesError, match="A is fp16 and B is fp32"):
        encode_mma8(Mma8(d=8, a=0, b=2, c=8, b_type="fp32"), "agx3c")


def test_b_type_defaults_to_a_type() -> None:
    assert normalize(Mma8(d=8, a=0, b=2, c=8, a_type="fp32")).b_type is ElemType.FP32
    assert encode_mma8(Mma8(d=8, a=0, b=2, c=8, a_type="fp32"), "agx3b") == \
        encode_mma8(Mma8(d=8, a=0, b=2, c=8, a_type="fp32", b_type="fp32"), "agx3b")


def test_mixed_types_encode_on_agx3b() -> None:
    desc = Mma8(d=8, a=0, b=2, c=8, a_type="fp16", b_type="fp32")
    assert decode_mma8(encode_mma8(desc, "agx3b"), "agx3b").b_type is ElemType.FP32


def test_c_zero_encodes_as_the_multiply_form() -> None:
    c_zero = encode_mma8(Mma8(d=8, a=0, b=2, c_zero=True), "agx3b")
    multiply = encode_mma8(Mma8(d=8, a=0, b=2, accumulate=False), "agx3b")
    assert c_zero == multiply
    assert decode_mma8(c_zero, "agx3b").accumulate is False
    assert _bit(c_zero, 88) == 0


REFUSALS = [
    ("seventh wait slot on agx3b", "agx3b", dict(wait=(6,)), WaitSlotError, "wait slot 6 does not exist on agx3b"),
    ("ninth wait slot on agx3c", "agx3c", dict(wait=(8,)), WaitSlotError, "agx3c, which has 8 slots"),
    ("bf16 A", "agx3b", dict(a_type="bf16"), UnsupportedTypeError, "A is bf16"),
    ("bf16 B", "agx3b", dict(b_type="bf16"), UnsupportedTypeError, "B is bf16"),
    ("bf16 C/D", "agx3b", dict(cd_type="bf16"), UnsupportedTypeError, "C/D is bf16"),
    ("D past r95", "agx3b", dict(d=96), RegisterRangeError, "D register r96_r97 (fp32) is past r95"),
    ("fp32 A pair ending past r95", "agx3b", dict(a=96, a_type="fp32"), RegisterRangeError, "A register r96_r97"),
    ("C past r95", "agx3b", dict(c=98), RegisterRangeError, "C register r98_r99"),
    ("odd D", "agx3b", dict(d=3), OddRegisterError, "D register r3 is odd"),
    ("odd fp16 B", "agx3b", dict(b=5), OddRegisterError, "B register r5 is odd"),
    ("negative register", "agx3b", dict(a=-2), RegisterRangeError, "below r0"),
    ("C together with c_zero", "agx3b", dict(c_zero=True), CWithCZeroError, "C register r8 given together with c_zero"),
    ("agx3c mixed types", "agx3c", dict(a_type="fp32", b_type="fp16"), MixedInputTypesError, "agx3c takes one input type"),
    ("cache and discard on A", "agx3b", dict(hints={"a": ("cache", "discard")}), HintConflictError, "A has both"),
    ("fp16 accumulator", "agx3b", dict(cd_type="fp16"), Fp16AccumulatorError, "fp16-accumulator form"),
    ("accumulate without C", "agx3b", dict(c=None), MissingCError, "needs a C register"),
    ("multiply with C", "agx3b", dict(accumulate=False), MultiplyWithCError, "reads no C, but C is r8"),
    ("C hint on multiply", "agx3b", dict(c=None, accumulate=False, hints={"c": "cache"}), MultiplyWithCError,
     "C hint cache given"),
]


@pytest.mark.parametrize(("form", "changes", "error", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refusals(form: str, changes: dict, error: type[agx.EncodingError], message: str) -> None:
    fields = dict(d=0, a=2, b=4, c=8) | changes
    with pytest.raises(error, match=re.escape(message)) as raised:
        encode_mma8(Mma8(**fields), form)
    assert isinstance(raised.value, agx.EncodingError)


def test_each_refusal_is_its_own_class() -> None:
    classes = [r[3] for r in REFUSALS]
    seed_refusals = {WaitSlotError, UnsupportedTypeError, RegisterRangeError, OddRegisterError, CWithCZeroError,
                     MixedInputTypesError}
    assert seed_refusals <= set(classes)
    assert len({c for c in classes}) == len(set(classes))
    assert all(issubclass(c, agx.EncodingError) and c is not agx.EncodingError for c in classes)


def test_unknown_type_and_hint_names_are_refused() -> None:
    with pytest.raises(UnsupportedTypeError, match="type 'int8' is not an MMA operand type"):
        Mma8(d=0, a=2, b=4, c=6, a_type="int8")
    with pytest.raises(agx.EncodingError, match="hint 'keep' on A"):
        Mma8(d=0, a=2, b=4, c=6, hints={"a": "keep"})
    with pytest.raises(agx.EncodingError, match="unknown operand"):
        Mma8(d=0, a=2, b=4, c=6, hints={"d": "cache"})


def test_decoder_reads_no_byte_past_the_instruction() -> None:
    data = encode_mma8(Mma8(d=8, a=0, b=2, c=8, wait=(1,)), "agx3b")
    assert decode_mma8(data + PAD, "agx3b") == decode_mma8(data + b"\xff" * 4, "agx3b") == decode_mma8(data, "agx3b")
    with pytest.raises(agx.TruncatedError, match="12 bytes, got 11"):
        decode_mma8(data[:11], "agx3b")


def test_decoder_refuses_every_unexplained_bit() -> None:
    base = int.from_bytes(encode_mma8(Mma8(d=8, a=0, b=2, c=8), "agx3b"), "little")
    explained = agx.AGX3B.explained_mask
    for position in range(96):
        if explained >> position & 1:
            continue
        with pytest.raises(agx.UnexplainedBitsError, match=f"bit\\(s\\) {position} set"):
            decode_mma8((base | 1 << position).to_bytes(12, "little"), "agx3b")


def test_decoder_names_the_unmapped_fp16_accumulator_form() -> None:
    with pytest.raises(agx.UnmappedFormError, match="fp16-accumulator form"):
        decode_mma8(bytes.fromhex("cf0056") + bytes(9), "agx3b")


def test_decode_stream() -> None:
    descs = [Mma8(d=8, a=0, b=2, c=8, wait=(0,)), Mma8(d=10, a=0, b=4, accumulate=False)]
    stream = b"".join(encode_mma8(d, "agx3c") for d in descs)
    assert decode_stream(stream, "agx3c") == [normalize(d) for d in descs]
    with pytest.raises(agx.TruncatedError, match="multiple of 14"):
        decode_stream(stream[:-1], "agx3c")


def test_assumption_labels() -> None:
    plain = Mma8(d=0, a=0, b=0, c=0)
    assert assumptions_of(plain, "agx3b") == ("A1", "A6", "A10")
    assert "A3" in assumptions_of(Mma8(d=0, a=0, b=0, c=0, wait=(2,)), "agx3b")
    assert "A3" not in assumptions_of(Mma8(d=0, a=0, b=0, c=0, wait=tuple(range(6))), "agx3b")
    assert "A5" in assumptions_of(Mma8(d=0, a=0, b=0, accumulate=False), "agx3b")
    assert "A9" in assumptions_of(plain, "agx3c")


@pytest.mark.parametrize(("changes", "message"), [
    ({"d": "r0"}, "d must be a register number (int), got 'r0'"),
    ({"a": None}, "a must be a register number (int), got None"),
    ({"c": 2.0}, "c must be a register number (int) or None, got 2.0"),
    ({"b": True}, "b must be a register number (int), got True"),
    ({"accumulate": None}, "accumulate must be True or False, got None"),
    ({"wait": None}, "wait must be an iterable of scoreboard slot numbers (ints), got None"),
    ({"wait": "01"}, "wait must be an iterable of scoreboard slot numbers (ints), got '01'"),
    ({"wait": (1.5,)}, "wait must be an iterable of scoreboard slot numbers (ints), got (1.5,)"),
])
def test_malformed_fields_are_type_errors(changes: dict, message: str) -> None:
    fields = {"d": 0, "a": 2, "b": 4, "c": 6, **changes}
    with pytest.raises(TypeError, match=re.escape(message)):
        Mma8(**fields)


def test_a_hint_that_is_no_name_is_refused() -> None:
    with pytest.raises(agx.EncodingError, match="hint 3 on A is not a hint"):
        Mma8(d=0, a=2, b=4, c=6, hints={"a": 3})


def test_hints_given_as_a_hints_object_are_sets_whatever_their_spelling() -> None:
    """A ``Hints`` built from names or tuples is coerced as the mapping spelling is: the A7 conflict is refused,
    and spellings of one instruction compare equal (both were missed before: bits 47 and 48 were both written)."""
    from targets.agx.mma8 import Hints

    with pytest.raises(HintConflictError, match="A has both cache and discard"):
        encode_mma8(Mma8(d=0, a=2, b=4, c=6, a_type="fp32", hints=Hints(a=("cache", "discard"))), "agx3b")
    spelled = Mma8(d=0, a=2, b=4, c=6, hints=Hints(c="discard"))
    assert spelled == Mma8(d=0, a=2, b=4, c=6, hints={"c": "discard"})
    assert decode_mma8(encode_mma8(spelled, "agx3b"), "agx3b") == spelled
    with pytest.raises(agx.EncodingError, match="hint 'keep' on B"):
        Hints(b="keep")


def test_hints_that_are_no_mapping_are_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"hints must be a mapping .* got \['a'\]"):
        Mma8(d=0, a=2, b=4, c=6, hints=["a"])


def test_cd_type_none_means_fp32() -> None:
    assert Mma8(d=0, a=2, b=4, c=6, cd_type=None) == Mma8(d=0, a=2, b=4, c=6)


@pytest.mark.parametrize(("changes", "error"), [
    ({"a_type": "bf16"}, UnsupportedTypeError),
    ({"d": 200}, RegisterRangeError),
    ({"wait": (9,)}, WaitSlotError),
])
def test_assumptions_of_a_refused_descriptor_is_its_refusal(changes: dict, error: type) -> None:
    """A refused descriptor has no bytes: ``assumptions_of`` gives the encoder's refusal, not a KeyError, a
    table error or an answer that silently drops the slot."""
    with pytest.raises(error):
        assumptions_of(Mma8(**{"d": 0, "a": 2, "b": 4, "c": 6, **changes}), "agx3b")


def test_the_entry_points_refuse_a_wrong_argument_type_by_name() -> None:
    """What tests/api/agx_calls.py's fuzz found: an attribute lookup or len() deep inside gave Python's own words."""
    from targets.agx import format_mma8, parse_mma8

    for call, message in [(lambda: encode_mma8("r0", "agx3b"), "encode_mma8 takes an Mma8 descriptor, got str"),
                          (lambda: assumptions_of(None, "agx3b"), "assumptions_of takes an Mma8 descriptor, got NoneType"),
                          (lambda: format_mma8(3), "format_mma8 takes an Mma8 descriptor, got int"),
                          (lambda: normalize([]), "normalize takes an Mma8 descriptor, got list"),
                          (lambda: decode_mma8(None, "agx3b"), "decode_mma8 takes the instruction bytes"),
                          (lambda: decode_stream("6f00", "agx3b"), "decode_stream takes the instruction bytes"),
                          (lambda: parse_mma8(None), r"parse_mma8 takes a line of assembly text \(str\)")]:
        with pytest.raises(TypeError, match=message):
            call()
    data = encode_mma8(Mma8(d=8, a=0, b=2, c=8), "agx3b")
    assert decode_mma8(bytearray(data), "agx3b") == decode_mma8(memoryview(data), "agx3b") == decode_mma8(data, "agx3b")
