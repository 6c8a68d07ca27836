"""The PTX target: qdot IR -> LLVM IR text -> PTX (llvmlite / LLVM 22) -> cubin (ptxas).

    from targets.ptx import emit_llvm_ir, llvm_ir_to_ptx, assemble
    ptx = llvm_ir_to_ptx(emit_llvm_ir(module, "sm_120a"), "sm_120a")
    result = assemble(ptx, "sm_120a")          # result.ok, result.registers, result.cubin

Imports are lazy (attribute access), so importing the package does not load llvmlite.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "emit_llvm_ir": "targets.ptx.llvm_ir",
    "llvm_ir_to_ptx": "targets.ptx.nvptx",
    "NvptxError": "targets.ptx.nvptx",
    "assemble": "targets.ptx.ptxas",
    "PtxasResult": "targets.ptx.ptxas",
    "PtxasUnavailable": "targets.ptx.ptxas",
    "KernelResources": "targets.ptx.ptxas",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'targets.ptx' has no attribute '{name}'")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
