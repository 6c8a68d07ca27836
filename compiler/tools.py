"""Where the external tools qdot drives live (ptxas, cuobjdump, nvdisasm)."""

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
        return override if _runnable(Path(override)) else None
    return find_tool("ptxas")


def ptxas_not_found() -> str:
    """Why ``find_ptxas`` found none, as the tools say it. A QDOT_PTXAS that is set but names
    no program (a directory, say, the CUDA ``bin`` folder rather than the ptxas in it) is
    named, since "set QDOT_PTXAS" would tell the user to do what they did."""
    override = os.environ.get("QDOT_PTXAS")
    if override:
        path = Path(override)
        if path.is_dir():
            what = "a directory, not the ptxas executable"
        elif not path.exists():
            what = "which does not exist"
        else:
            what = "which is not an executable file"
        return f"ptxas not found: QDOT_PTXAS names '{override}', {what}"
    return "ptxas not found: set QDOT_PTXAS, put ptxas on PATH, or pip install nvidia-cuda-nvcc"


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


class ToolUnavailable(Exception):
    """An external tool a request needs is not on this machine: a usage problem the tools report
    as ``tool: error: ...``, not a bug of qdot."""


WHEEL_BIN_DIRS = ("nvidia/cu13/bin", "nvidia/cuda_nvcc/bin", "nvidia/cu12/bin")
"""Where NVIDIA's pip wheels put their binaries, inside site-packages and not on the PATH."""


def find_tool(name: str) -> str | None:
    """``name`` (ptxas, cuobjdump, nvdisasm) from the PATH or an NVIDIA wheel (``pip install '.[dev]'``)."""
    on_path = shutil.which(name)
    if on_path:
        return on_path
    for entry in sys.path:
        for sub in WHEEL_BIN_DIRS:
            candidate = Path(entry) / sub / name
            if candidate.is_file():
                return str(candidate)
    return None
