"""What one CTA's instructions can see besides their operands: ids, memories, the grid."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from targets.ptx.emulator.memory import GlobalMemory, SharedMemory
from targets.ptx.emulator.wgmma import WgmmaState


@dataclass
class CtaState:
    """Mutable per-CTA machine state (lives for one CTA of one launch)."""

    cta: int
    grid: int
    threads: int
    shared: SharedMemory
    memory: GlobalMemory
    grid_dims: tuple[int, int, int] | None = None
    """(x, y, z) of a multi-dimensional grid; ``cta`` numbers CTAs with x fastest."""
    wgmma: WgmmaState = field(default_factory=WgmmaState)
    """Fences, groups and not-yet-retired results of the warpgroup MMAs (wgmma.py)."""
    arch: str = "sm_90"
    """Whose tensor-core arithmetic floating-point mma follows (``LaunchOptions.arch``)."""

    @property
    def dims(self) -> tuple[int, int, int]:
        return self.grid_dims or (self.grid, 1, 1)

    @property
    def ctaid(self) -> tuple[int, int, int]:
        gx, gy, _ = self.dims
        return self.cta % gx, (self.cta // gx) % gy, self.cta // (gx * gy)

    @property
    def warps(self) -> int:
        return self.threads // 32

    @property
    def tid(self) -> np.ndarray:
        return np.arange(self.threads, dtype=np.int64)
