"""Experiment (prepared in the forty-fourth session, not yet run): the decode MUL_MATs whose K-split loops copy a
tile declared in bounds (W repacked by ``tile_weights``, X's K) only where the loop runs it, timed against the
previous compiler's kernels, whose copies ahead re-read a tile at each share's end.

    python -m bench.experiments.guarded_copies_ab --prepare    # here: this tree's kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.guarded_copies_ab              # on the GPU machine, with that cache

Run by path from another tree's checkout (``PYTHONPATH=$PWD python NEW_TREE/bench/experiments/guarded_copies_ab.py
--prepare``; ``python -m`` would put the current directory first) it compiles that tree's kernels of the same labels
(82932a2's, before the change: each one-token program of the goal row reads 5 tiles of W for its 4 K steps,
tests/emulator/test_weights_read_once.py; ptxas: the same 80 registers, 417 SASS instructions per K step against
385) into its own cache. On the GPU machine this tree's script times either cache, given its directory
(``QDOT_KERNEL_CACHE``) and fingerprint (``QDOT_COMPILER_FINGERPRINT``): the kernels' IR is the same in both trees,
so their keys are. Alternate the two caches' processes, two rounds or more, as runs 264–265 did. ``bench.mmq``'s
``measure`` (MUL_MAT from f32: quantize, zeroing, GEMM; each checked against ``compiler.numerics`` first) for exactly
the ``LABELS``. The ggml-order kernel is a control: its PTX is the same in both trees.
"""

from __future__ import annotations

from bench.experiments import labelled_ab

LABELS = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",        # the M = 1 goal rows (4096 × 14336: 14 splits of 4 steps)
    "small_m 64 w2 splitk s2 pdl wt",                    # M ≤ 8, repacked
    "small_m 64 w2 splitk s2 m1 pdl wt q8_0",            # other formats' one-token kernels, repacked
    "small_m 64 w2 splitk s2 m1 pdl wt q6_K",
    "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128",    # ggml's order: unchanged PTX, the control
)


def selection(only: str | None = None) -> list:
    del only  # the exact labels, whatever ``run`` passes
    return labelled_ab.selection(LABELS)


if __name__ == "__main__":
    labelled_ab.main(LABELS, __doc__.split("\n\n")[0])
