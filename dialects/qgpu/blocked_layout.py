"""Triton's blocked layout (``#qgpu.blocked``); conventions in the docstring of ``dialects.qgpu.layouts``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from math import prod

from xdsl.ir import Attribute

from dialects.qgpu.distributed import BitField, DistributedLayout, Slot, Source, bit_field, log2


@dataclass(frozen=True)
class BlockedLayout(DistributedLayout):
    """Triton's blocked layout; conventions in ``dialects.qgpu.layouts``."""

    shape: tuple[int, ...]
    element_type: Attribute
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    value_bits: int

    @cached_property
    def rank(self) -> int:
        return len(self.shape)

    @cached_property
    def cta_tile(self) -> tuple[int, ...]:
        return tuple(s * t * w for s, t, w in
                     zip(self.size_per_thread, self.threads_per_warp, self.warps_per_cta, strict=True))

    @cached_property
    def reps(self) -> tuple[int, ...]:
        return tuple(max(1, n // c) for n, c in zip(self.shape, self.cta_tile, strict=True))

    @cached_property
    def elements_per_thread(self) -> int:
        return prod(self.size_per_thread) * prod(self.reps)

    @cached_property
    def num_warps(self) -> int:
        return prod(self.warps_per_cta)

    @cached_property
    def regs_per_thread(self) -> int:
        return -(-self.elements_per_thread // self.elements_per_register)

    @cached_property
    def elem_bits(self) -> int:
        return self.value_bits

    @cached_property
    def moduli(self) -> tuple[int | None, ...]:
        return tuple(n if r * c > n else None for n, r, c in zip(self.shape, self.reps, self.cta_tile, strict=True))

    def _strides(self, counts: Sequence[int]) -> tuple[int, ...]:
        """Id stride of each dimension when ids are split over dims along ``order``."""
        strides = [0] * self.rank
        stride = 1
        for d in self.order:
            strides[d] = stride
            stride *= counts[d]
        return tuple(strides)

    def _fields(self, source: Source, counts: Sequence[int], scales: Sequence[int]) -> tuple[BitField, ...]:
        strides = self._strides(counts)
        return tuple(f for d in self.order for f in bit_field(source, log2(strides[d]), counts[d], d, scales[d]))

    @cached_property
    def lane_fields(self) -> tuple[BitField, ...]:
        return self._fields(Source.LANE, self.threads_per_warp, self.size_per_thread)

    @cached_property
    def warp_fields(self) -> tuple[BitField, ...]:
        scales = [s * t for s, t in zip(self.size_per_thread, self.threads_per_warp, strict=True)]
        return self._fields(Source.WARP, self.warps_per_cta, scales)

    def _element_index(self, within: Sequence[int], reps: Sequence[int]) -> int:
        spt_strides = self._strides(self.size_per_thread)
        rep_strides = self._strides(self.reps)
        inner = sum(s * st for s, st in zip(within, spt_strides, strict=True))
        outer = sum(r * st for r, st in zip(reps, rep_strides, strict=True))
        return inner + prod(self.size_per_thread) * outer

    def reg_offset(self, reg: int, byte: int) -> tuple[int, ...] | None:
        index = self._index_at(reg, byte)
        if index is None or index >= self.elements_per_thread:
            return None
        outer, inner = divmod(index, prod(self.size_per_thread))
        within, reps = [0] * self.rank, [0] * self.rank
        for d in self.order:
            inner, within[d] = divmod(inner, self.size_per_thread[d])
        for d in self.order:
            outer, reps[d] = divmod(outer, self.reps[d])
        return tuple(r * c + s for r, c, s in zip(reps, self.cta_tile, within, strict=True))

    def owners(self, coords: Sequence[int]) -> list[Slot]:
        self._check_coords(coords, self.shape)
        per_dim: list[list[tuple[int, int, int, int]]] = []
        for d in range(self.rank):
            spt, tpw = self.size_per_thread[d], self.threads_per_warp[d]
            span = self.reps[d] * self.cta_tile[d]
            options = []
            for value in range(coords[d], span, self.shape[d]):
                rep, rest = divmod(value, self.cta_tile[d])
                warp_d, rest = divmod(rest, spt * tpw)
                lane_d, s = divmod(rest, spt)
                options.append((rep, warp_d, lane_d, s))
            per_dim.append(options)
        lane_strides = self._strides(self.threads_per_warp)
        warp_strides = self._strides(self.warps_per_cta)
        found = []
        for choice in product(*per_dim):
            lane = sum(c[2] * lane_strides[d] for d, c in enumerate(choice))
            warp = sum(c[1] * warp_strides[d] for d, c in enumerate(choice))
            index = self._element_index([c[3] for c in choice], [c[0] for c in choice])
            reg, byte = self._byte_of(index)
            found.append(Slot(warp, lane, reg, byte))
        return sorted(found)
