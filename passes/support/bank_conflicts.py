"""How many shared-memory wavefronts one warp-wide access takes, from the addresses its lanes ask for — the figure
Nsight Compute reports as "L1 Wavefronts Shared" against "… Ideal", computed at compile time from the layout
functions, so that a bank conflict shows in a remark before a GPU is at hand (run 306 needed one to find the
decoded scales' 2-way stores and the activation tile's 2-way ldmatrix rows).

The model (the CUDA programming guide's, and what ncu measured on those kernels): shared memory is 32 banks of
4-byte words; a request of ``width`` bytes per lane is served in phases of ``128 / width`` lanes (all 32 for 1-,
2- and 4-byte accesses, half-warps for 8 bytes, quarter-warps for 16); a phase takes as many wavefronts as the most
distinct words any one bank must deliver (lanes asking for the same word share it). An ldmatrix phase is one 8 × 16
byte matrix: the eight row addresses of lanes 8m … 8m + 7. The ideal is one wavefront per 32 distinct words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

BANKS = 32
WORD_BYTES = 4
PHASE_BYTES = BANKS * WORD_BYTES
"""Bytes all the banks deliver in one wavefront."""


@dataclass(frozen=True)
class Wavefronts:
    """Wavefronts of some accesses of a warp, and the fewest the same words could take."""

    taken: int = 0
    ideal: int = 0

    def __add__(self, other: Wavefronts) -> Wavefronts:
        return Wavefronts(self.taken + other.taken, self.ideal + other.ideal)

    @property
    def conflicted(self) -> bool:
        return self.taken > self.ideal

    def phrase(self) -> str:
        """``"4 wavefronts"`` or ``"8 wavefronts where 4 would do (2-way bank conflicts)"``."""
        if not self.conflicted:
            return f"{self.taken} wavefront{'s' if self.taken != 1 else ''}, no bank conflict"
        ways = self.taken / self.ideal
        way = f"{ways:.0f}-way" if ways == int(ways) else f"{ways:.2f}×"
        return f"{self.taken} wavefronts where {self.ideal} would do ({way} bank conflicts)"


def phase_wavefronts(addresses: Sequence[int], width: int) -> Wavefronts:
    """One phase: lanes at ``addresses`` (each its access's first byte) reading or writing ``width`` bytes."""
    words = {address // WORD_BYTES + i for address in addresses for i in range(max(1, width // WORD_BYTES))}
    per_bank: dict[int, int] = {}
    for word in words:
        per_bank[word % BANKS] = per_bank.get(word % BANKS, 0) + 1
    return Wavefronts(max(per_bank.values(), default=0), max(1, -(-len(words) // BANKS)) if words else 0)


def access_wavefronts(addresses: Sequence[int], width: int) -> Wavefronts:
    """A warp-wide ``ld.shared`` / ``st.shared`` of ``width`` bytes per lane, ``addresses`` lane by lane."""
    lanes = max(1, min(len(addresses), PHASE_BYTES // max(width, WORD_BYTES)))
    total = Wavefronts()
    for start in range(0, len(addresses), lanes):
        total = total + phase_wavefronts(addresses[start:start + lanes], width)
    return total


def ldmatrix_wavefronts(row_addresses: Sequence[int], matrices: int) -> Wavefronts:
    """An ``ldmatrix`` of ``matrices`` 8 × 16-byte matrices: lane 8m + r gives row r of matrix m."""
    total = Wavefronts()
    for m in range(matrices):
        total = total + phase_wavefronts(row_addresses[8 * m:8 * m + 8], 16)
    return total


__all__ = ["Wavefronts", "access_wavefronts", "ldmatrix_wavefronts", "phase_wavefronts"]
