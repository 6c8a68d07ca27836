"""What every distributed layout shares: slots, the (reg, lane, warp) decomposition, ``coords``.

A layout subclass gives ``reg_offset(reg, byte)``, its lane and warp bit fields
and ``owners``; ``coords`` and ``coord_exprs`` are computed here from that one
decomposition (see ``dialects.qgpu.layouts`` for the conventions of each encoding).

Layouts are frozen dataclasses, so every quantity derived from their fields (tiles,
repetitions, bit fields, moduli) is a ``cached_property``: lowering a kernel asks for
them tens of thousands of times (``coords`` of every register byte of every tile), and
recomputing them was a third of ``qdot-to-llvm``'s time. Equality and hashing stay
those of the fields.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from xdsl.ir import Attribute
from xdsl.utils.str_enum import StrEnum

from dialects.qgpu.encodings import WARP_SIZE

REG_BYTES = 4


class Source(StrEnum):
    LANE = "lane"
    WARP = "warp"


@dataclass(frozen=True)
class BitField:
    """``((source >> shift) & (2^width - 1)) · scale``, added to coordinate ``dim``."""

    source: Source
    shift: int
    width: int
    dim: int
    scale: int

    def value(self, warp: int, lane: int) -> int:
        x = lane if self.source == Source.LANE else warp
        return ((x >> self.shift) & ((1 << self.width) - 1)) * self.scale


@dataclass(frozen=True)
class CoordExpr:
    """One coordinate of one register byte: ``(constant + Σ fields) % modulus``."""

    constant: int
    fields: tuple[BitField, ...]
    modulus: int | None
    """None when the sum never reaches the dimension's size."""

    def evaluate(self, warp: int, lane: int) -> int:
        value = self.constant + sum(f.value(warp, lane) for f in self.fields)
        return value % self.modulus if self.modulus is not None else value


class Slot(NamedTuple):
    """One byte of one register of one thread."""

    warp: int
    lane: int
    reg: int
    byte: int


def log2(value: int) -> int:
    return value.bit_length() - 1


def bit_field(source: Source, shift: int, count: int, dim: int, scale: int) -> tuple[BitField, ...]:
    """A field over ``count`` (a power of two) consecutive ids; none when count is 1."""
    return (BitField(source, shift, log2(count), dim, scale),) if count > 1 else ()


class DistributedLayout(ABC):
    """A tensor spread over the 32-bit registers of a CTA's threads (conventions: ``dialects.qgpu.layouts``)."""

    shape: tuple[int, ...]
    element_type: Attribute

    @property
    @abstractmethod
    def num_warps(self) -> int: ...

    @property
    @abstractmethod
    def regs_per_thread(self) -> int:
        """32-bit registers each thread holds for the tensor."""

    @property
    @abstractmethod
    def elem_bits(self) -> int:
        """Bits one value occupies in a register (8 for fp4Unpacked values)."""

    @property
    @abstractmethod
    def lane_fields(self) -> tuple[BitField, ...]: ...

    @property
    @abstractmethod
    def warp_fields(self) -> tuple[BitField, ...]: ...

    @abstractmethod
    def reg_offset(self, reg: int, byte: int) -> tuple[int, ...] | None:
        """The part of the coordinates fixed by (reg, byte); None if that byte holds no element start."""

    @abstractmethod
    def owners(self, coords: Sequence[int]) -> list[Slot]:
        """Every (warp, lane, reg, byte) holding element ``coords``, sorted."""

    @cached_property
    def coord_rank(self) -> int:
        return len(self.shape)

    @cached_property
    def moduli(self) -> tuple[int | None, ...]:
        """Per coordinate: the size the sum wraps at, None when it never wraps."""
        return (None,) * self.coord_rank

    @cached_property
    def elem_bytes(self) -> int:
        return self.elem_bits // 8

    @cached_property
    def elements_per_register(self) -> int:
        return REG_BYTES // self.elem_bytes

    def _check_slot(self, warp: int, lane: int, reg: int, byte: int) -> None:
        if not (0 <= warp < self.num_warps and 0 <= lane < WARP_SIZE and 0 <= reg < self.regs_per_thread
                and 0 <= byte < REG_BYTES):
            raise IndexError(
                f"slot (warp {warp}, lane {lane}, reg {reg}, byte {byte}) outside {self.num_warps} warps × "
                f"{WARP_SIZE} lanes × {self.regs_per_thread} registers × {REG_BYTES} bytes")

    def _check_coords(self, coords: Sequence[int], bounds: Sequence[int]) -> None:
        if len(coords) != len(bounds) or any(not 0 <= c < n for c, n in zip(coords, bounds, strict=True)):
            raise IndexError(f"coordinates {tuple(coords)} outside {list(bounds)}")

    def coords(self, warp: int, lane: int, reg: int, byte: int) -> tuple[int, ...] | None:
        """The element byte ``byte`` of register ``reg`` of thread (warp, lane) holds, or None."""
        self._check_slot(warp, lane, reg, byte)
        offset = self.reg_offset(reg, byte)
        if offset is None:
            return None
        values = list(offset)
        for f in (*self.lane_fields, *self.warp_fields):
            values[f.dim] += f.value(warp, lane)
        return tuple(v % m if m is not None else v for v, m in zip(values, self.moduli, strict=True))

    def coord_exprs(self, reg: int, byte: int) -> tuple[CoordExpr, ...] | None:
        """Each coordinate of (reg, byte) as a function of (warp, lane), for lowering."""
        self._check_slot(0, 0, reg, byte)
        offset = self.reg_offset(reg, byte)
        if offset is None:
            return None
        fields = (*self.lane_fields, *self.warp_fields)
        return tuple(CoordExpr(offset[d], tuple(f for f in fields if f.dim == d), self.moduli[d])
                     for d in range(self.coord_rank))

    def slots(self) -> Iterator[tuple[int, int]]:
        """(reg, byte) of every byte that starts an element, in register order."""
        for reg in range(self.regs_per_thread):
            for byte in range(0, REG_BYTES, self.elem_bytes):
                if self.reg_offset(reg, byte) is not None:
                    yield reg, byte

    def thread_coords(self, warp: int, lane: int) -> Iterator[tuple[int, int, tuple[int, ...]]]:
        """(reg, byte, coords) of every element thread (warp, lane) holds."""
        for reg, byte in self.slots():
            coords = self.coords(warp, lane, reg, byte)
            assert coords is not None
            yield reg, byte, coords

    def _byte_of(self, index: int) -> tuple[int, int]:
        """Register and byte of the ``index``-th element of a thread packed by width."""
        reg, position = divmod(index, self.elements_per_register)
        return reg, position * self.elem_bytes

    def _index_at(self, reg: int, byte: int) -> int | None:
        if byte % self.elem_bytes:
            return None
        return reg * self.elements_per_register + byte // self.elem_bytes
