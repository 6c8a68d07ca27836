"""Where the external tools qdot drives live (ptxas, cuobjdump)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def find_ptxas() -> str | None:
    """ptxas from $QDOT_PTXAS, the PATH, or the ``nvidia-cuda-nvcc`` wheel (``pip install '.[dev]'``).

    The wheel puts the binary inside site-packages, not on the PATH, so a fresh
    machine with only pip-installed tools still has an assembler to referee our PTX.
    """
    override = os.environ.get("QDOT_PTXAS")
    if override:
        return override if Path(override).is_file() else None
    on_path = shutil.which("ptxas")
    if on_path:
        return on_path
    for entry in sys.path:
        for sub in ("nvidia/cu13/bin/ptxas", "nvidia/cuda_nvcc/bin/ptxas", "nvidia/cu12/bin/ptxas"):
            candidate = Path(entry) / sub
            if candidate.is_file():
                return str(candidate)
    return None
