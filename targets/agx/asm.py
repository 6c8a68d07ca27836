"""Canonical assembly text of an 8x8 MMA, and its parser.

    mma8.<cd>.<a>.<b> D, A, B, C|zero [wait(i,...)] [c_zero] [multiply]

Registers are spelled as applegpu spells paired operands: an fp32 pair
``r8_r9``, an fp16 pair ``r8l_r8h``. A hint is a suffix on its operand
(``r0l_r0h.discard``, ``r8_r9.cache``; D takes only ``.cache``). ``zero`` in C's
place is the multiply form. ``c_zero``, ``multiply`` and a hint on ``zero``
(``zero.cache``) spell the non-canonical descriptors the refusal vectors need
(C with c_zero, multiply with a C, a C hint without a C). The text is the
descriptor: ``parse_mma8(format_mma8(d)) == normalize(d)``.
"""

from __future__ import annotations

import re

from targets.agx.errors import AgxError
from targets.agx.mma8 import ElemType, Hint, Hints, Mma8, check_descriptor, normalize


class AsmSyntaxError(AgxError):
    """Text that is not canonical MMA assembly, or a descriptor no text spells."""


_TYPE_SPELLING = {ElemType.FP16: "f16", ElemType.FP32: "f32", ElemType.BF16: "bf16"}
_SPELLING_TYPE = {text: elem for elem, text in _TYPE_SPELLING.items()}
_PAIR32 = re.compile(r"^r(\d+)_r(\d+)$")
_PAIR16 = re.compile(r"^r(\d+)l_r(\d+)h$")


def register_text(register: int, elem: ElemType) -> str:
    """``r8_r9`` for an fp32 pair, ``r8l_r8h`` for a 16-bit pair."""
    if elem is ElemType.FP32:
        return f"r{register}_r{register + 1}"
    return f"r{register}l_r{register}h"


def _hint_suffix(hints: frozenset[Hint] | tuple[Hint, ...]) -> str:
    return "".join(f".{hint}" for hint in (Hint.CACHE, Hint.DISCARD) if hint in hints)


def _operand(register: int, elem: ElemType, hints: frozenset[Hint] | tuple[Hint, ...]) -> str:
    return register_text(register, elem) + _hint_suffix(hints)


def format_mma8(desc: Mma8, canonical: bool = True) -> str:
    """The text of ``desc``; ``canonical`` prints the normalized descriptor."""
    check_descriptor(desc, "format_mma8")
    d = normalize(desc) if canonical else desc
    if d.accumulate and d.c is None and d.hints.c:  # refused (MissingCError), and C's hints have no operand to sit on
        raise AsmSyntaxError(f"C hint {'/'.join(sorted(d.hints.c))} on the accumulate form without a C register: "
                             "no text spells it (the encoder refuses it too: the form needs a C register)")
    a_type, b_type = d.effective_a_type, d.effective_b_type
    mnemonic = f"mma8.{_TYPE_SPELLING[d.cd_type]}.{_TYPE_SPELLING[a_type]}.{_TYPE_SPELLING[b_type]}"
    operands = [
        _operand(d.d, d.cd_type, (Hint.CACHE,) if d.d_cache else ()),
        _operand(d.a, a_type, d.hints.a),
        _operand(d.b, b_type, d.hints.b),
    ]
    if d.c is not None:
        operands.append(_operand(d.c, d.cd_type, d.hints.c))
    elif not d.accumulate:
        operands.append("zero" + _hint_suffix(d.hints.c))
    text = f"{mnemonic} {', '.join(operands)}"
    if d.wait:
        text += f" wait({','.join(str(slot) for slot in d.wait)})"
    if d.c_zero:
        text += " c_zero"
    if not d.accumulate and d.c is not None:
        text += " multiply"
    return text


def _parse_hints(suffixes: list[str], what: str) -> frozenset[Hint]:
    hints: set[Hint] = set()
    for suffix in suffixes:
        try:
            hints.add(Hint(suffix))
        except ValueError:
            raise AsmSyntaxError(f"{what}: unknown hint '.{suffix}', expected .cache or .discard") from None
    return frozenset(hints)


def _parse_register(text: str, elem: ElemType, what: str) -> tuple[int, frozenset[Hint]]:
    name, *suffixes = text.split(".")
    hints = _parse_hints(suffixes, what)
    if elem is ElemType.FP32:
        match = _PAIR32.match(name)
        if not match or int(match.group(2)) != int(match.group(1)) + 1:
            raise AsmSyntaxError(f"{what}: '{name}' is not an fp32 register pair rN_rN+1")
    else:
        match = _PAIR16.match(name)
        if not match or match.group(1) != match.group(2):
            raise AsmSyntaxError(f"{what}: '{name}' is not a 16-bit register pair rNl_rNh")
    return int(match.group(1)), frozenset(hints)


def _parse_type(text: str) -> ElemType:
    try:
        return _SPELLING_TYPE[text]
    except KeyError:
        raise AsmSyntaxError(f"unknown type '{text}', expected f16, f32 or bf16") from None


def parse_mma8(text: str) -> Mma8:
    """The descriptor a line of canonical text spells (not validated: encoding refuses)."""
    if not isinstance(text, str):
        raise TypeError(f"parse_mma8 takes a line of assembly text (str), got {type(text).__name__} {text!r:.80}")
    words = text.strip()
    head, _, rest = words.partition(" ")
    parts = head.split(".")
    if len(parts) != 4 or parts[0] != "mma8":
        raise AsmSyntaxError(f"'{head}' is not a mnemonic mma8.<cd>.<a>.<b>")
    cd_type, a_type, b_type = (_parse_type(part) for part in parts[1:])
    flags: set[str] = set()
    wait: tuple[int, ...] = ()
    tail_match = re.search(r"((?:\s+(?:wait\([0-9,\s]*\)|c_zero|multiply))*)\s*$", rest)
    assert tail_match is not None
    tail = tail_match.group(1)
    operand_text = rest[: len(rest) - len(tail_match.group(0))]
    waits = 0
    for token in re.findall(r"wait\([0-9,\s]*\)|c_zero|multiply", tail):
        if token.startswith("wait("):
            waits += 1
            if waits > 1:  # a second list would silently replace the first
                raise AsmSyntaxError(f"more than one wait(...) in '{text.strip()}'; list every slot in one")
            inner = token[5:-1].strip()
            try:
                wait = tuple(int(slot) for slot in inner.split(",")) if inner else ()
            except ValueError:
                raise AsmSyntaxError(f"bad wait list '{token}'") from None
        else:
            flags.add(token)
    operands = [op.strip() for op in operand_text.split(",")] if operand_text.strip() else []
    if len(operands) not in (3, 4):
        raise AsmSyntaxError(f"expected 3 or 4 operands (D, A, B[, C]), got {len(operands)} in '{text}'")
    d, d_hints = _parse_register(operands[0], cd_type, "D")
    if d_hints - {Hint.CACHE}:
        raise AsmSyntaxError("D takes only the .cache hint")
    a, a_hints = _parse_register(operands[1], a_type, "A")
    b, b_hints = _parse_register(operands[2], b_type, "B")
    c: int | None = None
    c_hints: frozenset[Hint] = frozenset()
    accumulate = "multiply" not in flags
    if len(operands) == 4:
        name, *suffixes = operands[3].split(".")
        if name == "zero":
            accumulate = False
            c_hints = _parse_hints(suffixes, "C")
        else:
            c, c_hints = _parse_register(operands[3], cd_type, "C")
    return Mma8(
        d=d, a=a, b=b, c=c,
        a_type=a_type, b_type=b_type, cd_type=cd_type,
        accumulate=accumulate,
        c_zero="c_zero" in flags,
        hints=Hints(a_hints, b_hints, c_hints),
        d_cache=Hint.CACHE in d_hints,
        wait=wait,
    )
