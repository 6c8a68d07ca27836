"""Experiment (run 272): the weights-once kernels' decoded weight scales stored sub-blocks contiguous, timed
against the previous compiler's kernels, which store them rows contiguous.

    python -m bench.experiments.decode_scale_rows_ab --prepare    # here: this tree's kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.decode_scale_rows_ab              # on the GPU machine, with that cache
    python -m bench.experiments.decode_scale_rows_ab --wide       # the 16-, 32- and 64-token kernels at M = 9 … 64
    python -m bench.experiments.decode_scale_rows_ab --ggml-order # q4_K's decode kernels reading ggml's layout

Run from another tree (``PYTHONPATH=OLD_TREE python bench/experiments/decode_scale_rows_ab.py [--prepare]``) it
compiles and times that tree's kernels of the same labels: ``bench.mmq``'s ``measure`` (MUL_MAT from f32: quantize,
zeroing, GEMM; each checked against ``compiler.numerics`` first) for exactly the ``LABELS`` below. In the decode
kernels the weights are the mma's A side, whose threads hold rows g and g + 8 — never adjacent — so rows contiguous
gives one 4-byte load per (row, sub-block); sub-blocks contiguous lets a thread read a row's sub-blocks of the K step
in 16-byte loads (q4_K's one-token loop: 59 → 35 shared loads per step, 419 → 417 instructions).
"""

from __future__ import annotations

import argparse
import itertools

import bench.mmq as bm

LABELS = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",        # the M = 1 goal rows
    "small_m 64 w2 splitk s2 pdl wt",                    # M ≤ 8, repacked
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt q5_K",
    "small_m 64 w2 splitk s2 m1 pdl wt q3_K",
    "small_m 64 w2 splitk s2 m1 pdl wt iq4_xs",
    "small_m 64 w2 splitk s2 m1 pdl wt mxfp4",
    "small_m 64 w2 splitk s2 m1 pdl wt q4_0",
)


GGML_ORDER_LABELS = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128",   # one token, ggml's layout
    "small_m 64 w2 splitk s2 pdl",                       # M ≤ 8, ggml's layout
)

WIDE = ((16, 4096, 14336), (32, 4096, 14336), (16, 4096, 4096), (32, 4096, 4096), (48, 4096, 4096))
"""(M, N, K) of ``--wide``: q4_K's kernels of ``choose_mmq`` there (16, 32 and 64 tokens), W in both orders."""


def selection(only: str | None = None, labels: tuple[str, ...] = LABELS) -> list:
    del only  # the exact labels, whatever ``run`` passes
    return [entry for entry in bm.PREFILL + bm.DECODE + bm.OTHER_WEIGHTS if entry[0] in labels]


def wide_entries() -> list:
    from compiler.mmq_choice import choose_mmq

    entries = {}
    for (m, n, k), tiled in itertools.product(WIDE, (False, True)):
        choice = choose_mmq("q4_K", m, n, k, tiled_weights=tiled)
        entries[(m, n, k, tiled)] = (f"wide {choice.cfg.name}", choice.cfg, choice.num_stages)
    return list(entries.items())


def run_wide() -> None:
    from bench.gpu_common import gpu_or_exit, record
    from targets.ptx.runner import load

    cupy = gpu_or_exit("decode_scale_rows_ab --wide")
    entries = wide_entries()
    compiled = bm.compile_kernels([entry for _, entry in entries])
    quantizers, rng, flush = bm.measuring_setup(cupy, bm.compile_quantizers())
    for ((m, n, k, _), _), (label, cfg, stages, kernel) in zip(entries, compiled, strict=True):
        record(bm.measure(cupy, load(kernel.ptx, kernel.kernels[0]), quantizers, label, cfg, stages, kernel.kernels[0],
                          m, n, k, rng, flush))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--wide", action="store_true", help="the widened (16-, 32-, 64-token) kernels instead")
    parser.add_argument("--ggml-order", action="store_true", help="q4_K's decode kernels in ggml's layout instead")
    args = parser.parse_args()
    if args.prepare:
        from bench.prepare import fill_cache

        fingerprint = fill_cache(lambda: (bm.compile_kernels(selection() + selection(labels=GGML_ORDER_LABELS) +
                                                             [entry for _, entry in wide_entries()]),
                                          bm.compile_quantizers()))
        print(f"prepared {len(selection())} kernels, fingerprint {fingerprint}")
        return
    if args.wide:
        run_wide()
        return
    bm.selected = (lambda only=None, labels=(): selection(labels=GGML_ORDER_LABELS)) if args.ggml_order else selection
    bm.run(False, None)


if __name__ == "__main__":
    main()
