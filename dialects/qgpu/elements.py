"""How wide an element is once it sits in a register or in shared memory.

Registers and shared memory hold whole bytes: an ``f6E2M3FN`` or ``f4E2M1FN``
element takes a byte there (``0000xxxx`` / ``00xxxxxx`` containers, PTX ISA
9.7.14.5.14), an ``i1`` too. Packed fp4 travels as ``i8`` (two values per
byte), so it is 8 bits like any other byte. A ``!qdot.block`` element (a whole
ggml block) takes its ``element_bytes`` from the qdot formats table; it can sit
in shared memory but is wider than any register layout accepts.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FixedBitwidthType
from xdsl.ir import Attribute


def storage_bits(element_type: Attribute) -> int | None:
    """8, 16, 32 or 64 for a fixed-width type (rounded up to a power-of-two byte count), else None."""
    from dialects.qdot.types import BlockType

    if isinstance(element_type, BlockType):
        return element_type.info.element_bytes * 8
    if not isinstance(element_type, FixedBitwidthType):
        return None
    bits = max(8, element_type.bitwidth)
    rounded = 8
    while rounded < bits:
        rounded *= 2
    return rounded


def storage_bytes(element_type: Attribute) -> int | None:
    bits = storage_bits(element_type)
    return None if bits is None else bits // 8
