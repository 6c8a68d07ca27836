"""The AGX3B and AGX3C 8x8 MMA field tables: the only place a bit position is written.

Field ids are the seed's anonymous ids (2, 18, 35, 52 registers; 26, 43, 60
types; 27/29, 44/46, 61/63 cache/discard; 11 D cache; 59 mode; 69..74 wait;
AGX3C's 75 and 76 are inferred, ``seed_id_inferred``). Provenance says which
placements the seed states (bit 88 of the mode field, whose bit 87 is A5; the
wait bits 12..17 and the hint bits {32, 47, 48, 62, 71, 72, 73} as sets) and
which rest on a numbered assumption (``assumptions.py``). The seed gives no
AGX3C position at all, so every AGX3C field is an assumption (A9).
"""

from __future__ import annotations

from enum import StrEnum

from targets.agx.fields import Field, FieldKey, Fixed, Form, Provenance, bit, span

FP16_CODE = 1
FP32_CODE = 2
"""The seed's type values for fields 26, 43 and 60."""

MODE_ACCUMULATE = 2
MODE_MULTIPLY = 1
"""The seed's values for field 59."""


GROUP_ORDER_ASSUMPTION: dict[str, str] = {"wait": "A3", "hint": "A4"}
"""For a group whose bits the seed states as a set, the assumption of which bit is which."""


class FormName(StrEnum):
    AGX3B = "agx3b"
    AGX3C = "agx3c"


_HINT_SET = "set {32, 47, 48, 62, 71, 72, 73} stated"
_WAIT_SET = "set 12..17 stated"


def _hint(key: str, seed_id: int, meaning: str, position: int, extra: tuple[str, ...]) -> Field:
    provenance = Provenance.ASSUMED if extra else Provenance.STATED_SET
    return Field(key, seed_id, meaning, bit(position), provenance, ("A4", *extra), (0, 1), "hint",
                 "" if extra else _HINT_SET)


SEED_WAIT_IDS = 6
"""The seed gives wait ids 69..74 (six slots); AGX3C's 75 and 76 for slots 6 and 7 are inferred."""


def _wait(slot: int, position: int, provenance: Provenance, assumptions: tuple[str, ...]) -> Field:
    return Field(FieldKey.wait(slot), 69 + slot, f"wait on scoreboard slot {slot}", bit(position),
                 provenance, assumptions, (0, 1), "wait", _WAIT_SET if provenance is Provenance.STATED_SET else "",
                 seed_id_inferred=slot >= SEED_WAIT_IDS)


def _common_fields(extra: tuple[str, ...]) -> tuple[Field, ...]:
    """The fields AGX3B states or assumes; AGX3C reuses them under A9 (``extra``)."""
    types = (FP16_CODE, FP32_CODE)
    return (
        Field(FieldKey.D_REG, 2, "D register (16-bit units, pair form)", span(18, 8), Provenance.ASSUMED, ("A2", *extra)),
        Field(FieldKey.A_REG, 18, "A register (16-bit units, pair form)", span(33, 8), Provenance.ASSUMED, ("A2", *extra)),
        Field(FieldKey.A_TYPE, 26, "A type (1 = fp16, 2 = fp32)", span(41, 2), Provenance.ASSUMED, ("A6", *extra), types),
        Field(FieldKey.B_REG, 35, "B register (16-bit units, pair form)", span(49, 8), Provenance.ASSUMED, ("A2", *extra)),
        Field(FieldKey.C_REG, 52, "C register (16-bit units, pair form)", span(74, 8), Provenance.ASSUMED, ("A2", *extra)),
        Field(FieldKey.CD_TYPE, 60, "C/D type (2 = fp32; 1, the fp16 accumulator, is refused: A11)",
              span(82, 2), Provenance.ASSUMED, ("A6", *extra), (FP32_CODE,)),
        Field(FieldKey.MODE, 59, "2 = accumulate, 1 = simdgroup_multiply (no C)", span(87, 2),
              Provenance.ASSUMED if extra else Provenance.PARTLY_STATED, ("A5", *extra),
              allowed=(MODE_MULTIPLY, MODE_ACCUMULATE),
              note="" if extra else "bit 88 = accumulate; bit 87 (multiply) is A5",
              stated_positions=frozenset() if extra else frozenset({88})),
        _hint(FieldKey.D_CACHE, 11, "D cache hint", 32, extra),
        _hint(FieldKey.A_CACHE, 27, "A cache hint", 47, extra),
        _hint(FieldKey.A_DISCARD, 29, "A discard hint", 48, extra),
        _hint(FieldKey.B_CACHE, 44, "B cache hint", 62, extra),
        _hint(FieldKey.B_DISCARD, 46, "B discard hint", 71, extra),
        _hint(FieldKey.C_CACHE, 61, "C cache hint", 72, extra),
        _hint(FieldKey.C_DISCARD, 63, "C discard hint", 73, extra),
    )


AGX3B = Form(
    name=FormName.AGX3B,
    length=12,
    wait_slots=6,
    separate_b_type=True,
    opcode=Fixed(span(0, 12), 0x06F, ("A1",)),
    fields=(
        *_common_fields(()),
        Field(FieldKey.B_TYPE, 43, "B type (1 = fp16, 2 = fp32)", span(57, 2), Provenance.ASSUMED, ("A6",),
              (FP16_CODE, FP32_CODE)),
        *(_wait(slot, 12 + slot, Provenance.STATED_SET, ("A3",)) for slot in range(6)),
    ),
    zero_assumption="A10",
)
"""AGX3B ``f32matmad8x8``, 12 bytes (G16 / M4), the form the seed encodes."""

AGX3C = Form(
    name=FormName.AGX3C,
    length=14,
    wait_slots=8,
    separate_b_type=False,
    opcode=Fixed(span(0, 12), 0x0EF, ("A1", "A9")),
    fields=(
        *_common_fields(("A9",)),
        *(_wait(slot, 12 + slot, Provenance.ASSUMED, ("A3", "A9")) for slot in range(6)),
        _wait(6, 96, Provenance.ASSUMED, ("A3", "A9")),
        _wait(7, 97, Provenance.ASSUMED, ("A3", "A9")),
    ),
    zero_assumption="A10",
)
"""AGX3C, 14 bytes (M5): one input type, eight wait slots; no bit position is stated."""

FORMS: dict[str, Form] = {AGX3B.name: AGX3B, AGX3C.name: AGX3C}


def form_named(name: str) -> Form:
    """The form for ``agx3b`` / ``agx3c``; a ValueError naming the choices otherwise."""
    try:
        return FORMS[str(name).lower()]
    except KeyError:
        raise ValueError(f"unknown AGX form '{name}', expected one of: {', '.join(FORMS)}") from None
