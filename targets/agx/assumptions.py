"""The project's assumptions about the AGX3 8x8 matrix instruction, each with an id.

The seed (the PR that encodes AGX3B ``f32matmad8x8``) states only a few bit
positions: the six wait bits 12..17 as a set, the accumulate bit 88, and the
set of seven hint bits {32, 47, 48, 62, 71, 72, 73}. It prints anonymous field
ids, not bit positions, for everything else, and no AGX3C bit at all
(the project's AGX reference notes, section 2, kept beside this repository in
``../shared/reference/agx.md``). Every other choice the encoder, the lowering or
the emulator makes is listed here, so that the field table, the test vectors
and the docs can cite it by id, and a reader knows exactly what a hardware
witness would have to confirm or overturn.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Assumption:
    """One documented guess: what is assumed, why, and what would settle it."""

    id: str
    title: str
    reasoning: str


ASSUMPTIONS: tuple[Assumption, ...] = (
    Assumption(
        "A1",
        "Opcode bits: bits 0..11 hold the fixed value 0x06f (AGX3B) / 0x0ef (AGX3C).",
        "The seed does not print the opcode; 0..11 is the only free run below the stated wait bits, "
        "and 0x6f is G13's simd_matrix_fmadd opcode (applegpu), kept as a recognisable placeholder "
        "that a decoder checks.",
    ),
    Assumption(
        "A2",
        "Register fields: D at 18..25, A at 33..40, B at 49..56, C at 74..81, each 8 bits "
        "holding the register in 16-bit units (r95 = 190).",
        "The seed says registers are 16-bit units in register-pair form up to r95 (8 bits) but "
        "not where they sit; each operand is placed in the gap just below its hint bits, the one "
        "layout consistent with every bit the seed states (the project's AGX reference notes, "
        "section 2.3, kept outside this repository). The seed's 'pair-swapped' C field is not "
        "modelled.",
    ),
    Assumption(
        "A3",
        "Wait slot i is bit 12 + i.",
        "The seed states the set 12..17 for the six slots (field ids 69..74), not their order; "
        "keeping id order equal to bit order is the simplest reading. The default pipeline's streams "
        "do not rest on it: an MMA that needs a wait sets every wait bit (agx-hints-and-waits waits=all).",
    ),
    Assumption(
        "A4",
        "Hint bits in id order: D cache 32, A cache 47, A discard 48, B cache 62, "
        "B discard 71, C cache 72, C discard 73.",
        "The seed states the set of seven bits for the seven hint fields (ids 11, 27, 29, 44, 46, "
        "61, 63); the order-preserving assignment is the only one that keeps id order and bit "
        "order the same, but any of the 7! assignments fits the seed. The default pipeline's streams "
        "set no hint bit (agx-hints-and-waits hints=false), so they do not rest on it.",
    ),
    Assumption(
        "A5",
        "The mode field (id 59) is the 2-bit field 87..88 holding the seed's value: "
        "2 = accumulate (bit 88), 1 = simdgroup_multiply (bit 87).",
        "The seed states that bit 88 is the accumulate bit and that the field's values are 2 and "
        "1; storing the value in a 2-bit field whose high bit is 88 satisfies both, but the "
        "multiply encoding rests on at most three witnesses, the seed's simdgroup_multiply or mixed-type "
        "examples together (the mixed A/B-type forms the default lowering emits on agx3b rest on those "
        "same few).",
    ),
    Assumption(
        "A6",
        "Type fields: A type at 41..42, B type at 57..58, C/D type at 82..83, each 2 bits "
        "holding the seed's value (1 = fp16, 2 = fp32).",
        "The values are stated by the seed, the positions are not; each type sits right after "
        "its operand's register field (A2).",
    ),
    Assumption(
        "A7",
        "Cache and discard are never both set on one operand.",
        "G13 encodes the source hint as one 2-bit enum (none/cache/discard) and Mesa asserts "
        "!(cache && discard); the seed lists them as separate fields but shows no witness with "
        "both, so the encoder refuses the combination.",
    ),
    Assumption(
        "A8",
        "An odd register is an odd 32-bit register number; 'past r95' is checked on the last "
        "32-bit register of the operand's footprint.",
        "The seed's refusals do not say which unit they count in; requiring even 32-bit starts "
        "and the whole pair within r0..r95 satisfies every reading of both refusals.",
    ),
    Assumption(
        "A9",
        "AGX3C uses the AGX3B positions for the shared field ids, puts wait slots 6 and 7 at bits "
        "96 and 97, and has no separate B type field.",
        "The seed gives no AGX3C bit at all, only its length (14 bytes), eight wait slots, one "
        "input type and the shared field ids; extending the AGX3B layout is the least-invented "
        "layout.",
    ),
    Assumption(
        "A10",
        "Every bit that no field and no opcode bit explains is zero.",
        "Nothing is known about the remaining bits; the encoder writes zero and the decoder "
        "rejects any set bit it cannot explain, so a wrong guess shows up instead of being "
        "silently ignored.",
    ),
    Assumption(
        "A11",
        "C/D registers hold fp32 only; the fp16-accumulator form (bytes cf 00 56 ...) is refused.",
        "The seed says that form has a different layout and does not map it.",
    ),
    Assumption(
        "A12",
        "c_zero (a zero C) is encoded as the multiply form (mode 1); the decoder returns it as "
        "accumulate=False.",
        "The only encoding without C that the seed lists is field 59 = 1, and the seed refuses C "
        "together with c_zero, so c_zero can only mean 'read no C'.",
    ),
    Assumption(
        "A13",
        "D may be allocated to C's register (in-place accumulate) but never overlaps A or B.",
        "MLX's tile_matmad writes C in place with simdgroup_multiply_accumulate(C, A, B, C); no "
        "witness shows D overlapping an input of another type.",
    ),
    Assumption(
        "A14",
        "Scoreboard model: fragment loads are asynchronous and each is assigned a wait slot; an "
        "MMA is synchronous and must wait on every slot with a pending producer of A, B or C.",
        "The seed gives the MMA a wait mask but describes no producer; Mesa's G13 pass "
        "(agx_insert_waits.c) waits before the first read of a register an outstanding slot "
        "writes, which is what this models.",
    ),
    Assumption(
        "A15",
        "Emulated arithmetic: each D element is the sum of the eight products and C computed in "
        "float64, rounded once to fp32.",
        "The hardware's summation order and rounding are not public; products of fp16 or fp32 "
        "values are exact in float64, and integer-valued tests make every order agree bit for bit.",
    ),
)


def assumption(assumption_id: str) -> Assumption:
    for entry in ASSUMPTIONS:
        if entry.id == assumption_id:
            return entry
    raise KeyError(assumption_id)
