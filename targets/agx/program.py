"""What one lowered dot tile is, outside the IR: its MMA stream and its fragment map.

The AGX target emits only the 8x8 MMA instructions (the one instruction with a
published encoding) and, beside them, the map of which register holds which
8x8 fragment of which operand. The loads that fill those registers and the
stores that read the results are not encoded (their encodings are unknown); the
map describes them well enough for the emulator to play their part, and for a
user to wire the stream into a shader by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from targets.agx.mma8 import ElemType, Mma8


class Operand(StrEnum):
    LHS = "lhs"
    RHS = "rhs"
    ACC = "acc"


@dataclass(frozen=True)
class FragmentSource:
    """The 8x8 block of a dot operand a fragment holds, and how it is read.

    ``row``/``col`` index the operand's logical matrix (A is M x K, B is K x N,
    C is M x N) in values, not in packed bytes or blocks. ``format`` is the qdot
    format name; quantized formats are dequantized on load (``dequantize``).
    """

    operand: Operand
    arg: int
    """Function argument index of the data tensor."""
    row: int
    col: int
    format: str
    scale_arg: int | None = None
    k_pack: bool = True
    dequantize: bool = False
    scale_format: str | None = None
    """``ue8m0`` or ``ue4m3`` when ``scale_arg`` is given."""


@dataclass(frozen=True)
class FragmentLoad:
    """A fragment produced by an asynchronous load into ``register`` (pair form)."""

    register: int
    elem: ElemType
    source: FragmentSource
    slot: int | None
    """Scoreboard slot the load signals (A14), None if the waits pass has not run."""
    before: int
    """Index of the MMA instruction the load is issued before."""


@dataclass(frozen=True)
class FragmentStore:
    """A result fragment (fp32 pair) read at the end of the stream into D[row:row+8, col:col+8]."""

    register: int
    row: int
    col: int


@dataclass(frozen=True)
class TileProgram:
    """One simdgroup's dot tile D[M, N] = A[M, K] B[K, N] (+ C) as an MMA stream and fragment map."""

    function: str
    form: str
    m: int
    n: int
    k: int
    instructions: tuple[Mma8, ...]
    loads: tuple[FragmentLoad, ...]
    stores: tuple[FragmentStore, ...]

    def loads_before(self, index: int) -> tuple[FragmentLoad, ...]:
        return tuple(load for load in self.loads if load.before == index)
