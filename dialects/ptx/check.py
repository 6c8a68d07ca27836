"""`check_arch`: reject, with a diagnostic, the first instruction a target cannot run.

LLVM 22 aborts the whole process on an intrinsic the target cannot select (ptx.md §5),
so the emitter calls this before LLVM ever sees the IR.
"""

from __future__ import annotations

from xdsl.ir import Operation

from compiler.diagnostics import QdotError
from dialects.ptx.arch import Arch, PtxVersion
from dialects.ptx.base import PtxInstruction


def check_arch(module: Operation, arch: Arch | str, ptx_version: PtxVersion | None = None) -> None:
    """Raise `QdotError` at the first `ptx` op that `arch` (at `ptx_version`) does not accept.

    Without `ptx_version` only the target is checked: `Arch.default_ptx` is high enough for
    every instruction the target accepts. An unknown `arch` is a `QdotError` on `module`.
    """
    try:
        target = Arch.parse(arch) if isinstance(arch, str) else arch
    except ValueError as err:
        raise QdotError(module, str(err)) from None
    for op in _ptx_instructions(module, []):
        for needed in op.requirements():
            if (problem := needed.problem(target, ptx_version)) is not None:
                raise QdotError(op, problem)


def _ptx_instructions(op: Operation, found: list[PtxInstruction]) -> list[PtxInstruction]:
    """The ``ptx`` ops in ``op`` in ``walk()`` order, collected by following the block links:
    a lowered kernel has thousands of ops, and xDSL's generator-based ``walk`` costs several
    times as much on it."""
    if isinstance(op, PtxInstruction):
        found.append(op)
    for region in op.regions:
        for block in region.blocks:
            child = block.first_op
            while child is not None:
                if child.regions:
                    _ptx_instructions(child, found)
                elif isinstance(child, PtxInstruction):
                    found.append(child)
                child = child.next_op
    return found
