"""From an LLVM-ready module to the artifact a user asked for: LLVM IR, PTX or a cubin.

The pass pipeline leaves kernel metadata on each kernel function (number of
warps, dynamic shared memory, argument kinds); this module gathers it next to
the text so that the runner and the benchmarks never re-derive it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from dialects.qdot.kernel import (
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


_ABOVE_LLVM_LEVEL = ("qdot.", "qgpu.")
"""The dialects whose ops and types only qdot's passes remove (qdot-to-llvm last): one left in a
module means its pipeline stopped before the LLVM-ready level, not that the input is wrong."""

_EMITS = {"llvm": "LLVM IR", "ptx": "PTX", "cubin": "a cubin", "sass": "SASS"}


def _above_llvm_level(type_: Attribute) -> bool:
    return isinstance(type_, TensorType) or getattr(type_, "name", "").startswith(_ABOVE_LLVM_LEVEL)


def check_llvm_ready(module: ModuleOp, pipeline: str, target: str) -> None:
    """Refuse a module that the custom pass pipeline ``pipeline`` left above the LLVM-ready level
    (``func``, ``arith``, ``cf`` and ``ptx`` ops on scalars and 1-D vectors) in the pipeline's terms,
    at its first qdot or qgpu op, or else at the first op with a tensor or qdot type.

    The LLVM IR emitter would otherwise stop at the first thing it cannot translate with
    ``type !qdot.ptr<f8E4M3FN> has no LLVM IR equivalent here``, which reads as a fault of the
    input when the fault is a pipeline cut short (``--pipeline ''`` on tensor-level IR). One walk,
    only for a pipeline the user gave: the default one reaches the LLVM-ready level or is a bug."""
    from compiler.diagnostics import QdotError

    first: Operation | None = None
    names: dict[str, None] = {}
    count = 0
    typed: tuple[Operation, Attribute, str] | None = None
    for op in module.walk():
        if op.name.startswith(_ABOVE_LLVM_LEVEL):
            first = first or op
            names.setdefault(op.name)
            count += 1
        elif first is None and typed is None:
            if isinstance(op, FuncOp):
                signature = (*op.function_type.inputs.data, *op.function_type.outputs.data)
                if (found := next((t for t in signature if _above_llvm_level(t)), None)) is not None:
                    typed = (op, found, "an argument or result")
            if typed is None and (found := next((t for t in op.result_types if _above_llvm_level(t)), None)):
                typed = (op, found, "a result")
    needs = (f"emitting {_EMITS.get(target, target)} needs the module lowered to the LLVM-ready level (func, arith, "
             f"cf and ptx ops on scalars and 1-D vectors): run the default pipeline's passes in its order, up to "
             f"qdot-to-llvm ({_left_out(pipeline)}qdot-translate --print-pipeline lists the default)")
    if first is not None:
        others = [name for name in names if name != first.name]
        kinds = ", ".join(others[:4]) + (f" and {len(others) - 4} more" if len(others) > 4 else "")
        dialects = " and ".join(sorted({name.split(".", 1)[0] for name in names}))
        plural = "s" if " and " in dialects else ""
        more = f" and {count - 1} more of the {dialects} dialect{plural} ({kinds})" if kinds else (
            f" and {count - 1} more like it" if count > 1 else "")
        raise QdotError(first, f"the pipeline '{pipeline}' leaves this op{more}; {needs}")
    if typed is not None:
        op, type_, what = typed
        raise QdotError(op, f"the pipeline '{pipeline}' leaves {what} of type {type_} here; {needs}")


def _left_out(pipeline: str) -> str:
    """``this one leaves out a, b; `` naming the default PTX pipeline's passes that ``pipeline`` does not run, in
    the default's order (empty where it runs them all, or does not parse)."""
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from compiler.cli.pipeline_spec import normalized
    from compiler.pipelines import PtxOptions, ptx_pipeline

    try:
        given = {spec.name for spec in parse_pipeline(normalized(pipeline))}
        default = [spec.name for spec in parse_pipeline(ptx_pipeline(PtxOptions()))]
    except (Exception, ArgSpecParseError):  # noqa: BLE001 - the names are a hint; the pipeline ran already
        return ""
    missing = [name for name in default if name not in given]
    return f"this one leaves out {', '.join(missing)}; " if missing else ""


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
