"""Experiment: the decode MUL_MATs whose K-split loops copy a tile declared in bounds (W repacked by
``tile_weights``, X's K) only where the loop runs its K position, against the same kernels through
``qdot-pipeline{guard-copies=false}`` (labels ``… unguarded``), whose copies ahead take the share's last tile again.

    python -m bench.experiments.guarded_copies_ab --prepare    # here: both forms' kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.guarded_copies_ab              # on the GPU machine, with that cache
    python -m bench.experiments.guarded_copies_ab --formats [--prepare]   # every format's, M = 1 and M ≤ 8
    python -m bench.experiments.guarded_copies_ab --formats --reverse [--label LABEL ...]   # a second round; a subset

Run 290 (forty-fourth session, an H100) timed the guard against the previous compiler's kernels (82932a2, the
unguarded form) from two trees' caches: the q4_K goal kernel 3–4 % faster at 4096 × 14336, q6_K's and q8_0's
repacked one-token kernels 4–6 % slower at 4096² / 3584² (bench/RESULTS.md). With ``guard-copies`` both forms come
from one tree and one process, alternating rows. ``bench.mmq``'s ``measure`` (MUL_MAT from f32: quantize, zeroing,
GEMM; each checked against ``compiler.numerics`` first) for exactly the ``LABELS``. The ggml-order kernel is a
control: the guard does not apply to it (its W's bounds are tested), so both of its labels compile to the same PTX.
``--formats`` (runs 292–294 on an H100, four of its pairs in run 296 on an H200) decides ``choose_mmq``'s
``UNGUARDED_ONE_TOKEN`` and ``UNGUARDED_EIGHT_TOKENS``.

``guarded_copies_clamped.patch`` (beside this file) is a third form for the same question: the guard's copies
keep source size 0 where the loop does not run their K position but name the share's last tile, as the unguarded
form's do, not the next split's first — whether a zero-size cp.async's address costs time. Apply it to a checkout,
``--prepare`` there under its own ``QDOT_KERNEL_CACHE`` and fingerprint, and alternate the caches' processes.
"""

from __future__ import annotations

from bench.experiments import labelled_ab

GUARDED = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",        # the M = 1 goal rows (4096 × 14336: 14 splits of 4 steps)
    "small_m 64 w2 splitk s2 pdl wt",                    # M ≤ 8, repacked
    "small_m 64 w2 splitk s2 m1 pdl wt q8_0",            # other formats' one-token kernels, repacked
    "small_m 64 w2 splitk s2 m1 pdl wt q6_K",
    "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128",    # ggml's order: the guard does not apply, the control
)
LABELS = tuple(label for guarded in GUARDED for label in (guarded, f"{guarded} unguarded"))
EVERY_FORMAT = tuple(label for entry in labelled_ab.every_entry() if entry[1].small_m and entry[1].split_k
                     and entry[1].tiled_weights for label in (entry[0], f"{entry[0]} unguarded"))
"""``--formats``: every repacked split-K decode kernel of ``bench.mmq`` (each format's one-token and M ≤ 8), both
forms."""


def selection(only: str | None = None) -> list:
    del only  # the exact labels, whatever ``run`` passes
    return labelled_ab.selection(LABELS)


if __name__ == "__main__":
    labelled_ab.main(LABELS, __doc__.split("\n\n")[0],
                     {"formats": ("every format's repacked split-K decode kernels instead", EVERY_FORMAT)})
