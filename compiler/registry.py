"""The one list of every dialect, pass and target qdot knows.

Entries name a module and an attribute instead of importing them, so a tool
pays only for what its command line uses (cold compile latency is a goal).
Adding a pass means adding one line here and one module under ``passes/``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass

# name -> (module, attribute)
DIALECTS: dict[str, tuple[str, str]] = {
    "builtin": ("xdsl.dialects.builtin", "Builtin"),
    "func": ("xdsl.dialects.func", "Func"),
    "arith": ("xdsl.dialects.arith", "Arith"),
    "scf": ("xdsl.dialects.scf", "Scf"),
    "cf": ("xdsl.dialects.cf", "Cf"),
    "math": ("xdsl.dialects.math", "Math"),
    "llvm": ("xdsl.dialects.llvm", "LLVM"),
    "test": ("xdsl.dialects.test", "Test"),
    "qdot": ("dialects.qdot", "QDot"),
    "qgpu": ("dialects.qgpu", "QGPU"),
    "ptx": ("dialects.ptx", "PTX"),
    "agx": ("dialects.agx", "AGX"),
}

TEST_DIALECTS = {"test": "xDSL's test dialect (\"test.op\"() with any operands, results and attributes), "
                          "for lit tests of attributes and types"}
"""Dialects the parser takes for testing only, which ``--show-dialects`` says in a line."""

# CLI name -> (module, class). One pass per module; each has tests/lit/<name>/.
PASSES: dict[str, tuple[str, str]] = {
    "qdot-lower-quantize": ("passes.lower_quantize", "LowerQuantizePass"),
    "qdot-accelerate-matmul": ("passes.accelerate_matmul", "AccelerateMatmulPass"),
    "qdot-optimize-dot-operands": ("passes.optimize_dot_operands", "OptimizeDotOperandsPass"),
    "qdot-pipeline": ("passes.pipeline", "PipelinePass"),
    "qdot-lower-local-load": ("passes.lower_local_load", "LowerLocalLoadPass"),
    "qdot-lower-mma": ("passes.lower_mma", "LowerMmaPass"),
    "qdot-to-llvm": ("passes.to_llvm", "ToLLVMPass"),
    "qdot-to-agx": ("passes.qdot_to_agx", "QdotToAgxPass"),
    "agx-allocate-registers": ("passes.agx_allocate_registers", "AgxAllocateRegistersPass"),
    "agx-hints-and-waits": ("passes.agx_hints_and_waits", "AgxHintsAndWaitsPass"),
    # Generic xDSL passes that are useful between ours.
    "canonicalize": ("xdsl.transforms.canonicalize", "CanonicalizePass"),
    "cse": ("xdsl.transforms.common_subexpression_elimination", "CommonSubexpressionElimination"),
    "dce": ("xdsl.transforms.dead_code_elimination", "DeadCodeElimination"),
    "convert-scf-to-cf": ("xdsl.transforms.convert_scf_to_cf", "ConvertScfToCf"),
}


GENERIC_PASS_SUMMARIES = {
    "canonicalize": "xDSL's canonicalization patterns of every op",
    "cse": "common subexpression elimination (xDSL)",
    "dce": "dead code elimination (xDSL)",
    "convert-scf-to-cf": "scf.for / scf.if to unstructured control flow (xDSL)",
}
"""What the generic passes do, for the tools' --help (ours say it in their module's docstring)."""


def load(entry: tuple[str, str]) -> Any:
    module, attribute = entry
    return getattr(importlib.import_module(module), attribute)


def dialect_factory(name: str) -> Callable[[], Dialect]:
    return lambda: load(DIALECTS[name])


def pass_factory(name: str) -> Callable[[], type[ModulePass]]:
    return lambda: load(PASSES[name])


def pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    return {name: pass_factory(name) for name in PASSES}


def make_context(allow_unregistered: bool = False) -> Context:
    """A context that knows every dialect above, loaded on first use."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name in DIALECTS:
        ctx.register_dialect(name, dialect_factory(name))
    return ctx
