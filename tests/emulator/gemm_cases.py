"""The GEMM emulator cases' shape, their description and how they are compiled, shared by the GEMM emulator tests
(``test_gemm_emulated``, ``test_scale_strategies``).

M = 144 spans two 128-row tiles; N = 120 and K = 160 are not multiples of the tile, so the bounded loads and stores
are exercised on every case.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.templates import GemmConfig, gemm_kernel
from tests.emulator.lowering import lower

M, N, K = 144, 120, 160


@dataclass(frozen=True)
class Case:
    lhs: str
    rhs: str
    lhs_scale: str | None
    rhs_scale: str | None
    arch: str
    strategy: str
    expect: str
    """A piece of a ptx instruction the kernel must contain (so the case tests what it says)."""
    rhs_k_pack: bool = True
    """False: B is e2m1 packed along N (K rows of N/2 bytes), which only dequant-bf16 runs."""
    lhs_k_pack: bool = True
    """False: A is e2m1 packed along M (K rows of M/2 bytes), likewise."""
    ldmatrix_arch: bool = False
    """Keep the arch ptx_pipeline passes to qdot-lower-local-load (sm_120a picks the sub-byte ldmatrix
    .m8n16 .b4x16_p64); without it the pass assumes sm_90 and the scalar fp4Unpacked fallback is tested."""
    b_k_major: bool = True
    """False: B is stored [K', N] (N contiguous; ``GemmConfig(b_k_major=False)``): the packed bytes of one
    column of a K-packed e2m1 B lie a row of N bytes apart in global memory, not side by side."""
    bug: str | None = None
    block_k: int = 128

    @property
    def id(self) -> str:
        scales = "-".join(s for s in (self.lhs_scale, self.rhs_scale) if s) or "noscale"
        extra = ("-ldmatrix-arch" if self.ldmatrix_arch else "") + ("" if self.lhs_k_pack else "-mpack") \
            + ("" if self.rhs_k_pack else "-npack") + ("" if self.b_k_major else "-b-n-contiguous")
        return f"{self.arch}-{self.strategy}-{self.lhs}x{self.rhs}-{scales}{extra}"


def compile_case(case: Case, cfg: GemmConfig, epilogue: str = "direct") -> ModuleOp:
    """``cfg``'s kernel for ``case``'s arch and strategy in three stages."""
    pipeline = ptx_pipeline(PtxOptions(arch=case.arch, strategy=case.strategy, num_stages=3, epilogue=epilogue))
    if not case.ldmatrix_arch:  # the default pipeline passes the arch; this variant keeps the sm_90 choices
        pipeline = pipeline.replace(f"qdot-lower-local-load{{arch={case.arch}}}", "qdot-lower-local-load")
    return lower(gemm_kernel(cfg), cfg.name, pipeline)
