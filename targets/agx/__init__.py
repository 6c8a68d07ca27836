"""The Apple AGX3B / AGX3C target: the 8x8 simdgroup MMA, its encoders, decoder and emulator.

Only the matrix instruction has a published (partial) encoding, so this target
emits the MMA instruction stream of a dot tile and the register map of its
fragments, not a whole shader (docs/agx.md).

    >>> from targets.agx import Mma8, encode_mma8, decode_mma8
    >>> data = encode_mma8(Mma8(d=0, a=2, b=4, c=6, a_type="fp32"), "agx3b")
    >>> len(data), decode_mma8(data, "agx3b").c
    (12, 6)

``emit`` (module -> hex/bin/asm) needs xDSL and the agx dialect and is loaded
on first use.
"""

from __future__ import annotations

from typing import Any

from targets.agx.asm import AsmSyntaxError, format_mma8, parse_mma8
from targets.agx.errors import (
    AgxError,
    CWithCZeroError,
    DecodeError,
    EncodingError,
    FieldValueError,
    Fp16AccumulatorError,
    HintConflictError,
    MissingCError,
    MixedInputTypesError,
    MultiplyWithCError,
    OddRegisterError,
    OpcodeMismatchError,
    RegisterRangeError,
    TruncatedError,
    UnexplainedBitsError,
    UnmappedFormError,
    UnsupportedTypeError,
    WaitSlotError,
)
from targets.agx.forms import AGX3B, AGX3C, FORMS, FormName, form_named
from targets.agx.mma8 import (
    MAX_REGISTER,
    ElemType,
    Hint,
    Hints,
    Mma8,
    assumptions_of,
    decode_mma8,
    decode_stream,
    encode_mma8,
    normalize,
    validate,
)

__all__ = [
    "AGX3B",
    "AGX3C",
    "FORMS",
    "MAX_REGISTER",
    "AgxError",
    "AsmSyntaxError",
    "CWithCZeroError",
    "DecodeError",
    "ElemType",
    "EncodingError",
    "FieldValueError",
    "FormName",
    "Fp16AccumulatorError",
    "Hint",
    "HintConflictError",
    "Hints",
    "MissingCError",
    "MixedInputTypesError",
    "Mma8",
    "MultiplyWithCError",
    "OddRegisterError",
    "OpcodeMismatchError",
    "RegisterRangeError",
    "TruncatedError",
    "UnexplainedBitsError",
    "UnmappedFormError",
    "UnsupportedTypeError",
    "WaitSlotError",
    "assumptions_of",
    "decode_mma8",
    "decode_stream",
    "emit",
    "encode_mma8",
    "form_named",
    "format_mma8",
    "normalize",
    "parse_mma8",
    "tile_programs",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name in ("emit", "tile_programs"):
        from targets.agx import emitter as emit_module

        return getattr(emit_module, name)
    raise AttributeError(f"module 'targets.agx' has no attribute {name!r}")
