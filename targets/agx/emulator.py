"""A functional emulator of a decoded 8x8 MMA stream on a simdgroup register file.

The register file is 32 lanes x 96 32-bit registers. An fp32 operand pair
``rN_rN+1`` holds a lane's two elements in rN and rN+1; an fp16 pair
``rNl_rNh`` holds element 0 in the low half of rN and element 1 in the high
half. Elements are distributed over lanes with Metal's layout (``lanes.py``).

Besides arithmetic (A15: products and sum in float64, rounded once to fp32)
the emulator checks what the compiler passes promise, so that a wrong
decision fails a test instead of producing plausible numbers:

* a register read after a ``discard`` hint invalidated it is an error;
* a register read (or overwritten as D, or loaded into again) while the asynchronous
  load that fills it is still pending in a scoreboard slot nobody waited on is an error
  (A14); a map load without a slot is taken as complete at once (the emitter refuses
  to emit one);
* a load or store of the map whose register pair is not one the pair form
  reaches (below r0, odd, past r95: A8) is an error, as it is for the MMA's own
  operands, which the decoder checks;
* the stream is decoded from bytes, so the encoder and decoder are in the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from targets.agx.errors import AgxError, EncodingError
from targets.agx.lanes import ELEMENTS_PER_LANE, LANES, TILE, distribute, gather
from targets.agx.mma8 import MAX_REGISTER, ElemType, Hint, Mma8, check_register, decode_stream
from targets.agx.program import FragmentLoad, TileProgram

REGISTERS = MAX_REGISTER + 1


class EmulatorError(AgxError):
    """The stream did something the hardware model forbids (stale, discarded or pending read)."""


@dataclass
class RegisterFile:
    """Per-lane 32-bit registers plus the state the checks need (which registers are unusable)."""

    words: np.ndarray = field(default_factory=lambda: np.zeros((LANES, REGISTERS), dtype=np.uint32))
    discarded: set[int] = field(default_factory=set)
    pending: dict[int, int] = field(default_factory=dict)
    """register -> scoreboard slot of the outstanding load that writes it."""

    @staticmethod
    def footprint(register: int, elem: ElemType) -> range:
        return range(register, register + elem.registers)

    def write_lanes(self, register: int, elem: ElemType, values: np.ndarray) -> None:
        """Write ``(32, 2)`` per-lane elements as the pair ``register`` of type ``elem``."""
        if elem is ElemType.FP32:
            bits = np.asarray(values, dtype=np.float32).view(np.uint32)
            self.words[:, register] = bits[:, 0]
            self.words[:, register + 1] = bits[:, 1]
        elif elem is ElemType.FP16:
            halves = np.asarray(values, dtype=np.float16).view(np.uint16).astype(np.uint32)
            self.words[:, register] = halves[:, 0] | (halves[:, 1] << 16)
        else:
            raise EmulatorError(f"no register form for {elem}")
        for reg in self.footprint(register, elem):
            self.discarded.discard(reg)

    def read_lanes(self, register: int, elem: ElemType) -> np.ndarray:
        """``(32, 2)`` per-lane elements of the pair ``register``, as float64 (exact)."""
        if elem is ElemType.FP32:
            pair = np.stack([self.words[:, register], self.words[:, register + 1]], axis=1)
            return pair.view(np.float32).astype(np.float64)
        if elem is ElemType.FP16:
            low = (self.words[:, register] & 0xFFFF).astype(np.uint16)
            high = (self.words[:, register] >> 16).astype(np.uint16)
            return np.stack([low, high], axis=1).view(np.float16).astype(np.float64)
        raise EmulatorError(f"no register form for {elem}")

    def write_tile(self, register: int, elem: ElemType, tile: np.ndarray) -> None:
        self.write_lanes(register, elem, distribute(np.asarray(tile, dtype=np.float64)))

    def read_tile(self, register: int, elem: ElemType) -> np.ndarray:
        return gather(self.read_lanes(register, elem))


def _check_map_register(what: str, register: int, elem: ElemType) -> None:
    """The map's loads and stores name registers as the MMA does; refuse any the pair form cannot reach."""
    try:
        check_register(what, register, elem)
    except EncodingError as err:
        raise EmulatorError(f"fragment map: {err}") from None


def _check_readable(regs: RegisterFile, what: str, register: int, elem: ElemType, where: str) -> None:
    for reg in RegisterFile.footprint(register, elem):
        if reg in regs.discarded:
            raise EmulatorError(f"{where}: {what} reads r{reg}, which an earlier discard hint invalidated")
        if reg in regs.pending:
            raise EmulatorError(
                f"{where}: {what} reads r{reg} while its load in scoreboard slot {regs.pending[reg]} is pending")


def execute_mma8(regs: RegisterFile, desc: Mma8, where: str = "mma8") -> None:
    """Run one instruction: wait, read A/B/C, apply discards, write D."""
    for slot in desc.wait:
        regs.pending = {reg: s for reg, s in regs.pending.items() if s != slot}
    a_type, b_type = desc.effective_a_type, desc.effective_b_type
    _check_readable(regs, "A", desc.a, a_type, where)
    _check_readable(regs, "B", desc.b, b_type, where)
    a = regs.read_tile(desc.a, a_type)
    b = regs.read_tile(desc.b, b_type)
    c = np.zeros((TILE, TILE))
    if desc.reads_c:
        assert desc.c is not None
        _check_readable(regs, "C", desc.c, desc.cd_type, where)
        c = regs.read_tile(desc.c, desc.cd_type)
    for reg in RegisterFile.footprint(desc.d, desc.cd_type):
        if reg in regs.pending:
            raise EmulatorError(
                f"{where}: D overwrites r{reg} while a load into it is pending in slot {regs.pending[reg]}")
    d = (a @ b + c).astype(np.float32)
    for operand, register, elem in (("a", desc.a, a_type), ("b", desc.b, b_type), ("c", desc.c, desc.cd_type)):
        if register is not None and Hint.DISCARD in desc.hints.of_operand(operand):
            regs.discarded.update(RegisterFile.footprint(register, elem))
    regs.write_tile(desc.d, desc.cd_type, d)


TileValues = Callable[[FragmentLoad], np.ndarray]
"""The 8x8 values a fragment load delivers (already in the fragment's type)."""


def run_program(program: TileProgram, stream: bytes, values: TileValues) -> np.ndarray:
    """Decode ``stream``, play the map's loads and stores around it, return D as float32 [M, N].

    Loads are issued before the instruction the map names and marked pending in
    their slot until an instruction waits on it; stores read the D registers
    after the last instruction.
    """
    instructions = decode_stream(stream, program.form)
    regs = RegisterFile()
    for index in range(len(instructions) + 1):
        for load in program.loads_before(index):
            _check_map_register(f"load before instruction {index}", load.register, load.elem)
            for reg in RegisterFile.footprint(load.register, load.elem):
                if reg in regs.pending:  # two loads in flight to one register: which lands last is unknown
                    raise EmulatorError(f"load before instruction {index}: loads into r{reg} while the load in "
                                        f"scoreboard slot {regs.pending[reg]} into it is pending")
            tile = np.asarray(values(load), dtype=np.float64)
            regs.write_tile(load.register, load.elem, tile)
            for reg in RegisterFile.footprint(load.register, load.elem):
                if load.slot is None:
                    regs.pending.pop(reg, None)
                else:
                    regs.pending[reg] = load.slot
        if index < len(instructions):
            execute_mma8(regs, instructions[index], f"instruction {index}")
    out = np.zeros((program.m, program.n), dtype=np.float32)
    for store in program.stores:
        _check_map_register("store", store.register, ElemType.FP32)
        _check_readable(regs, "store", store.register, ElemType.FP32, "end of stream")
        out[store.row:store.row + TILE, store.col:store.col + TILE] = regs.read_tile(store.register, ElemType.FP32)
    return out


__all__ = [
    "ELEMENTS_PER_LANE",
    "EmulatorError",
    "RegisterFile",
    "execute_mma8",
    "run_program",
]
