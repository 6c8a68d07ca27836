"""Whether a module a custom pass pipeline left is at the LLVM-ready level, said in the pipeline's terms.

Only a pipeline the user gave can stop short (``--pipeline ''`` on tensor-level IR); the LLVM IR emitter
would then stop at the first thing it cannot translate, in words that blame the input. ``compile_module``
asks this first when it is given the pipeline.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation


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

    from compiler.cli.pipeline_spec import normalized
    from compiler.pipelines import PtxOptions, ptx_pipeline

    try:
        given = {spec.name for spec in parse_pipeline(normalized(pipeline))}
        default = [spec.name for spec in parse_pipeline(ptx_pipeline(PtxOptions()))]
    except Exception:  # noqa: BLE001 - the names are a hint; the pipeline ran already
        return ""
    missing = [name for name in default if name not in given]
    return f"this one leaves out {', '.join(missing)}; " if missing else ""


__all__ = ["check_llvm_ready"]
