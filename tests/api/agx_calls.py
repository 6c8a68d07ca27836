"""The ``targets.agx`` calls of ``tests.api.helper_fuzz``: the 8x8 MMA descriptor, its encoder and decoder, its
assembly text and the assumptions an encoding rests on — what a user wiring the AGX stream by hand calls.

Arguments are mostly valid (even registers in range, the two forms, hints and waits as DESIGN.md spells them, bytes
the encoder wrote) and at times not (an odd or out-of-range register, bf16, a hint given as a ``Hints`` of names, a
flipped bit, edited text); the fuzz then damages one argument in six. Where the encoder or the printer accepts a
descriptor, the promise is the round trip the module documents: ``decode_mma8(encode_mma8(d, form), form) == d`` and
``parse_mma8(format_mma8(d)) == normalize(d)``, so each of those calls returns the pair (result, its round trip).
"""

from __future__ import annotations

import random
import re
from typing import Any

from targets.agx import (ElemType, Mma8, assumptions_of, decode_mma8, decode_stream, encode_mma8, format_mma8,
                         normalize, parse_mma8)
from targets.agx.forms import FORMS
from targets.agx.mma8 import Hint, Hints

FORM_NAMES = sorted(FORMS)
TYPES = [None, "fp16", "fp32", ElemType.FP16, ElemType.FP32, "bf16"]
HINT_VALUES = [None, "cache", "discard", Hint.CACHE, ("cache",), ("cache", "discard"), frozenset({Hint.DISCARD})]


def _register(rng: random.Random) -> int:
    return rng.randrange(0, 96, 2) if rng.random() < 0.9 else rng.choice([-2, 1, 95, 96, 200])


def _hints(rng: random.Random) -> object:
    picked = {name: rng.choice(HINT_VALUES) for name in rng.sample("abc", rng.randint(0, 3))}
    return Hints(**picked) if rng.random() < 0.3 else picked


def _descriptor_kwargs(rng: random.Random) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"d": _register(rng), "a": _register(rng), "b": _register(rng)}
    if rng.random() < 0.7:
        kwargs["c"] = _register(rng)
    for name in ("a_type", "b_type", "cd_type"):
        if rng.random() < 0.3:
            kwargs[name] = rng.choice(TYPES) if name != "cd_type" or rng.random() < 0.5 else "fp32"
    for name in ("accumulate", "c_zero", "d_cache"):
        if rng.random() < 0.2:
            kwargs[name] = rng.random() < 0.5
    if rng.random() < 0.4:
        kwargs["hints"] = _hints(rng)
    if rng.random() < 0.4:
        kwargs["wait"] = tuple(rng.sample(range(9), rng.randint(0, 3)))
    return kwargs


def _descriptor(rng: random.Random) -> Mma8:
    """A descriptor (a drawn one the constructor refuses is another draw, as for the templates' configs)."""
    return Mma8(**_descriptor_kwargs(rng))


def _form(rng: random.Random) -> str:
    return rng.choice(FORM_NAMES) if rng.random() < 0.95 else rng.choice(["agx3", "AGX3B", ""])


def _encoded(rng: random.Random, form: str) -> bytes:
    """Bytes the encoder wrote for a descriptor it accepts, at times with a bit flipped or a byte short."""
    for _ in range(50):
        try:
            data = encode_mma8(_descriptor(rng), form)
            break
        except (TypeError, ValueError):
            continue
    else:
        data = bytes(FORMS[form].length) if form in FORMS else b""
    if data and rng.random() < 0.3:
        flipped = int.from_bytes(data, "little") ^ 1 << rng.randrange(8 * len(data))
        data = flipped.to_bytes(len(data), "little")
    if data and rng.random() < 0.05:
        data = data[:-1]
    return data


def encode_round_trip(desc: Mma8, form: str) -> tuple[bytes, Mma8, Mma8]:
    data = encode_mma8(desc, form)
    return data, decode_mma8(data, form), desc


def format_round_trip(desc: Mma8) -> tuple[str, Mma8, Mma8]:
    text = format_mma8(desc)
    return text, parse_mma8(text), normalize(desc)


def _edited(rng: random.Random, text: str) -> str:
    """Canonical text with one token changed, dropped or repeated, at times."""
    if rng.random() < 0.5:
        return text
    tokens = re.split(r"(\s+|,)", text)
    at = rng.randrange(len(tokens))
    edit = rng.choice(["drop", "repeat", "replace"])
    if edit == "drop":
        tokens[at] = ""
    elif edit == "repeat":
        tokens[at] = tokens[at] + " " + tokens[at]
    else:
        tokens[at] = rng.choice(["r1_r2", "r0l_r0h.keep", "wait(9)", "wait(0) wait(1)", "zero.cache", "mma8.f8.f16.f16",
                                 "c_zero", "multiply", "r-2_r-1", "", "zero"])
    return "".join(tokens)


def encode_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    return [_descriptor(rng), _form(rng)], {}


def decode_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    form = rng.choice(FORM_NAMES)
    return [_encoded(rng, form), form if rng.random() < 0.95 else _form(rng)], {}


def stream_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    form = rng.choice(FORM_NAMES)
    return [b"".join(_encoded(rng, form) for _ in range(rng.randint(0, 3))), form], {}


def format_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    return [_descriptor(rng)], {}


def parse_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    return [_edited(rng, format_mma8(_descriptor(rng)))], {}


def assumptions_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    return [_descriptor(rng), _form(rng)], {}


def is_descriptor(value: object) -> bool:
    return isinstance(value, Mma8)


def is_encoded_round_trip(value: object) -> bool:
    if not isinstance(value, tuple) or len(value) != 3 or not isinstance(value[0], bytes):
        return False
    return value[1] == value[2] and len(value[0]) in {form.length for form in FORMS.values()}


def is_text_round_trip(value: object) -> bool:
    return isinstance(value, tuple) and isinstance(value[0], str) and value[1] == value[2]


def is_assumptions(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(ident, str) and re.fullmatch(r"A\d+", ident) for ident in value)


def is_descriptor_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, Mma8) for item in value)


def _mma8(**kwargs: Any) -> Mma8:
    return Mma8(**kwargs)


CALLS = [
    ("agx.Mma8", _mma8, lambda rng: ([], _descriptor_kwargs(rng)), is_descriptor),
    ("agx.encode_mma8", encode_round_trip, encode_args, is_encoded_round_trip),
    ("agx.decode_mma8", decode_mma8, decode_args, is_descriptor),
    ("agx.decode_stream", decode_stream, stream_args, is_descriptor_list),
    ("agx.format_mma8", format_round_trip, format_args, is_text_round_trip),
    ("agx.parse_mma8", parse_mma8, parse_args, is_descriptor),
    ("agx.assumptions_of", assumptions_of, assumptions_args, is_assumptions),
]
"""(name, function, arguments, promise) of each call, for ``helper_fuzz.Helper``."""
