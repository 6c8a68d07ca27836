"""Experiment: the decode and prefill MUL_MATs with their activation tile's rows padded from 288 to 304 bytes
(``qdot-accelerate-matmul{pad-block-rows=true}``, labels ``… padrows``) against the same kernels unpadded; where the
dmin term is an f16 mma, also with its operands swizzled (``{swizzle-fold-buffers=true}``, ``… swfold``) and both.

    python -m bench.experiments.padded_rows_ab --prepare    # here: both forms' kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.padded_rows_ab              # on the GPU machine, with that cache
    python -m bench.experiments.padded_rows_ab --reverse    # a second round, each form first in one of the two
    python -m bench.experiments.padded_rows_ab --other_weights [--prepare] [--reverse]   # q4_0 … iq4_xs at M = 1
    python -m bench.experiments.padded_rows_ab --chosen_other [--prepare] [--reverse]    # their unguarded forms

Run 306 (Nsight Compute, the one-token kernel at 4096 × 14336) counted the activation tile's ``ldmatrix`` and its
d / s loads at twice their ideal shared-memory wavefronts, 9.5 % of the kernel's, with the L1/TEX unit its busiest
(80 %): two 144-byte q8_1_mmq blocks a token make rows 18 bank groups apart, so rows r and r + 4 of the eight a read
takes start on one group. 304 bytes apart (19 groups) the eight are distinct. Runs 314–315 found the same 2-way
conflict on the decoded scales' stores worth 5–7 % of this kernel's time. Run 82 (fourth session) padded every
such row by hand: the prefill no faster, the decode 1–3 %, the M ≤ 8 kernel at M = 8 slower (its copy then divided
each chunk's position at run time; the kernels have changed since: today's copy of the 8-token tile divides
already). ``token_broadcast`` asks the one-token half of the question by a text edit. The fold operands — rows of
16 halves, 32 bytes, stored a row per thread and read by ldmatrix — have the decoded scales' 2-way stores and 2-way
reads too (the remarks of qdot-lower-local-load and qdot-to-llvm count them: ``passes/support/bank_conflicts.py``).

``bench.mmq``'s ``measure`` (MUL_MAT from f32: quantize, zeroing, GEMM; each checked against ``compiler.numerics``
first) for exactly the ``LABELS``, each beside its padded form. Run 317 (an H200, bench/RESULTS.md "Runs 316–318")
timed them: ``choose_mmq`` took the padded one-token kernel and the swizzled 8-token kernel.
"""

from __future__ import annotations

import bench.mmq as bm
from bench.experiments import labelled_ab
from compiler.mmq_choice import choose_mmq

PADDED = (
    "small_m 64 w2 splitk s2 m1 fold=fma pdl wt",  # the M = 1 goal rows (fold by FMA: no f16 fold buffers)
    "small_m 64 w2 splitk s2 pdl wt",              # M ≤ 8 (run 82's loss was at M = 8)
    "mmq 64x128 w4 s2 b2 wt",                      # the prefill (M = 512), W repacked: only its activations padded
)
FOLDED = PADDED[1:]
"""The kernels whose dmin term is an f16 mma: also timed with its operands swizzled (``… swfold``), and both."""
LABELS = tuple(label for padded in PADDED for label in (
    padded, f"{padded} {bm.PADDED_ROWS_WORD}",
    *((f"{padded} {bm.SWIZZLED_FOLDS_WORD}", f"{padded} {bm.PADDED_ROWS_WORD} {bm.SWIZZLED_FOLDS_WORD}")
      if padded in FOLDED else ())))


OTHER_ONE_TOKEN = tuple(label for label, cfg, _stages in bm.OTHER_WEIGHTS
                        if cfg.small_m and cfg.max_m == 1 and cfg.tiled_weights)
"""The other formats' repacked one-token kernels (``--other_weights``): the same q8_1_mmq activation tile, 288-byte
rows, as q4_K's, whose padding ``choose_mmq`` takes since run 317."""
OTHER_LABELS = tuple(label for plain in OTHER_ONE_TOKEN for label in (plain, f"{plain} {bm.PADDED_ROWS_WORD}"))
"""Run 320 (an H100, ``bench/RESULTS.md``) timed these: q3_K's, the form ``choose_mmq`` takes, gained in both rounds
(0.966–0.993 ×) and is padded since; q4_1's, q5_1's, q5_K's and q6_K's gained with their copies guarded, but
``choose_mmq`` copies theirs unguarded (``UNGUARDED_ONE_TOKEN``): ``CHOSEN_OTHER_LABELS`` asks about that form."""


def _chosen_label(plain: str) -> str | None:
    """``plain``'s form as ``choose_mmq`` takes it at M = 1 over repacked W (``… unguarded`` where it drops the
    copies' guard); None where that is ``plain`` itself, which ``OTHER_LABELS`` times."""
    weights = {label: cfg.weights for label, cfg, _stages in bm.OTHER_WEIGHTS}[plain]
    return None if choose_mmq(weights, 1, 4096, 14336, tiled_weights=True).cfg.guard_copies else f"{plain} unguarded"


CHOSEN_OTHER_LABELS = tuple(label for plain in OTHER_ONE_TOKEN if (chosen := _chosen_label(plain))
                            for label in (chosen, f"{chosen} {bm.PADDED_ROWS_WORD}"))
"""``--chosen_other``: the other formats' one-token kernels that ``choose_mmq`` copies unguarded, each beside its
padded form — the combination run 320 did not time. Runs 322–323 (an H100, four rounds) timed it: ``choose_mmq``
pads q4_1's and q5_1's since."""


def selection(only: str | None = None) -> list:
    del only  # the exact labels, whatever ``run`` passes
    return labelled_ab.selection(LABELS)


if __name__ == "__main__":
    labelled_ab.main(LABELS, __doc__.split("\n\n")[0],
                     {"other_weights": ("the other formats' repacked one-token kernels instead, each beside its padded "
                                        "form", OTHER_LABELS),
                      "chosen_other": ("those of them that choose_mmq copies unguarded, in that form, each beside its "
                                       "padded form", CHOSEN_OTHER_LABELS)})
