"""What one CTA's instructions can see besides their operands: ids, memories, the grid."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from targets.ptx.emulator.memory import GlobalMemory, SharedMemory


@dataclass
class CtaState:
    """Mutable per-CTA machine state (lives for one CTA of one launch)."""

    cta: int
    grid: int
    threads: int
    shared: SharedMemory
    memory: GlobalMemory

    @property
    def warps(self) -> int:
        return self.threads // 32

    @property
    def tid(self) -> np.ndarray:
        return np.arange(self.threads, dtype=np.int64)
