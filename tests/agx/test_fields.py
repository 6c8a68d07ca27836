"""The AGX3B / AGX3C field tables: what the seed states is in them as stated, and they are consistent."""

from __future__ import annotations

import pytest

from targets.agx.assumptions import ASSUMPTIONS, assumption
from targets.agx.fields import Bits, Field, FieldKey, Fixed, Form, Provenance, TableError, bit, span
from targets.agx.doctable import field_table
from targets.agx.forms import AGX3B, AGX3C, FORMS, form_named

SEED_IDS = {
    FieldKey.D_REG: 2, FieldKey.A_REG: 18, FieldKey.B_REG: 35, FieldKey.C_REG: 52,
    FieldKey.A_TYPE: 26, FieldKey.B_TYPE: 43, FieldKey.CD_TYPE: 60,
    FieldKey.A_CACHE: 27, FieldKey.A_DISCARD: 29, FieldKey.B_CACHE: 44, FieldKey.B_DISCARD: 46,
    FieldKey.C_CACHE: 61, FieldKey.C_DISCARD: 63, FieldKey.D_CACHE: 11, FieldKey.MODE: 59,
}
HINT_BITS = {32, 47, 48, 62, 71, 72, 73}


def _bits_of(form: Form, group: str) -> set[int]:
    return {p for f in form.fields if f.group == group for p in f.bits.positions()}


def test_lengths_and_slots_are_the_seeds() -> None:
    assert (AGX3B.length, AGX3B.wait_slots, AGX3B.separate_b_type) == (12, 6, True)
    assert (AGX3C.length, AGX3C.wait_slots, AGX3C.separate_b_type) == (14, 8, False)


@pytest.mark.parametrize("form", FORMS.values(), ids=list(FORMS))
def test_every_field_carries_the_seeds_anonymous_id(form: Form) -> None:
    for key, seed_id in SEED_IDS.items():
        if key == FieldKey.B_TYPE and not form.separate_b_type:
            assert not form.has_field(key)
            continue
        assert form.field(key).seed_id == seed_id
        assert not form.field(key).seed_id_inferred
    waits = [form.field(FieldKey.wait(s)) for s in range(form.wait_slots)]
    assert [(w.seed_id, w.seed_id_inferred) for w in waits[:6]] == [(69 + s, False) for s in range(6)]


def test_agx3c_wait_ids_past_the_seeds_are_marked_inferred() -> None:
    """The seed gives wait ids 69..74 (six slots) and says AGX3C has eight; 75 and 76 continue its
    numbering, an inference, so the table and the docs must not present them as the seed's."""
    assert [(AGX3C.field(FieldKey.wait(s)).seed_id, AGX3C.field(FieldKey.wait(s)).seed_id_inferred)
            for s in (6, 7)] == [(75, True), (76, True)]
    assert not any(entry.seed_id_inferred for entry in AGX3B.fields)
    rows = [row for row in field_table(AGX3C).splitlines() if "wait6" in row or "wait7" in row]
    assert [row.split(" | ")[0] for row in rows] == [f"| {i} (inferred, not in the seed)" for i in (75, 76)]


def test_agx3b_stated_bits_are_where_the_seed_puts_them() -> None:
    assert _bits_of(AGX3B, "wait") == set(range(12, 18))
    assert _bits_of(AGX3B, "hint") == HINT_BITS
    mode = AGX3B.field(FieldKey.MODE)
    assert 88 in set(mode.bits.positions()) and mode.stated_positions == {88}
    assert mode.bits.insert(0, 2) >> 88 & 1 == 1  # accumulate sets bit 88
    assert mode.bits.insert(0, 1) >> 88 & 1 == 0  # multiply clears it
    for entry in AGX3B.fields:
        if entry.group:
            assert entry.provenance is Provenance.STATED_SET


@pytest.mark.parametrize("form", FORMS.values(), ids=list(FORMS))
def test_a_stated_field_is_stated_in_every_bit(form: Form) -> None:
    """A reader of ``provenance`` alone must not take an assumed bit for a fact: a stated field's bits are
    exactly the bits the seed states, and a field with some stated bits is partly-stated (the mode field,
    whose bit 88 the seed states and whose bit 87 is A5)."""
    for entry in form.fields:
        positions = set(entry.bits.positions())
        if entry.provenance is Provenance.STATED:
            assert positions == entry.stated_positions, entry.key
        elif entry.provenance is Provenance.PARTLY_STATED:
            assert entry.stated_positions < positions and entry.assumptions, entry.key
        else:
            assert not entry.stated_positions, entry.key
    if form is AGX3B:
        mode = AGX3B.field(FieldKey.MODE)
        assert (mode.provenance, set(mode.bits.positions()), mode.stated_positions) == \
            (Provenance.PARTLY_STATED, {87, 88}, {88})
        assert AGX3B.stated_bit_count == 14
    else:
        assert form.stated_bit_count == 0


def test_a_stated_field_with_an_unstated_bit_is_refused() -> None:
    with pytest.raises(TableError, match="mode: stated, but the seed states bits \\[88\\] of 87..88"):
        Field("mode", 59, "2 = accumulate", span(87, 2), Provenance.STATED, ("A5",), stated_positions=frozenset({88}))
    with pytest.raises(TableError, match="partly-stated needs stated bits that are some, not all"):
        Field("mode", 59, "2 = accumulate", bit(88), Provenance.PARTLY_STATED, ("A5",),
              stated_positions=frozenset({88}))
    with pytest.raises(TableError, match="must cite an assumption"):
        Field("mode", 59, "2 = accumulate", span(87, 2), Provenance.PARTLY_STATED, stated_positions=frozenset({88}))
    assert Field("acc", 59, "accumulate", bit(88), Provenance.STATED, stated_positions=frozenset({88}))


def test_agx3c_states_nothing() -> None:
    assert all(entry.provenance is Provenance.ASSUMED for entry in AGX3C.fields)
    assert all("A9" in entry.assumptions for entry in AGX3C.fields)


@pytest.mark.parametrize("form", FORMS.values(), ids=list(FORMS))
def test_every_assumption_cited_exists(form: Form) -> None:
    ids = {entry.id for entry in ASSUMPTIONS}
    cited = set(form.opcode.assumptions) | {form.zero_assumption}
    for entry in form.fields:
        cited |= set(entry.assumptions)
        if entry.provenance is not Provenance.STATED:
            assert entry.assumptions, entry.key
    assert cited <= ids


def test_assumption_ids_are_numbered_in_order() -> None:
    assert [entry.id for entry in ASSUMPTIONS] == [f"A{i}" for i in range(1, len(ASSUMPTIONS) + 1)]
    assert assumption("A4").id == "A4"
    with pytest.raises(KeyError):
        assumption("A99")


@pytest.mark.parametrize("form", FORMS.values(), ids=list(FORMS))
def test_fields_opcode_and_unexplained_bits_cover_the_instruction_once(form: Form) -> None:
    seen: list[int] = list(form.opcode.bits.positions())
    for entry in form.fields:
        seen += list(entry.bits.positions())
    for first, last in form.unexplained_ranges():
        seen += list(range(first, last + 1))
    assert sorted(seen) == list(range(form.bit_count))


def test_registers_fit_r95_in_16_bit_units() -> None:
    for form in FORMS.values():
        for key in (FieldKey.D_REG, FieldKey.A_REG, FieldKey.B_REG, FieldKey.C_REG):
            assert (1 << form.field(key).bits.width) > 2 * 95


def test_overlapping_table_is_refused() -> None:
    fields = tuple(AGX3B.fields) + (Field("extra", 0, "collides with d_reg", span(20, 2), Provenance.ASSUMED, ("A2",)),)
    with pytest.raises(TableError, match="bit 20 claimed by d_reg and extra"):
        Form("broken", 12, 6, True, AGX3B.opcode, fields, "A10")


def test_field_past_the_end_is_refused() -> None:
    fields = tuple(AGX3B.fields) + (Field("extra", 0, "past the end", bit(96), Provenance.ASSUMED, ("A2",)),)
    with pytest.raises(TableError, match="past 95"):
        Form("broken", 12, 6, True, AGX3B.opcode, fields, "A10")


def test_unstated_field_without_assumption_is_refused() -> None:
    with pytest.raises(TableError, match="must cite an assumption"):
        Field("x", 0, "guess", bit(3), Provenance.ASSUMED)


def test_bits_insert_extract_split_ranges_low_part_first() -> None:
    bits = Bits(((4, 2), (10, 3)))
    word = bits.insert(0, 0b10111)
    assert word == (0b11 << 4) | (0b101 << 10)
    assert bits.extract(word) == 0b10111
    assert bits.spelled() == "4..5 + 10..12"
    with pytest.raises(TableError):
        bits.insert(0, 1 << 5)


def test_form_named() -> None:
    assert form_named("AGX3C") is AGX3C
    with pytest.raises(ValueError, match="unknown AGX form 'agx3z', expected one of: agx3b, agx3c"):
        form_named("agx3z")


def test_opcode_is_an_assumption() -> None:
    assert isinstance(AGX3B.opcode, Fixed) and AGX3B.opcode.assumptions == ("A1",)
