"""The mma.sync layouts: accumulator (``#qgpu.mma``), operands (``#qgpu.dot_op``), scales (``#qgpu.dot_scale``).

Conventions and PTX ISA references: the docstring of ``dialects.qgpu.layouts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from xdsl.ir import Attribute
from xdsl.utils.str_enum import StrEnum

from dialects.qgpu.distributed import BitField, DistributedLayout, Slot, Source, bit_field, log2
from dialects.qgpu.encodings import MmaEncodingAttr

MMA_M = 16
MMA_N = 8


def warps_of_mma(mma: MmaEncodingAttr) -> tuple[int, int]:
    wm, wn = mma.warps_per_cta
    return wm, wn


@dataclass(frozen=True)
class MmaLayout(DistributedLayout):
    """The m16n8 accumulator (C/D) layout; conventions in ``dialects.qgpu.layouts``.

    32-bit elements (the f32/i32 accumulators) take one register each, c0..c3 per
    instruction tile. 16-bit elements (an accumulator converted to bf16/f16 for the
    epilogue, ``arith.truncf``) keep the same element-to-thread map, two to a register:
    (c0, c1) in one, (c2, c3) in the next, the even column in the low half — the pairs
    ``cvt.rn.bf16x2.f32`` makes and a 4-byte store writes.
    """

    shape: tuple[int, ...]
    element_type: Attribute
    warps_m: int
    warps_n: int
    bits: int = 32

    @cached_property
    def num_warps(self) -> int:
        return self.warps_m * self.warps_n

    @cached_property
    def rep_m(self) -> int:
        return self.shape[0] // (MMA_M * self.warps_m)

    @cached_property
    def rep_n(self) -> int:
        return self.shape[1] // (MMA_N * self.warps_n)

    @cached_property
    def regs_per_tile(self) -> int:
        """Registers of one 16×8 instruction tile: 4 (32-bit elements) or 2 (16-bit)."""
        return 4 * self.bits // 32

    @cached_property
    def regs_per_thread(self) -> int:
        return self.rep_m * self.rep_n * self.regs_per_tile

    @cached_property
    def elem_bits(self) -> int:
        return self.bits

    @cached_property
    def lane_fields(self) -> tuple[BitField, ...]:
        return (BitField(Source.LANE, 2, 3, 0, 1), BitField(Source.LANE, 0, 2, 1, 2))

    @cached_property
    def warp_fields(self) -> tuple[BitField, ...]:
        return (*bit_field(Source.WARP, 0, self.warps_m, 0, MMA_M),
                *bit_field(Source.WARP, log2(self.warps_m), self.warps_n, 1, MMA_N))

    def tile_registers(self, rm: int, rn: int) -> tuple[int, ...]:
        """Registers c0..c3 of the accumulator of instruction tile (rm, rn) (32-bit elements)."""
        assert self.bits == 32, "an mma accumulates into 32-bit elements"
        base = (rm * self.rep_n + rn) * 4
        return tuple(range(base, base + 4))

    def reg_offset(self, reg: int, byte: int) -> tuple[int, ...] | None:
        if byte % (self.bits // 8):
            return None
        tile, within = divmod(reg, self.regs_per_tile)
        i = within * (32 // self.bits) + byte // (self.bits // 8)  # c0..c3
        rm, rn = divmod(tile, self.rep_n)
        return (rm * MMA_M * self.warps_m + 8 * (i >> 1), rn * MMA_N * self.warps_n + (i & 1))

    def owners(self, coords: Sequence[int]) -> list[Slot]:
        self._check_coords(coords, self.shape)
        m, n = coords
        wm, rm, mi = (m // MMA_M) % self.warps_m, m // (MMA_M * self.warps_m), m % MMA_M
        wn, rn, ni = (n // MMA_N) % self.warps_n, n // (MMA_N * self.warps_n), n % MMA_N
        i = 2 * (mi >> 3) + (ni & 1)  # c0..c3
        per_reg = 32 // self.bits
        reg = (rm * self.rep_n + rn) * self.regs_per_tile + i // per_reg
        return [Slot(wm + self.warps_m * wn, 4 * (mi & 7) + (ni >> 1), reg, (i % per_reg) * (self.bits // 8))]


class KMode(StrEnum):
    """How a dot operand arranges K inside its k-tiles (conventions in ``dialects.qgpu.layouts``)."""

    ISA = "isa"
    """kWidth = kpr: the PTX fragment itself."""
    PAIRED = "paired"
    """kWidth = 2·kpr: 2·kpr consecutive k per thread within one k-tile."""
    LARGE_K = "large_k"
    """kWidth = 4·kpr: 4·kpr consecutive k per thread over two k-tiles."""


@dataclass(frozen=True)
class DotOperandLayout(DistributedLayout):
    """An mma A (opIdx 0) or B (opIdx 1) operand in registers; conventions in ``dialects.qgpu.layouts``."""

    shape: tuple[int, ...]
    element_type: Attribute
    op_idx: int
    warps_m: int
    warps_n: int
    k_width: int
    """As in the encoding: in tensor elements (packed bytes for fp4Unpacked)."""
    fp4_unpacked: bool
    value_bits: int
    """Bits of one value in a register: 8 or 16."""

    @cached_property
    def is_a(self) -> bool:
        return self.op_idx == 0

    @cached_property
    def values_per_reg(self) -> int:
        """kpr."""
        return 32 // self.value_bits

    @cached_property
    def k_tile(self) -> int:
        """Kt: values along K of one mma instruction (256 bits of a row)."""
        return 8 * self.values_per_reg

    @cached_property
    def k_width_values(self) -> int:
        """w: consecutive K values a thread holds, in register values."""
        return self.k_width * (2 if self.fp4_unpacked else 1)

    @cached_property
    def k_mode(self) -> KMode:
        ratio = self.k_width_values // self.values_per_reg
        return {1: KMode.ISA, 2: KMode.PAIRED, 4: KMode.LARGE_K}[ratio]

    @cached_property
    def k_dim(self) -> int:
        return 1 if self.is_a else 0

    @cached_property
    def mn_dim(self) -> int:
        return 0 if self.is_a else 1

    @cached_property
    def k_values(self) -> int:
        """K counted in register values (fp4 values for fp4Unpacked)."""
        return self.shape[self.k_dim] * (2 if self.fp4_unpacked else 1)

    @cached_property
    def rep_k(self) -> int:
        return self.k_values // self.k_tile

    @cached_property
    def mn_tile(self) -> int:
        """Rows (A) or columns (B) of the CTA tile: 16·WM or 8·WN."""
        return MMA_M * self.warps_m if self.is_a else MMA_N * self.warps_n

    @cached_property
    def rep_mn(self) -> int:
        return self.shape[self.mn_dim] // self.mn_tile

    @cached_property
    def regs_per_tile(self) -> int:
        return 4 if self.is_a else 2

    @cached_property
    def num_warps(self) -> int:
        return self.warps_m * self.warps_n

    @cached_property
    def regs_per_thread(self) -> int:
        return self.rep_mn * self.rep_k * self.regs_per_tile

    @cached_property
    def elem_bits(self) -> int:
        return self.value_bits

    @cached_property
    def coord_rank(self) -> int:
        return 3 if self.fp4_unpacked else 2

    @cached_property
    def lane_fields(self) -> tuple[BitField, ...]:
        k_scale = self.k_width_values // 2 if self.fp4_unpacked else self.k_width_values
        return (BitField(Source.LANE, 2, 3, self.mn_dim, 1), BitField(Source.LANE, 0, 2, self.k_dim, k_scale))

    @cached_property
    def warp_fields(self) -> tuple[BitField, ...]:
        if self.is_a:
            return bit_field(Source.WARP, 0, self.warps_m, 0, MMA_M)
        return bit_field(Source.WARP, log2(self.warps_m), self.warps_n, 1, MMA_N)

    def tile_registers(self, rmn: int, rk: int) -> tuple[int, ...]:
        """Fragment registers (a0..a3 or b0..b1) of instruction tile (rm or rn, rk)."""
        base = (rmn * self.rep_k + rk) * self.regs_per_tile
        return tuple(range(base, base + self.regs_per_tile))

    def _k_of(self, rk: int, c: int, j: int) -> int:
        """K value of byte/half j of column half c in k-tile rk, without the lane part w·t."""
        kpr, kt = self.values_per_reg, self.k_tile
        if self.k_mode == KMode.ISA:
            return rk * kt + c * (kt // 2) + j
        if self.k_mode == KMode.PAIRED:
            return rk * kt + c * kpr + j
        return (rk // 2) * 2 * kt + (rk % 2) * 2 * kpr + c * kpr + j

    def _decode_k(self, k: int) -> tuple[int, int, int, int]:
        """(rk, c, t, j) holding K value k: the inverse of ``_k_of`` + w·t."""
        kpr, kt, w = self.values_per_reg, self.k_tile, self.k_width_values
        if self.k_mode == KMode.ISA:
            rk, within = divmod(k, kt)
            c, rest = divmod(within, kt // 2)
            t, j = divmod(rest, kpr)
            return rk, c, t, j
        if self.k_mode == KMode.PAIRED:
            rk, within = divmod(k, kt)
            t, rest = divmod(within, w)
            c, j = divmod(rest, kpr)
            return rk, c, t, j
        block, within = divmod(k, 2 * kt)
        t, rest = divmod(within, w)
        s, rest = divmod(rest, 2 * kpr)
        c, j = divmod(rest, kpr)
        return 2 * block + s, c, t, j

    def instruction_k(self, rk: int) -> list[tuple[int, int]]:
        """(position in the instruction's K, logical K) of every K value of k-tile ``rk``, in register values.

        The position is where the PTX fragment puts the value (``kpr·t + c·Kt/2 + j``);
        the logical K is where this layout puts it. Equal in the ISA mode; scale
        checks use this to see which scale group each instruction chunk touches.
        """
        kpr, kt, w = self.values_per_reg, self.k_tile, self.k_width_values
        return [(kpr * t + c * (kt // 2) + j, self._k_of(rk, c, j) + w * t)
                for t in range(4) for c in range(2) for j in range(kpr)]

    def reg_offset(self, reg: int, byte: int) -> tuple[int, ...] | None:
        value_bytes = self.value_bits // 8
        if byte % value_bytes:
            return None
        j = byte // value_bytes
        tile, r = divmod(reg, self.regs_per_tile)
        rmn, rk = divmod(tile, self.rep_k)
        h, c = (r & 1, r >> 1) if self.is_a else (0, r)
        mn = rmn * self.mn_tile + 8 * h
        k = self._k_of(rk, c, j)
        if self.fp4_unpacked:
            return (mn, k >> 1, k & 1) if self.is_a else (k >> 1, mn, k & 1)
        return (mn, k) if self.is_a else (k, mn)

    def owners(self, coords: Sequence[int]) -> list[Slot]:
        bounds = (*self.shape, 2) if self.fp4_unpacked else self.shape
        self._check_coords(coords, bounds)
        mn, k = coords[self.mn_dim], coords[self.k_dim]
        if self.fp4_unpacked:
            k = 2 * k + coords[2]
        rk, c, t, j = self._decode_k(k)
        if self.is_a:
            w_own, rmn, within = (mn // MMA_M) % self.warps_m, mn // self.mn_tile, mn % MMA_M
            r = 2 * c + (within >> 3)
            g = within & 7
            warps = [w_own + self.warps_m * wn for wn in range(self.warps_n)]
        else:
            w_own, rmn, g = (mn // MMA_N) % self.warps_n, mn // self.mn_tile, mn % MMA_N
            r = c
            warps = [wm + self.warps_m * w_own for wm in range(self.warps_m)]
        reg = (rmn * self.rep_k + rk) * self.regs_per_tile + r
        return sorted(Slot(w, 4 * g + t, reg, j * (self.value_bits // 8)) for w in warps)


@dataclass(frozen=True)
class DotScaleLayout(DistributedLayout):
    """Per-block scales held by the threads whose accumulator rows (A) / columns (B) they scale."""

    shape: tuple[int, ...]
    element_type: Attribute
    op_idx: int
    warps_m: int
    warps_n: int
    value_bits: int
    operand_side: bool = False
    """B scales by operand column (g) instead of accumulator columns (2t, 2t+1)."""

    @cached_property
    def is_a(self) -> bool:
        return self.op_idx == 0

    @cached_property
    def halves(self) -> int:
        """Rows/columns per instruction tile a thread holds: A rows g, g+8; B accumulator
        columns 2t, 2t+1; B operand column g."""
        return 1 if (self.operand_side and not self.is_a) else 2

    @cached_property
    def num_blocks(self) -> int:
        """KB: scales per row (A) or column (B)."""
        return self.shape[1]

    @cached_property
    def mn_tile(self) -> int:
        return MMA_M * self.warps_m if self.is_a else MMA_N * self.warps_n

    @cached_property
    def rep(self) -> int:
        return self.shape[0] // self.mn_tile

    @cached_property
    def elements_per_thread(self) -> int:
        return self.rep * self.halves * self.num_blocks

    @cached_property
    def num_warps(self) -> int:
        return self.warps_m * self.warps_n

    @cached_property
    def regs_per_thread(self) -> int:
        return -(-self.elements_per_thread // self.elements_per_register)

    @cached_property
    def elem_bits(self) -> int:
        return self.value_bits

    @cached_property
    def lane_fields(self) -> tuple[BitField, ...]:
        if self.is_a or self.operand_side:
            return (BitField(Source.LANE, 2, 3, 0, 1),)
        return (BitField(Source.LANE, 0, 2, 0, 2),)

    @cached_property
    def warp_fields(self) -> tuple[BitField, ...]:
        if self.is_a:
            return bit_field(Source.WARP, 0, self.warps_m, 0, MMA_M)
        return bit_field(Source.WARP, log2(self.warps_m), self.warps_n, 0, MMA_N)

    def element_slot(self, rep: int, half: int, block: int) -> tuple[int, int]:
        """(reg, byte) of the scale of row/column half ``half`` of repetition ``rep``, K block ``block``."""
        return self._byte_of((rep * self.halves + half) * self.num_blocks + block)

    def reg_offset(self, reg: int, byte: int) -> tuple[int, ...] | None:
        index = self._index_at(reg, byte)
        if index is None or index >= self.elements_per_thread:
            return None
        pair, block = divmod(index, self.num_blocks)
        rep, half = divmod(pair, self.halves)
        return (rep * self.mn_tile + (8 * half if self.is_a else half), block)

    def owners(self, coords: Sequence[int]) -> list[Slot]:
        self._check_coords(coords, self.shape)
        mn, block = coords
        if self.is_a:
            w_own, rep, within = (mn // MMA_M) % self.warps_m, mn // self.mn_tile, mn % MMA_M
            half, g = within >> 3, within & 7
            lanes = [4 * g + t for t in range(4)]
            warps = [w_own + self.warps_m * wn for wn in range(self.warps_n)]
        elif self.operand_side:
            w_own, rep, g = (mn // MMA_N) % self.warps_n, mn // self.mn_tile, mn % MMA_N
            half = 0
            lanes = [4 * g + t for t in range(4)]
            warps = [wm + self.warps_m * w_own for wm in range(self.warps_m)]
        else:
            w_own, rep, within = (mn // MMA_N) % self.warps_n, mn // self.mn_tile, mn % MMA_N
            half, t = within & 1, within >> 1
            lanes = [4 * g + t for g in range(8)]
            warps = [wm + self.warps_m * w_own for wm in range(self.warps_m)]
        reg, byte = self.element_slot(rep, half, block)
        return sorted(Slot(w, lane, reg, byte) for w in warps for lane in lanes)
