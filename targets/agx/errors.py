"""Typed refusals of the AGX 8x8 MMA encoder and decoder.

Each refusal the seed lists (a seventh wait slot on AGX3B, bf16, a register
past r95, an odd register, C together with c_zero, AGX3C with a B type other
than A's) is its own subclass of ``EncodingError``, as are the ones the project
adds, so a test or a caller can tell them apart without reading messages.
"""

from __future__ import annotations


class AgxError(ValueError):
    """Anything the AGX target refuses."""


class EncodingError(AgxError):
    """A descriptor that cannot be encoded in the requested form."""


class WaitSlotError(EncodingError):
    """A wait slot the form does not have (a seventh on AGX3B, a ninth on AGX3C)."""


class UnsupportedTypeError(EncodingError):
    """An operand type the instruction has no mapped encoding for (bf16, or not a float type)."""


class Fp16AccumulatorError(EncodingError):
    """C/D in fp16: the fp16-accumulator form has a different, unmapped layout (seed)."""


class RegisterRangeError(EncodingError):
    """An operand (D, A, B or C) whose register pair reaches past r95 or starts below r0."""


class OddRegisterError(EncodingError):
    """An operand that does not start at an even register (register-pair form)."""


class CWithCZeroError(EncodingError):
    """A C register together with c_zero (the seed's refusal)."""


class MixedInputTypesError(EncodingError):
    """AGX3C with a B type different from A's (after A's fp16 default is applied)."""


class HintConflictError(EncodingError):
    """Cache and discard both set on one operand (assumption A7)."""


class MissingCError(EncodingError):
    """The accumulate form without a C register and without c_zero."""


class MultiplyWithCError(EncodingError):
    """The multiply form (accumulate=False) given a C register or a C hint: it reads no C."""


class DecodeError(AgxError):
    """Bytes that are not an instruction of the form, as far as the table explains it."""


class TruncatedError(DecodeError):
    """Fewer bytes than the form's length."""


class OpcodeMismatchError(DecodeError):
    """The opcode bits are not the form's."""


class UnmappedFormError(DecodeError):
    """A form the seed names but does not map (the fp16-accumulator ``cf 00 56 ...``)."""


class UnexplainedBitsError(DecodeError):
    """A set bit that no field and no opcode bit of the table explains."""


class FieldValueError(DecodeError):
    """A field holding a value the table does not allow, or a descriptor the encoder would refuse."""
