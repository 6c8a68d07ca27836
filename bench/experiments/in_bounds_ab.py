"""Experiment (runs 264–265): the q4_K MUL_MATs whose copies ``qdot.load {in_bounds}`` spares their bounds tests,
timed against the previous compiler's kernels, which test every chunk.

    python -m bench.experiments.in_bounds_ab --prepare    # here: this tree's kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.in_bounds_ab              # on the GPU machine, with that cache

Run from another tree (``PYTHONPATH=OLD_TREE python bench/experiments/in_bounds_ab.py [--prepare]``) it compiles and
times that tree's kernels of the same labels: ``bench.mmq``'s ``measure`` (MUL_MAT from f32: quantize, zeroing,
GEMM; each checked against ``compiler.numerics`` first) for exactly the ``LABELS`` below, where ``bench.mmq --only``
would take every label containing the text. The templates declare tile_weights' W tiles in bounds and X's K (one
super-block per step): the repacked prefill and decode kernels (both declarations), the ggml-order ones (X's only).
"""

from __future__ import annotations

from bench.experiments import labelled_ab

LABELS = (
    "mmq 64x128 w4 s2 b2 wt",                       # the M = 512 goal rows: W and X declared
    "mmq 64x128 w4 s2 b2",                          # ggml's order: X's K only
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",   # the M = 1 goal rows
    "small_m 64 w2 splitk s2 pdl wt",               # M ≤ 8, repacked
    "small_m 64 w2 splitk s2 pdl",                  # M ≤ 8, ggml's order: X's K only
)


def selection(only: str | None = None) -> list:
    del only  # the exact labels, whatever ``run`` passes
    return labelled_ab.selection(LABELS)


if __name__ == "__main__":
    labelled_ab.main(LABELS, __doc__.split("\n\n")[0])
