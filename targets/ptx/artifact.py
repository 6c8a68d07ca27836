"""From an LLVM-ready module to the artifact a user asked for: LLVM IR, PTX or a cubin.

The pass pipeline leaves kernel metadata on each kernel function (number of
warps, dynamic shared memory, argument kinds); this module gathers it next to
the text so that the runner and the benchmarks never re-derive it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

from dialects.qdot.kernel_attrs import (
    ARG_KINDS_ATTR,
    DIVISIBILITY_ATTR,
    KERNEL_ATTR,
    NUM_WARPS_ATTR,
    SHARED_BYTES_ATTR,
    WAIT_PREVIOUS_GRID_ATTR,
)
from targets.ptx.kernel_info import KernelInfo

if TYPE_CHECKING:
    from targets.ptx.nvptx import Phase


@dataclass(frozen=True)
class Artifact:
    target: str
    arch: str
    data: str | bytes
    kernels: tuple[KernelInfo, ...] = ()
    llvm_ir: str | None = None
    ptx: str | None = None
    report: str | None = None
    ptxas: tuple = field(default=())  # PtxasResult per assembly, when verified


def _int_attr(func: FuncOp, name: str, default: int) -> int:
    attr = func.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return default


def _arg_divisibility(func: FuncOp) -> tuple[int, ...]:
    """``qdot.divisibility`` per argument (1 where none), () when no argument has one."""
    if func.arg_attrs is None:
        return ()
    values = []
    for attrs in func.arg_attrs.data:
        div = attrs.data.get(DIVISIBILITY_ATTR)
        values.append(int(div.value.data) if isinstance(div, IntegerAttr) else 1)
    return tuple(values) if any(v > 1 for v in values) else ()


def kernel_infos(module: ModuleOp) -> tuple[KernelInfo, ...]:
    infos: list[KernelInfo] = []
    for op in module.walk():
        if isinstance(op, FuncOp) and KERNEL_ATTR in op.attributes:
            kinds_attr = op.attributes.get(ARG_KINDS_ATTR)
            kinds: tuple[str, ...] = ()
            if kinds_attr is not None:
                kinds = tuple(s.data for s in kinds_attr.data if isinstance(s, StringAttr))  # type: ignore[attr-defined]
            infos.append(
                KernelInfo(
                    name=op.sym_name.data,
                    num_warps=_int_attr(op, NUM_WARPS_ATTR, 4),
                    shared_bytes=_int_attr(op, SHARED_BYTES_ATTR, 0),
                    arg_kinds=kinds,
                    waits_previous_grid=WAIT_PREVIOUS_GRID_ATTR in op.attributes,
                    arg_divisibility=_arg_divisibility(op),
                )
            )
    return tuple(infos)


def compile_module(module: ModuleOp, *, arch: str, target: str, verify: bool = False,
                   module_verified: bool = False, phase: Phase | None = None,
                   pipeline: str | None = None) -> Artifact:
    """Emit ``target`` ("llvm", "ptx", "cubin" or "sass") from a module already through ``qdot-to-llvm``.

    ``verify`` runs ptxas on the result; ``module_verified=True`` says the caller has just
    verified ``module`` (a pass pipeline does after its last pass), so it is not verified again.
    ``emit_llvm_ir`` rejects instructions ``arch`` cannot run (``check_arch``) before LLVM sees them.
    ``phase(name)``, when given, is a context manager around each step (the tools' ``--timing``).
    ``pipeline``: the pass pipeline the user gave in place of the default one (qdot-translate's and
    qdot-bench's ``--pipeline``, ``compiler.compile(pipeline=...)``), which ``check_llvm_ready``
    holds the module's level against; None for the default pipeline.
    """
    from targets.ptx.llvm_ir import emit_llvm_ir
    from targets.ptx.nvptx import llvm_ir_to_ptx, untimed

    if pipeline is not None:
        from targets.ptx.llvm_ready import check_llvm_ready

        check_llvm_ready(module, pipeline, target)
    timed = phase or untimed
    kernels = kernel_infos(module)
    with timed("LLVM IR emission"):
        llvm_ir = emit_llvm_ir(module, arch, verify=not module_verified)
    if target == "llvm" and not verify:
        return Artifact("llvm", arch, llvm_ir, kernels, llvm_ir=llvm_ir)
    ptx = llvm_ir_to_ptx(llvm_ir, arch, phase=phase)
    report = None
    results: tuple = ()
    cubin = None
    if verify or target in ("cubin", "sass"):
        from targets.ptx.ptxas import assemble

        with timed("ptxas"):
            result = assemble(ptx, arch, verbose=True)
        results = (result,)
        report = result.log.strip()
        if not result.ok:
            from compiler.diagnostics import QdotError

            raise QdotError(None, f"ptxas rejected the PTX for {arch}:\n{result.log.strip()}")
        cubin = result.cubin
    data: str | bytes = {"llvm": llvm_ir, "ptx": ptx}.get(target, cubin or b"")
    if target == "sass":
        from targets.ptx.sass import disassemble

        with timed("cuobjdump -sass"):
            data = disassemble(cubin or b"")
    return Artifact(target, arch, data, kernels, llvm_ir=llvm_ir, ptx=ptx, report=report, ptxas=results)
