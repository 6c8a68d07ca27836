"""The vocabulary of an instruction-form table: bit ranges, fields, provenance, forms.

An encoding is described as data (after Mesa's AGX2.xml): each field names the
seed's anonymous field id, its bit ranges, the values it may hold and where its
placement comes from. The encoder, the decoder, the docs and the test-vector
labels all read the same table, so a bit position is written down exactly once
(in ``forms.py``). The checks in ``Form.__post_init__`` run when the table is
built: two fields on one bit, or a field past the end of the instruction, is a
table bug that must not reach an encoding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from enum import StrEnum


class TableError(Exception):
    """A form table contradicts itself (overlap, out of range, value wider than the field)."""


class Provenance(StrEnum):
    """Where a field's bit placement comes from."""

    STATED = "stated"
    """The seed states the position of every bit of the field (``stated_positions`` are all its bits)."""
    PARTLY_STATED = "partly-stated"
    """The seed states some of the field's bits (``stated_positions``: accumulate at bit 88); the others
    rest on the cited assumption, so a reader of the provenance alone does not take them for facts."""
    STATED_SET = "stated-set"
    """The seed states the set of bits of a group of fields; which field is which bit is assumed."""
    ASSUMED = "assumed"
    """A project assumption; the field cites its id (A1, A2, ...)."""


class FieldKey(StrEnum):
    """The fields of an 8x8 MMA, named for what they hold."""

    D_REG = "d_reg"
    A_REG = "a_reg"
    B_REG = "b_reg"
    C_REG = "c_reg"
    A_TYPE = "a_type"
    B_TYPE = "b_type"
    CD_TYPE = "cd_type"
    MODE = "mode"
    D_CACHE = "d_cache"
    A_CACHE = "a_cache"
    A_DISCARD = "a_discard"
    B_CACHE = "b_cache"
    B_DISCARD = "b_discard"
    C_CACHE = "c_cache"
    C_DISCARD = "c_discard"

    @staticmethod
    def wait(slot: int) -> str:
        return f"wait{slot}"


@dataclass(frozen=True)
class Bits:
    """Bit ranges ``(start, width)``, low part of the value first (Mesa's ``bit="16:25 -6:-5"``).

    Bit k of an encoding is bit k % 8 of byte k // 8, i.e. the instruction read
    as a little-endian integer.
    """

    ranges: tuple[tuple[int, int], ...]

    @property
    def width(self) -> int:
        return sum(width for _, width in self.ranges)

    @property
    def mask(self) -> int:
        return sum(((1 << width) - 1) << start for start, width in self.ranges)

    def positions(self) -> Iterator[int]:
        for start, width in self.ranges:
            yield from range(start, start + width)

    def insert(self, word: int, value: int) -> int:
        if value < 0 or value >> self.width:
            raise TableError(f"value {value} does not fit in {self.width} bits")
        for start, width in self.ranges:
            word |= (value & ((1 << width) - 1)) << start
            value >>= width
        return word

    def extract(self, word: int) -> int:
        value = 0
        shift = 0
        for start, width in self.ranges:
            value |= ((word >> start) & ((1 << width) - 1)) << shift
            shift += width
        return value

    def spelled(self) -> str:
        """``88`` or ``87..88``, ranges joined by ``+`` (low part first)."""
        parts = [str(start) if width == 1 else f"{start}..{start + width - 1}" for start, width in self.ranges]
        return " + ".join(parts)


def bit(position: int) -> Bits:
    return Bits(((position, 1),))


def span(start: int, width: int) -> Bits:
    return Bits(((start, width),))


@dataclass(frozen=True)
class Field:
    """One field of a form: the seed's anonymous id, its meaning, placement and provenance."""

    key: str
    seed_id: int
    """The seed's anonymous field id (``seed_id_inferred`` when the seed does not print it)."""
    meaning: str
    bits: Bits
    provenance: Provenance
    assumptions: tuple[str, ...] = ()
    allowed: tuple[int, ...] | None = None
    """Values the field may hold; None means any value of its width."""
    group: str = ""
    """Fields whose bits the seed states only as a set share a group (wait, hint)."""
    note: str = ""
    """What exactly is stated when the placement is only partly stated."""
    stated_positions: frozenset[int] = frozenset()
    """Bits whose meaning the seed states exactly (a set one rests on no assumption)."""
    seed_id_inferred: bool = False
    """The seed never prints ``seed_id``: it continues the seed's numbering (AGX3C's wait slots 6 and 7
    as 75 and 76, after the 69..74 the seed gives), an inference, so no test or table may present it
    as the seed's."""

    def __post_init__(self) -> None:
        if self.provenance is not Provenance.STATED and not self.assumptions:
            raise TableError(f"field {self.key}: a placement that is not stated must cite an assumption")
        positions = frozenset(self.bits.positions())
        if self.provenance is Provenance.STATED and self.stated_positions != positions:
            raise TableError(f"field {self.key}: stated, but the seed states bits {sorted(self.stated_positions)} "
                             f"of {self.bits.spelled()}; a field with unstated bits is partly-stated and cites "
                             f"the assumption for the rest")
        if self.provenance is Provenance.PARTLY_STATED and not self.stated_positions < positions:
            raise TableError(f"field {self.key}: partly-stated needs stated bits that are some, not all, "
                             f"of {self.bits.spelled()}")
        if self.provenance in (Provenance.STATED_SET, Provenance.ASSUMED) and self.stated_positions:
            raise TableError(f"field {self.key}: {self.provenance} but names stated bits")
        if self.allowed is not None:
            for value in self.allowed:
                if value < 0 or value >> self.bits.width:
                    raise TableError(f"field {self.key}: allowed value {value} wider than {self.bits.width} bits")


@dataclass(frozen=True)
class Fixed:
    """Bits with one fixed value (the opcode), always an assumption here."""

    bits: Bits
    value: int
    assumptions: tuple[str, ...]


@dataclass(frozen=True)
class Form:
    """One instruction form: its length, its opcode bits and its field table."""

    name: str
    length: int
    """Bytes."""
    wait_slots: int
    separate_b_type: bool
    """False when A and B share one input type (AGX3C)."""
    opcode: Fixed
    fields: tuple[Field, ...]
    zero_assumption: str
    """The assumption that bits outside every field and the opcode are zero."""

    def __post_init__(self) -> None:
        owner: dict[int, str] = {}
        claims = [("opcode", self.opcode.bits)] + [(f.key, f.bits) for f in self.fields]
        for key, bits in claims:
            for position in bits.positions():
                if position >= 8 * self.length:
                    raise TableError(f"{self.name}: {key} uses bit {position}, past {8 * self.length - 1}")
                if position in owner:
                    raise TableError(f"{self.name}: bit {position} claimed by {owner[position]} and {key}")
                owner[position] = key
        keys = [f.key for f in self.fields]
        if len(set(keys)) != len(keys):
            raise TableError(f"{self.name}: duplicate field key")
        waits = [f for f in self.fields if f.group == "wait"]
        if len(waits) != self.wait_slots:
            raise TableError(f"{self.name}: {len(waits)} wait fields for {self.wait_slots} slots")

    @property
    def bit_count(self) -> int:
        return 8 * self.length

    @property
    def stated_bit_count(self) -> int:
        """Bits the seed places: the stated bits of a (partly-)stated field, and every bit of a stated set."""
        count = 0
        for entry in self.fields:
            count += entry.bits.width if entry.provenance is Provenance.STATED_SET else len(entry.stated_positions)
        return count

    def field(self, key: str) -> Field:
        for entry in self.fields:
            if entry.key == key:
                return entry
        raise KeyError(f"{self.name} has no field {key}")

    def has_field(self, key: str) -> bool:
        return any(entry.key == key for entry in self.fields)

    @property
    def explained_mask(self) -> int:
        mask = self.opcode.bits.mask
        for entry in self.fields:
            mask |= entry.bits.mask
        return mask

    def unexplained_ranges(self) -> list[tuple[int, int]]:
        """Runs ``(first, last)`` of bits no field explains: zero by ``zero_assumption``."""
        runs: list[tuple[int, int]] = []
        mask = self.explained_mask
        start: int | None = None
        for position in range(self.bit_count + 1):
            free = position < self.bit_count and not (mask >> position) & 1
            if free and start is None:
                start = position
            elif not free and start is not None:
                runs.append((start, position - 1))
                start = None
        return runs
