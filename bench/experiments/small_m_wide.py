"""Experiment (run 235): the M ≤ 8 kernel widened to 16, 32 and 64 tokens, against stream-K at 9 ≤ M ≤ 64.
    python -m bench.experiments.small_m_wide --prepare   # here: fill the kernel cache
    python -m bench.experiments.small_m_wide             # on the GPU machine: q4_K's sweep
    python -m bench.experiments.small_m_wide --formats   # every format: the widened kernels and stream-K
Runs 232–234 left M = 9–16 to stream-K on the prefill tile (36.5 µs for q4_K at N = 4096, K = 14336), though two
calls of the M ≤ 8 kernel (15.6 µs each) would be faster. The small_m kernel's grid has no M dimension — each
program multiplies its weight rows by every token — so its n tile can hold 16, 32 or 64 tokens
(``MmqConfig(max_m=…)``), still reading each weight byte once. Here q4_K's widened kernels (2 and 4 warps, ggml's
order and repacked, 64 and 128 weight rows) at M = 9 … 64 on three shapes against ``choose_mmq``'s kernel at each
M (stream-K there) and the M ≤ 8 kernel at M = 8; ``--formats``: every format's decode kernel of ``choose_mmq``
widened to 16, 32 and 64 tokens against its choice at M = 16, 32 and 64. Each kernel is checked against
``compiler.numerics`` before it is timed (``bench.mmq.measure``).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as mmq
from compiler.mmq_choice import choose_mmq
from compiler.mmq_template import WEIGHT_FORMATS, MmqConfig

MS = (9, 12, 16, 24, 32, 48, 64)
SHAPES = ((4096, 14336), (4096, 4096), (14336, 4096))
FORMAT_MS = (16, 32, 64)
FORMAT_SHAPES = ((4096, 14336), (4096, 4096))
_DECODE = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
WIDE = ((16, 2), (16, 4), (32, 2), (32, 4), (64, 4))  # (max_m, num_warps)


def q4k_entries() -> list[tuple[str, MmqConfig, int]]:
    """q4_K's widened kernels, the M ≤ 8 kernel, and the stream-K prefill ``choose_mmq`` takes at these M."""
    out = [("small_m 64 w2 splitk s2", _DECODE, 2)]
    for max_m, warps in WIDE:
        out.append((f"small_m 64 w{warps} splitk s2 m{max_m}", replace(_DECODE, max_m=max_m, num_warps=warps), 2))
    for max_m, warps in ((16, 2), (32, 4), (64, 4)):
        out.append((f"small_m 64 w{warps} splitk s2 m{max_m} wt",
                    replace(_DECODE, max_m=max_m, num_warps=warps, tiled_weights=True), 2))
        out.append((f"small_m 128 w{2 * warps} splitk s2 m{max_m}",
                    replace(_DECODE, block_n=128, max_m=max_m, num_warps=2 * warps), 2))
    choice = choose_mmq("q4_K", 16, 4096, 4096)
    return [*out, ("mmq 64x128 w4 s2 b2 streamk", choice.cfg, choice.num_stages),
            ("mmq 64x128 w4 s2 b2 streamk wt", replace(choice.cfg, tiled_weights=True), choice.num_stages)]


def format_entries() -> list[tuple[str, MmqConfig, int]]:
    """Every other format: ``choose_mmq``'s decode kernel (K a multiple of 512, ggml's order) widened to 16, 32 and
    64 tokens, and its choice at M = 16 (stream-K on the format's prefill tile)."""
    out = []
    for weights in WEIGHT_FORMATS:
        if weights == "q4_K":
            continue
        decode, prefill = choose_mmq(weights, 8, 4096, 4096), choose_mmq(weights, 16, 4096, 4096)
        for max_m, warps in ((16, 2), (32, 4), (64, 4)):
            out.append((f"small_m 64 w{warps} splitk s{decode.num_stages} m{max_m} {weights}",
                        replace(decode.cfg, max_m=max_m, num_warps=warps), decode.num_stages))
        out.append((f"mmq 64x{prefill.cfg.block_n} w4 s2 b2 streamk {weights}", prefill.cfg, prefill.num_stages))
    return out


def compile_all(formats: bool = False) -> tuple[list, dict]:
    """The kernels and the quantize kernels (``bench.prepare``'s hook)."""
    return mmq.compile_kernels(format_entries() if formats else q4k_entries()), mmq.compile_quantizers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--formats", action="store_true", help="every format's widened kernels against stream-K")
    args = parser.parse_args()
    kernels, quantizers_compiled = compile_all(args.formats)
    if args.prepare:
        return
    from bench.gpu_common import gpu_or_exit, record

    cupy = gpu_or_exit("python -m bench.experiments.small_m_wide")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    loaded = mmq.load_kernels(kernels)
    ms, shapes = (FORMAT_MS, FORMAT_SHAPES) if args.formats else (MS, SHAPES)
    for n, k in shapes:
        for label, cfg, stages, kernel, info in loaded:
            for m in ms if not cfg.small_m else [m for m in (8, *ms) if m <= cfg.max_m and 4 * m > cfg.max_m]:
                record(mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush))
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
