"""compiler.autotune on the GPU: three MX GEMM configurations for one shape, one of which
asks for more shared memory than a CTA may have (the compiler refuses it); the choice is a working one, every
candidate's launches were checked against compiler.numerics, and a second call reads the
cache instead of the GPU."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from compiler.templates import GemmConfig, gemm_kernel, grid
from tests.gpu.gemm_harness import GemmCase, check, make_inputs, poisoned_output, reference

M, N, K = 512, 384, 1024
CONFIGS = [(GemmConfig(block_k=64, num_warps=8), 3), (GemmConfig(block_k=64, num_warps=4), 3),
           (GemmConfig(block_n=256, block_k=256, num_warps=8), 6)]  # 608 KB of shared memory: cannot launch


@pytest.mark.gpu
def test_autotune_picks_a_working_configuration(gpu, tmp_path: Path) -> None:  # noqa: ANN001
    from compiler.autotune import Candidate, autotune
    from compiler.kernel_cache import KernelRefused, get_or_compile

    candidates = [Candidate(f"{cfg.name} s{stages}", gemm_kernel(cfg), grid(cfg, M, N), arch="sm_90",
                            num_stages=stages) for cfg, stages in CONFIGS]
    for candidate in candidates:  # into the kernel cache first (the GPU machine does not compile);
        try:  # the third is refused by qdot-to-llvm, and the cache remembers that too
            get_or_compile(candidate.source, arch=candidate.arch, strategy=candidate.strategy,
                           num_stages=candidate.num_stages)
        except KernelRefused as refusal:
            assert candidate is candidates[2] and "shared memory" in str(refusal), str(refusal)
    cupy = gpu()
    case = GemmCase(CONFIGS[0][0], M, N, K)
    data = make_inputs(case, np.random.default_rng())
    ref = reference(case, data)
    dev = [cupy.asarray(np.ascontiguousarray(data[name])) for name in ("a", "b_t", "sa", "sb")]
    c = cupy.asarray(poisoned_output(case.cfg, M, N))
    checked = []

    def right() -> bool:
        ok, _ = check(case, cupy.asnumpy(c), ref)
        c.fill(cupy.nan)  # the next candidate must write every element again
        checked.append(ok)
        return ok

    cache = tmp_path / "autotune.json"
    choice = autotune(f"e4m3xe2m1 {M}x{N}x{K}", candidates, (*dev, c, M, N, K), check=right, reps=5, cache=cache)
    assert choice.candidate.label in (candidates[0].label, candidates[1].label)
    assert checked == [True, True]
    assert all(math.isfinite(choice.timings[c.label]) for c in candidates[:2])
    assert math.isinf(choice.timings[candidates[2].label])
    assert "shared memory" in choice.reasons[candidates[2].label]
    again = autotune(f"e4m3xe2m1 {M}x{N}x{K}", candidates, (*dev, c, M, N, K), check=right, cache=cache)
    assert again.from_cache and again.candidate == choice.candidate and len(checked) == 2
