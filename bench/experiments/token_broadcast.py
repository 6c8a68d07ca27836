"""Experiment: the one-token goal kernel reads its activation tile's one token as a broadcast — a text edit of its
PTX as qdot 4a0dc6e emitted it (``GOAL_PTX_4A0DC6E``), measuring sticks, not qdot output.

    python -m bench.experiments.token_broadcast --prepare            # here: the quantize kernels into the cache
    python -m bench.experiments.token_broadcast [--reps R]           # on the GPU machine, with that cache

Run 306 (Nsight Compute, the goal kernel at 4096 × 14336) counted two kinds of the activation tile's reads at twice
their ideal shared-memory wavefronts: the ``ldmatrix`` of its quants (114 688 excess) and the ``ld.shared`` of its
d / s (57 344): 9.5 % of the kernel's wavefronts, with the L1/TEX unit its busiest (80 %). The tile is 8 tokens (the
n8 mma's columns) of two 144-byte q8_1_mmq blocks, so its rows are 288 bytes apart, 18 groups of 16 bytes: rows r
and r + 4 start on the same bank group (run 81). Runs 314–315 found the decoded scales' 2-way stores worth 5–7 % of
this kernel's time.

In the one-token kernel only the tile's first token is ever data (the rest are zeros, copied with a source size
of 0), and only the accumulator's first column is stored. The edit ``token-zero`` makes every lane read token 0:
the quants' ``ldmatrix`` row address of each lane (``(lane & 7) · 288``) and the d / s read of its column pair
(``(lane & 3) · 576``, tokens 2t and 2t + 1) lose their token term, so each matrix's eight row addresses are one
(a broadcast: one wavefront) and the d / s reads two rows. Columns 1–7 then hold copies of column 0's sums (or
0 · sums, token 1 being zeros) and are discarded as before. If it is faster, the compiler form is a dot whose
token tile has one valid row (``max_m = 1``) reading its B operand as that row broadcast across the n8 columns.

Timed beside the kernel as compiled by ``ptx_variants.run_ab`` at the four decode shapes (every row checked
against ``compiler.numerics`` first). The edit refuses PTX without the two token terms it removes.
"""

from __future__ import annotations

from pathlib import Path

import bench.mmq as bm
from bench.experiments.ptx_variants import goal_kernel_ab, not_the_goal_kernel, stored_goal_kernel

COMMAND = "python -m bench.experiments.token_broadcast"
DECODE_SHAPES = [(1, n, k) for n, k in bm.DECODE_SHAPES]
GOAL_PTX_4A0DC6E = Path(__file__).with_name("goal_kernel_4a0dc6e.ptx")
"""The one-token goal kernel as qdot 4a0dc6e emitted it (decoded scales swizzled, runs 314–315); its ``KernelInfo``
is the ``.json`` beside it."""
TOKEN_TERMS = ("mul.lo.s32 \t%r12, %r29, 288;", "mul.lo.s32 \t%r14, %r4, 576;")
"""The quants' ldmatrix row term ((lane & 7) · 288) and the d / s column-pair term ((lane & 3) · 576) of
``GOAL_PTX_4A0DC6E``: the only uses of the lane's token in the activation tile's addresses."""


def token_zero(ptx: str) -> str:
    """``ptx`` with every lane reading the activation tile's token 0 (see the module docstring)."""
    for term in TOKEN_TERMS:
        if ptx.count(term) != 1:
            raise not_the_goal_kernel("token_broadcast", term)
        register = term.split()[1].rstrip(",")
        ptx = ptx.replace(term, f"mov.u32 \t{register}, 0;")
    return ptx


def goal_kernel() -> list:
    """The goal kernel's row with ``GOAL_PTX_4A0DC6E`` (and the quantize kernels compiled)."""
    return stored_goal_kernel(GOAL_PTX_4A0DC6E)


compile_all = goal_kernel
"""The goal kernel and the quantize kernels, compiled (``python -m bench.prepare`` and the tests call it)."""
EDITS = {"token-zero": (token_zero, DECODE_SHAPES)}


if __name__ == "__main__":
    goal_kernel_ab(__doc__.split("\n\n")[0], COMMAND, EDITS, kernels=goal_kernel)
