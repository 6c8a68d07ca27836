"""The 8x8 MMA descriptor, its refusals, and the table-driven encoder and decoder.

``Mma8`` mirrors the seed's ``agx3_matrix_mma8_desc`` in Python terms
(DESIGN.md section 4): 32-bit register numbers, per-operand types, accumulate or
multiply, hints and wait slots. ``encode_mma8`` checks every refusal first and
then writes field values through the form table; ``decode_mma8`` is its strict
inverse: it reads exactly the form's bytes, and a set bit or a value the table
does not explain is an error, never silently dropped.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from targets.agx import errors
from targets.agx.fields import FieldKey, Form
from targets.agx.forms import (
    FP16_CODE,
    FP32_CODE,
    GROUP_ORDER_ASSUMPTION,
    MODE_ACCUMULATE,
    MODE_MULTIPLY,
    form_named,
)

MAX_REGISTER = 95
"""The register-pair form reaches r0..r95 (seed)."""

FP16_ACCUMULATOR_PREFIX = bytes.fromhex("cf0056")
"""The first bytes of the unmapped fp16-accumulator form, as the seed quotes them."""


class ElemType(StrEnum):
    FP16 = "fp16"
    FP32 = "fp32"
    BF16 = "bf16"
    """Named so that it can be refused: the seed has no bf16 witness."""

    @property
    def registers(self) -> int:
        """32-bit registers an operand pair of this type occupies (two elements per lane)."""
        return 2 if self is ElemType.FP32 else 1


class Hint(StrEnum):
    CACHE = "cache"
    DISCARD = "discard"


_TYPE_CODE = {ElemType.FP16: FP16_CODE, ElemType.FP32: FP32_CODE}
_CODE_TYPE = {code: elem for elem, code in _TYPE_CODE.items()}


def _elem_type(value: ElemType | str | None, what: str) -> ElemType | None:
    if value is None or isinstance(value, ElemType):
        return value
    try:
        return ElemType(str(value))
    except ValueError:
        raise errors.UnsupportedTypeError(
            f"{what} type '{value}' is not an MMA operand type; expected fp16 or fp32") from None


def _hint_set(value: Hint | str | Iterable[Hint | str] | None, operand: str) -> frozenset[Hint]:
    if value is None:
        return frozenset()
    if not isinstance(value, (str, Iterable)):
        raise errors.EncodingError(f"hint {value!r} on {operand} is not a hint; expected cache or discard")
    items = [value] if isinstance(value, str) else list(value)
    hints: set[Hint] = set()
    for item in items:
        try:
            hints.add(Hint(str(item)))
        except ValueError:
            raise errors.EncodingError(
                f"hint '{item}' on {operand} is not a hint; expected cache or discard") from None
    return frozenset(hints)


@dataclass(frozen=True)
class Hints:
    """Register-cache hints of the sources: a set of ``cache`` / ``discard`` per operand."""

    a: frozenset[Hint] = frozenset()
    b: frozenset[Hint] = frozenset()
    c: frozenset[Hint] = frozenset()

    def __post_init__(self) -> None:
        # Each field as a set of Hint whatever it was given as ("discard", a tuple of names): the conflict
        # check (A7) and the encoder test membership of Hint values, and equal hints must compare equal.
        for name in ("a", "b", "c"):
            object.__setattr__(self, name, _hint_set(getattr(self, name), name.upper()))

    @staticmethod
    def of(value: "Hints | Mapping[str, Hint | str | Iterable[Hint | str] | None] | None") -> "Hints":
        """Accept DESIGN.md's spelling ``{"a": "cache", "b": "discard", "c": None}``."""
        if value is None:
            return Hints()
        if isinstance(value, Hints):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(f"hints must be a mapping such as {{'a': 'cache', 'c': 'discard'}} or a Hints, "
                            f"got {value!r}")
        unknown = sorted(set(value) - {"a", "b", "c"})
        if unknown:
            raise errors.EncodingError(f"hints name unknown operand(s) {unknown}; expected a, b or c")
        return Hints(*(_hint_set(value.get(name), name.upper()) for name in ("a", "b", "c")))

    def of_operand(self, operand: str) -> frozenset[Hint]:
        return {"a": self.a, "b": self.b, "c": self.c}[operand]


@dataclass(frozen=True)
class Mma8:
    """One 8x8 multiply-accumulate, D = A x B + C, on register pairs.

    Registers are 32-bit register numbers: an fp32 operand uses the pair
    ``rN_rN+1``, an fp16 operand the two halves ``rNl_rNh``. ``a_type`` None
    means fp16 (the seed's input_type 0); ``b_type`` None means A's type;
    ``cd_type`` None means fp32.
    ``accumulate=False`` is simdgroup_multiply (no C); ``c_zero`` asks for a zero
    C and is encoded the same way (A12).

    Fields are coerced on construction to the canonical descriptor, so that two
    descriptors compare equal exactly when they encode to the same bytes and
    ``decode_mma8(encode_mma8(d, form), form) == d`` for every ``d`` the encoder
    accepts: the type defaults are applied (``a_type``/``b_type`` are never None
    afterwards), a ``c_zero`` without a C register becomes the multiply form
    (``accumulate=False, c_zero=False``), hints become sets and wait slots are
    sorted. A ``c_zero`` together with a C register is left as given, for
    ``validate`` to refuse (``CWithCZeroError``).
    """

    d: int
    a: int
    b: int
    c: int | None = None
    a_type: ElemType | None = None
    b_type: ElemType | None = None
    cd_type: ElemType = ElemType.FP32
    accumulate: bool = True
    c_zero: bool = False
    hints: Hints = field(default_factory=Hints)
    d_cache: bool = False
    wait: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in ("d", "a", "b", "c"):
            value = getattr(self, name)
            if value is None and name == "c":
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be a register number (int){' or None' if name == 'c' else ''}, "
                                f"got {value!r}")
            object.__setattr__(self, name, int(value))
        for name in ("accumulate", "c_zero", "d_cache"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if isinstance(self.wait, (str, bytes)) or not isinstance(self.wait, Iterable) or any(
                isinstance(slot, bool) or not isinstance(slot, numbers.Integral) for slot in self.wait):
            raise TypeError(f"wait must be an iterable of scoreboard slot numbers (ints), got {self.wait!r}")
        a_type = _elem_type(self.a_type, "A") or ElemType.FP16
        object.__setattr__(self, "a_type", a_type)
        object.__setattr__(self, "b_type", _elem_type(self.b_type, "B") or a_type)
        object.__setattr__(self, "cd_type", _elem_type(self.cd_type, "C/D") or ElemType.FP32)
        if self.c_zero and self.c is None:
            # A12: a zero C is the multiply form; spelled one way so that it decodes to itself.
            object.__setattr__(self, "accumulate", False)
            object.__setattr__(self, "c_zero", False)
        object.__setattr__(self, "hints", Hints.of(self.hints))  # type: ignore[arg-type]
        object.__setattr__(self, "wait", tuple(sorted({int(slot) for slot in self.wait})))

    @property
    def effective_a_type(self) -> ElemType:
        """``a_type`` (construction already applied its default)."""
        assert self.a_type is not None
        return self.a_type

    @property
    def effective_b_type(self) -> ElemType:
        """``b_type`` (construction already applied its default)."""
        assert self.b_type is not None
        return self.b_type

    @property
    def reads_c(self) -> bool:
        return self.accumulate and not self.c_zero


def check_descriptor(desc: object, where: str) -> None:
    """Refuse anything but an ``Mma8`` by name, before an attribute lookup on it fails deep inside ``where``."""
    if not isinstance(desc, Mma8):
        raise TypeError(f"{where} takes an Mma8 descriptor, got {type(desc).__name__} {desc!r:.80}")


def _check_data(data: object, where: str) -> None:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{where} takes the instruction bytes (bytes, bytearray or memoryview), "
                        f"got {type(data).__name__} {data!r:.80}")


def normalize(desc: Mma8) -> Mma8:
    """The canonical descriptor. Construction already makes every descriptor the encoder accepts
    canonical, so this is the identity on them; it only respells the refused C-with-c_zero
    descriptor as the multiply form (what its bits would mean)."""
    check_descriptor(desc, "normalize")
    if not desc.c_zero:
        return desc
    return replace(desc, accumulate=desc.reads_c, c_zero=False)


def check_register(operand: str, start: int, elem: ElemType) -> None:
    """Refuse a start below r0, an odd start, or a pair reaching past r95 (A8)."""
    last = start + elem.registers - 1
    if start < 0:
        raise errors.RegisterRangeError(f"{operand} register r{start} is below r0")
    if start % 2:
        raise errors.OddRegisterError(
            f"{operand} register r{start} is odd; MMA operands start at an even register (pair form)")
    if last > MAX_REGISTER:
        span = f"r{start}" if last == start else f"r{start}_r{last}"
        raise errors.RegisterRangeError(
            f"{operand} register {span} ({elem}) is past r{MAX_REGISTER}, the last register the pair form reaches")


def validate(desc: Mma8, form: Form) -> None:
    """Raise the typed refusal for the first rule ``desc`` breaks in ``form``."""
    check_descriptor(desc, "validate")
    a_type, b_type = desc.effective_a_type, desc.effective_b_type
    for operand, elem in (("A", a_type), ("B", b_type), ("C/D", desc.cd_type)):
        if elem is ElemType.BF16:
            raise errors.UnsupportedTypeError(f"{operand} is bf16; the MMA has no bf16 form (no witness)")
    if desc.cd_type is not ElemType.FP32:
        raise errors.Fp16AccumulatorError(
            f"C/D is {desc.cd_type}; the fp16-accumulator form (cf 00 56 ...) is not mapped, C/D must be fp32")
    if desc.c_zero and desc.c is not None:
        raise errors.CWithCZeroError(f"C register r{desc.c} given together with c_zero")
    if not desc.accumulate and desc.c is not None:
        raise errors.MultiplyWithCError(f"the multiply form (accumulate=False) reads no C, but C is r{desc.c}")
    if not desc.reads_c and desc.hints.c:
        raise errors.MultiplyWithCError(
            f"C hint {'/'.join(sorted(desc.hints.c))} given, but the multiply form reads no C")
    if desc.reads_c and desc.c is None:
        raise errors.MissingCError("the accumulate form needs a C register (or c_zero / accumulate=False)")
    if not form.separate_b_type and b_type is not a_type:
        raise errors.MixedInputTypesError(
            f"{form.name} takes one input type, but A is {a_type} and B is {b_type}")
    check_register("D", desc.d, desc.cd_type)
    check_register("A", desc.a, a_type)
    check_register("B", desc.b, b_type)
    if desc.c is not None:
        check_register("C", desc.c, desc.cd_type)
    for operand in ("a", "b", "c"):
        if desc.hints.of_operand(operand) == {Hint.CACHE, Hint.DISCARD}:
            raise errors.HintConflictError(f"{operand.upper()} has both cache and discard hints (A7)")
    for slot in desc.wait:
        if not 0 <= slot < form.wait_slots:
            raise errors.WaitSlotError(
                f"wait slot {slot} does not exist on {form.name}, which has {form.wait_slots} slots (0..{form.wait_slots - 1})")


def _as_form(form: Form | str) -> Form:
    return form if isinstance(form, Form) else form_named(form)


def field_values(desc: Mma8, form: Form | str) -> dict[str, int]:
    """The value of every field of ``form`` for a valid descriptor (16-bit units for registers)."""
    form = _as_form(form)
    d = normalize(desc)
    assert d.a_type is not None and d.b_type is not None
    values: dict[str, int] = {
        FieldKey.D_REG: 2 * d.d,
        FieldKey.A_REG: 2 * d.a,
        FieldKey.B_REG: 2 * d.b,
        FieldKey.C_REG: 2 * d.c if d.c is not None else 0,
        FieldKey.A_TYPE: _TYPE_CODE[d.a_type],
        FieldKey.CD_TYPE: _TYPE_CODE[d.cd_type],
        FieldKey.MODE: MODE_ACCUMULATE if d.accumulate else MODE_MULTIPLY,
        FieldKey.D_CACHE: int(d.d_cache),
    }
    for operand in ("a", "b", "c"):
        hints = d.hints.of_operand(operand)
        values[f"{operand}_cache"] = int(Hint.CACHE in hints)
        values[f"{operand}_discard"] = int(Hint.DISCARD in hints)
    if form.separate_b_type:
        values[FieldKey.B_TYPE] = _TYPE_CODE[d.b_type]
    for slot in range(form.wait_slots):
        values[FieldKey.wait(slot)] = int(slot in d.wait)
    return values


def encode_mma8(desc: Mma8, form: Form | str) -> bytes:
    """The instruction bytes of ``desc`` in ``form`` (12 bytes for agx3b, 14 for agx3c)."""
    check_descriptor(desc, "encode_mma8")
    form = _as_form(form)
    validate(desc, form)
    word = form.opcode.bits.insert(0, form.opcode.value)
    values = field_values(desc, form)
    for entry in form.fields:
        word = entry.bits.insert(word, values[entry.key])
    return word.to_bytes(form.length, "little")


def decode_mma8(data: bytes, form: Form | str) -> Mma8:
    """The canonical descriptor of the instruction at the start of ``data``.

    Reads exactly ``form.length`` bytes (what follows is the next instruction).
    """
    _check_data(data, "decode_mma8")
    form = _as_form(form)
    if len(data) < form.length:
        raise errors.TruncatedError(f"{form.name} instructions are {form.length} bytes, got {len(data)}")
    raw = bytes(data[: form.length])
    if raw.startswith(FP16_ACCUMULATOR_PREFIX):
        raise errors.UnmappedFormError(
            f"{raw.hex()} is the fp16-accumulator form (cf 00 56 ...), which is not mapped")
    word = int.from_bytes(raw, "little")
    opcode = form.opcode.bits.extract(word)
    if opcode != form.opcode.value:
        raise errors.OpcodeMismatchError(
            f"{raw.hex()}: opcode bits {form.opcode.bits.spelled()} are {opcode:#x}, "
            f"not {form.name}'s {form.opcode.value:#x}")
    stray = word & ~form.explained_mask
    if stray:
        positions = [str(p) for p in range(form.bit_count) if (stray >> p) & 1]
        raise errors.UnexplainedBitsError(
            f"{raw.hex()}: bit(s) {', '.join(positions)} set, which the {form.name} table does not explain")
    values: dict[str, int] = {}
    for entry in form.fields:
        value = entry.bits.extract(word)
        if entry.allowed is not None and value not in entry.allowed:
            raise errors.FieldValueError(
                f"{raw.hex()}: field {entry.seed_id} ({entry.key}) holds {value}, allowed {list(entry.allowed)}")
        values[entry.key] = value
    return _descriptor(raw, form, values)


def _register(raw: bytes, values: dict[str, int], key: str, operand: str) -> int:
    units = values[key]
    if units % 2:
        raise errors.FieldValueError(
            f"{raw.hex()}: {operand} register is the high half of r{units // 2}; pairs start at an even unit")
    return units // 2


def _descriptor(raw: bytes, form: Form, values: dict[str, int]) -> Mma8:
    accumulate = values[FieldKey.MODE] == MODE_ACCUMULATE
    if not accumulate and values[FieldKey.C_REG]:
        raise errors.FieldValueError(f"{raw.hex()}: the multiply form carries a C register")
    a_type = _CODE_TYPE[values[FieldKey.A_TYPE]]
    b_type = _CODE_TYPE[values[FieldKey.B_TYPE]] if form.separate_b_type else a_type

    def hints(operand: str) -> frozenset[Hint]:
        found = set()
        if values[f"{operand}_cache"]:
            found.add(Hint.CACHE)
        if values[f"{operand}_discard"]:
            found.add(Hint.DISCARD)
        return frozenset(found)

    desc = Mma8(
        d=_register(raw, values, FieldKey.D_REG, "D"),
        a=_register(raw, values, FieldKey.A_REG, "A"),
        b=_register(raw, values, FieldKey.B_REG, "B"),
        c=_register(raw, values, FieldKey.C_REG, "C") if accumulate else None,
        a_type=a_type,
        b_type=b_type,
        cd_type=_CODE_TYPE[values[FieldKey.CD_TYPE]],
        accumulate=accumulate,
        hints=Hints(hints("a"), hints("b"), hints("c")),
        d_cache=bool(values[FieldKey.D_CACHE]),
        wait=tuple(slot for slot in range(form.wait_slots) if values[FieldKey.wait(slot)]),
    )
    try:
        validate(desc, form)
    except errors.EncodingError as err:
        raise errors.FieldValueError(f"{raw.hex()}: decodes to an instruction the encoder refuses: {err}") from None
    return desc


def decode_stream(data: bytes, form: Form | str) -> list[Mma8]:
    """Decode back-to-back instructions; the length must be a multiple of the form's."""
    _check_data(data, "decode_stream")
    form = _as_form(form)
    if len(data) % form.length:
        raise errors.TruncatedError(
            f"a {form.name} stream is a multiple of {form.length} bytes, got {len(data)}")
    return [decode_mma8(data[offset:], form) for offset in range(0, len(data), form.length)]


def assumptions_of(desc: Mma8, form: Form | str) -> tuple[str, ...]:
    """The assumption ids the bytes of ``desc`` rest on (sorted A1, A2, ...).

    A field holding zero, or whose set bits the seed states exactly, rests on
    no placement assumption; a group stated as a set (wait, hint) whose bits are
    all equal does not depend on which bit is which (A3 / A4). The opcode and
    the zero bits (A10) are always assumed.
    """
    check_descriptor(desc, "assumptions_of")
    form = _as_form(form)
    validate(desc, form)  # a refused descriptor has no bytes to rest on: its refusal, not a partial answer
    values = field_values(desc, form)
    used: set[str] = set(form.opcode.assumptions) | {form.zero_assumption}
    groups: dict[str, list[int]] = {}
    for entry in form.fields:
        if entry.group:
            groups.setdefault(entry.group, []).append(values[entry.key])
    for entry in form.fields:
        value = values[entry.key]
        if value == 0:
            continue
        set_bits = {p for p in entry.bits.positions() if (entry.bits.insert(0, value) >> p) & 1}
        if set_bits <= entry.stated_positions:
            continue
        ids = set(entry.assumptions)
        if entry.group and len(set(groups[entry.group])) == 1:
            ids.discard(GROUP_ORDER_ASSUMPTION[entry.group])
        used |= ids
    return tuple(sorted(used, key=lambda ident: int(ident[1:])))
