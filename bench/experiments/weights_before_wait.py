"""Experiment: the decode GEMM's first weight copies issued before its ``griddepcontrol.wait``
(``MmqConfig(weights_before_wait=True)``: W marked ``qdot.not_written_by_previous_grid``), and with the next K steps'
weights prefetched into L2 there too (``prefetch_steps``), timed against the same kernels waiting first, in one
process, the variants' order reversed round by round.

    python -m bench.prepare experiments.weights_before_wait     # here: the GPU suite and these kernels
    python -m bench.experiments.weights_before_wait [--rounds R] # on the GPU machine, with that cache
    python -m bench.experiments.weights_before_wait --ggml-order # the kernels reading ggml's layout
    python -m bench.experiments.weights_before_wait --variants base,s3,wbw,wbw_s3  # three stages
    python -m bench.experiments.weights_before_wait --variants base,b8,wbw,wbw_b8  # ptxas asked for 8 per SM

A decode MUL_MAT is the quantize kernel (which zeroes Y) and the GEMM, launched programmatically: the GEMM's
programs start while the quantize kernel runs and wait for it before their first memory access. At 4096 × 14336 the
one-token MUL_MAT took 10.60 µs against its kernel's 9.54 (run 272): the GEMM streams no weights during that gap.
Its weights were final before the quantize kernel started, so the first stage's copies (a quarter of a program's
weights there: four K steps per split) may go first. Each row is ``bench.mmq``'s ``measure`` (MUL_MAT from f32,
checked against ``compiler.numerics`` first).

Run 278 (``bench/RESULTS.md``): none of the variants is faster than the base at the goal row; the weights before the
wait are within ±2.5 % of it everywhere, a third stage or the L2 prefetches slower.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as bm

BASE_LABELS = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",       # the M = 1 goal rows
    "small_m 64 w2 splitk s2 pdl wt",                   # M ≤ 8, repacked
)
GGML_ORDER_LABELS = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128",   # one token, ggml's layout
    "small_m 64 w2 splitk s2 pdl",                      # M ≤ 8, ggml's layout
)
VARIANTS = {
    "base": ("", {}, None),
    "wbw": (" wbw", {"weights_before_wait": True}, None),
    "wbw_pf3": (" wbw pf3", {"weights_before_wait": True, "prefetch_steps": 3}, None),
    "s3": ("", {}, 3),
    "wbw_s3": (" wbw", {"weights_before_wait": True}, 3),
    "b8": (" b8", {"min_blocks_per_sm": 8}, None),
    "wbw_b8": (" wbw b8", {"weights_before_wait": True, "min_blocks_per_sm": 8}, None),
}
"""Each base kernel as it is, with the first stage's weight copies before the wait, with the next three K steps'
weights also asked of L2 before it (``prefetch_steps``), and in three stages without and with the wait moved (the
prologue's two weight stages then both go ahead of it: qdot-pipeline copies marked tiles first), and with eight
programs per SM asked of ptxas (``.minnctapersm 8``, what their 27 KB of shared memory allows anyway): ptxas 13.0
then gives the one-token kernel 128 registers and no spill, where by default it takes 80 and spills 8 bytes (one
``LDL.64`` per K step)."""
DEFAULT_VARIANTS = ("base", "wbw", "wbw_pf3")
SHAPES = ((4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584))


def entries(labels: tuple[str, ...] = BASE_LABELS, variants: tuple[str, ...] = tuple(VARIANTS)) -> list:
    """Each base label's variants, side by side: (label, config, stages); a variant's stage count replaces the
    label's ``s2``."""
    base = {label: (cfg, stages) for label, cfg, stages in bm.DECODE if label in labels}
    return [((label.replace(" s2 ", f" s{stages} ") if stages else label) + suffix,
             replace(base[label][0], **changes), stages or base[label][1])
            for label in labels for suffix, changes, stages in (VARIANTS[name] for name in variants)]


def ms_of(cfg) -> tuple[int, ...]:  # noqa: ANN001 - MmqConfig
    return (1,) if cfg.max_m == 1 else (1, 8)


def compile_all() -> list:
    """Every kernel ``main`` may time, both orders (``python -m bench.prepare experiments.weights_before_wait``)."""
    bm.compile_quantizers()
    return bm.compile_kernels(entries() + entries(GGML_ORDER_LABELS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the variants' order reversed every other one")
    parser.add_argument("--ggml-order", action="store_true", help="the decode kernels reading ggml's layout instead")
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                        help=f"comma-separated, of {', '.join(VARIANTS)} (default: %(default)s)")
    args = parser.parse_args()
    variants = tuple(args.variants.split(","))
    unknown = [name for name in variants if name not in VARIANTS]
    if unknown:
        parser.error(f"no variant {', '.join(unknown)}; the variants are {', '.join(VARIANTS)}")
    compiled = bm.compile_kernels(entries(GGML_ORDER_LABELS if args.ggml_order else BASE_LABELS, variants))
    width = len(variants)
    for round_ in range(args.rounds):
        groups = [compiled[i:i + width] for i in range(0, len(compiled), width)]
        ordered = [entry for group in groups for entry in (group if round_ % 2 == 0 else group[::-1])]
        bm.time_over_shapes("weights_before_wait", ordered, bm.compile_quantizers(), SHAPES, ms_of)


if __name__ == "__main__":
    main()
