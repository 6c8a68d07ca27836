"""The default pass pipelines, one per target, as pass-pipeline strings.

They are strings (not pass objects) so that ``qdot-translate --print-pipeline``
shows exactly what ``qdot-opt -p`` would run, and a user can copy, edit and
re-run any prefix of them.
"""

from __future__ import annotations

from dataclasses import dataclass

PTX_ARCHES = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_120a", "sm_120f", "sm_121a")
STRATEGIES = ("auto", "native", "promote-fp8", "promote-int8", "dequant-bf16")
AGX_FORMS = ("agx3b", "agx3c")
TARGETS = ("mlir", "llvm", "ptx", "cubin", "sass", *AGX_FORMS)
"""What qdot-translate emits; ``compiler.compile`` all but ``mlir`` (qdot-opt's job)."""
Q4K_FOLDS = ("auto", "mma", "fma")
"""Values of qdot-accelerate-matmul's ``q4k-fold`` (see ``AccelerateMatmulPass``)."""


MAX_STAGES = 16
"""The deepest software pipeline qdot builds (qdot-pipeline's num-stages, --num-stages): every
stage holds a tile of each operand in shared memory, so 16 stages of the smallest tile already
exceed what a CTA may have, and a huge count only made the pass run for minutes before the
shared-memory refusal (num-stages=100000: 46 s)."""


def stages_problem(what: str, value: object) -> str | None:
    """The one wording of a pipeline depth out of range, for ``what`` (a flag, an argument)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_STAGES:
        return f"{what} must be an integer from 1 (no pipelining) to {MAX_STAGES}, got {value!r}"
    return None


@dataclass(frozen=True)
class PtxOptions:
    arch: str = "sm_90"
    strategy: str = "auto"
    num_stages: int = 3
    q4k_fold: str = "auto"
    """qdot-accelerate-matmul's ``q4k-fold`` (how the q4_K / q5_K dmin term is applied); left out of
    the pipeline text when ``auto``."""
    epilogue: str = "direct"
    """qdot-to-llvm's ``epilogue`` (``staged``: an f32 C through shared memory); left out of
    the pipeline text when ``direct``."""
    guard_copies: bool = True
    """qdot-pipeline's ``guard-copies`` (a K split's loop copies a declared tile only where it runs its K
    position); left out of the pipeline text when true."""
    pad_block_rows: bool = False
    """qdot-accelerate-matmul's ``pad-block-rows``; left out of the pipeline text when false."""
    swizzle_fold_buffers: bool = False
    """qdot-accelerate-matmul's ``swizzle-fold-buffers``; left out of the pipeline text when false."""


def ptx_pipeline(options: PtxOptions) -> str:
    """qdot (tensor level) → qgpu → ptx ops → LLVM-ready IR."""
    fold = "" if options.q4k_fold == "auto" else f" q4k-fold={options.q4k_fold}"
    epilogue = "" if options.epilogue == "direct" else f" epilogue={options.epilogue}"
    guard = "" if options.guard_copies else " guard-copies=false"
    pad = (" pad-block-rows=true" if options.pad_block_rows else "") + \
        (" swizzle-fold-buffers=true" if options.swizzle_fold_buffers else "")
    return ",".join(
        [
            "qdot-lower-quantize",
            f"qdot-accelerate-matmul{{arch={options.arch} strategy={options.strategy}{fold}{pad}}}",
            "qdot-optimize-dot-operands",
            f"qdot-pipeline{{num-stages={options.num_stages}{guard}}}",
            f"qdot-lower-local-load{{arch={options.arch}}}",
            "qdot-lower-mma",
            f"qdot-to-llvm{{arch={options.arch}{epilogue}}}",
        ]
    )


def agx_pipeline(form: str) -> str:
    """qdot dot tile → agx.mma8 chain → registers → wait slots, no hints.

    ``hints=false waits=all`` is spelt out so that ``--print-pipeline`` shows what keeps the stream's
    meaning free of the assumed wait-slot order (A3) and hint-bit assignment (A4): an MMA that needs a
    wait waits on every slot, and no hint bit is set. ``{hints=true waits=needed}`` is the liveness-based
    stream for a user who accepts A3 and A4 (docs/agx.md)."""
    return f"qdot-to-agx{{form={form}}},agx-allocate-registers,agx-hints-and-waits{{hints=false waits=all}}"
