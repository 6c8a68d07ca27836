"""``MmqConfig(broadcast_rhs=True)`` (the kernel's ``qdot.broadcast_rhs``): the one-token kernel reads its
activation tile's token 0 as every column of the n8 mma, so its dots' other columns become copies of column 0,
which the kernel never stores. Y must still be ``compiler.numerics``' result on the emulator (fresh seeded inputs
into a poisoned Y) in the forms the option combines with: W repacked or in ggml's order, the dmin term by FMA or by
the f16 mma (whose sums buffer is decoded from the broadcast view), two super-blocks a K step, and weights
without a min term (q8_0), with q6_K's two raw parts or q5_K's; and every format's repacked one-token kernel with
either this layout or padded rows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler.mmq_template import WEIGHT_FORMATS, MmqConfig, mmq_kernel
from tests.emulator.lowering import emulate_and_check, lower, lower_mmq
from tests.gpu.mmq_harness import ONE_TOKEN_LAYOUTS, MmqCase

ONE_TOKEN = dict(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, broadcast_rhs=True)
CASES = [
    MmqCase(MmqConfig(**ONE_TOKEN, tiled_weights=True, q4k_fold="fma"), m=1, n=72, k=768),
    MmqCase(MmqConfig(**ONE_TOKEN, tiled_weights=True, q4k_fold="mma"), m=1, n=72, k=768),
    MmqCase(MmqConfig(**ONE_TOKEN, k_blocks=2), m=1, n=40, k=1280),
    MmqCase(MmqConfig(**ONE_TOKEN, weights="q6_K"), m=1, n=72, k=768),
    MmqCase(MmqConfig(**ONE_TOKEN, weights="q8_0", tiled_weights=True), m=1, n=72, k=768),
    MmqCase(MmqConfig(**ONE_TOKEN, weights="q5_K", q4k_fold="fma", l2_prefetch=128), m=1, n=40, k=512),
]


def _views(case: MmqCase) -> str:
    """The kernel after qdot-accelerate-matmul, as text: its block_part views."""
    return str(lower(mmq_kernel(case.cfg), case.cfg.name,
                     "qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}"))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_broadcast_kernel_matches_reference(case: MmqCase) -> None:
    views = _views(case)
    assert '{format = "q8_1_mmq", part = "qs", blocks = ' in views
    assert views.count('format = "q8_1_mmq"') == views.count("broadcast = true")  # every activation view, no other
    emulate_and_check(lower_mmq(case.cfg), case, seed=13, what=" (rhs broadcast)")


@pytest.mark.slow
@pytest.mark.parametrize("layout", sorted(ONE_TOKEN_LAYOUTS))
@pytest.mark.parametrize("weights", WEIGHT_FORMATS)
def test_one_token_layouts_of_every_format(weights: str, layout: str) -> None:
    """Both of the one-token kernel's ways out of its activation tile's bank conflicts (token 0 read as every column;
    rows padded, ``choose_mmq``'s for q4_K, q3_K, q4_1 and q5_1) over W repacked, for every weight format: the forms
    ``bench.experiments.padded_rows_ab --other_weights`` and tests/gpu time and check on the GPU."""
    cfg = replace(MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, tiled_weights=True),
                  weights=weights, **ONE_TOKEN_LAYOUTS[layout])
    emulate_and_check(lower_mmq(cfg, num_stages=2), MmqCase(cfg, 1, 72, 1024, stages=2), seed=14,
                      what=f" ({layout})")
