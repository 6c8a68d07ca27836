"""Experiment: the one-token kernel's activation tile with its padding rows zeroed once, not copied as zeros at every
K step — a text edit of the goal kernel's PTX, a measuring stick for run 306's finding that the kernel's shared-memory
pipe is its busiest unit.

    python -m bench.experiments.padding_rows_once --prepare   # here: the kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.padding_rows_once [--reps R]  # on the GPU machine, with that cache

The one-token kernel multiplies by an n8 mma, so its activation tile holds 8 token rows (2 q8_1_mmq blocks of 144
bytes each, 2304 bytes a stage), of which only the first is ever a token. qdot-pipeline already knows that rows
past ``max_m`` are out of bounds: their ``cp.async`` have a source size of 0 written into the PTX, two of each
thread's three copies of the tile per stage, and they fill those rows with zeros again at every K step. ``edited``
deletes every such copy and instead zeroes the tile's two ring slots once, at the program's start (``st.shared`` of
zeros and a barrier before the first copy); nothing else writes those rows. Run 306 (Nsight Compute) counted the
tile's copies at 179 200 shared-memory wavefronts of the kernel's 1 809 920, 6.25 × their ideal.

The edit is tied to the goal kernel's PTX as qdot 360499b94b4cbc7c emitted it, kept as ``ptx_variants.GOAL_PTX``
and timed here. ``bench.experiments.ptx_variants.run_ab`` times both forms at the four decode shapes, each checked
against ``compiler.numerics`` first.
"""

from __future__ import annotations

import re

from bench.experiments.ptx_variants import goal_kernel_ab, not_the_goal_kernel, stored_goal_kernel

COMMAND = "python -m bench.experiments.padding_rows_once"
SHAPES = {True: [(1, 4096, 14336), (1, 32768, 8192), (1, 4096, 4096), (1, 3584, 3584)]}
X_TILE = (18432, 23040)
"""The activation tile's two ring slots in the goal kernel's shared memory: [start, end) bytes."""
_ZERO_COPY = re.compile(r"\tcp\.async\.cg\.shared\.global \[%r\d+\+18432\], \[%rd\d+\], 16, 0;\n")
_BASE = "\tmov.b32 \t%r35, qdot_dynamic_smem;\n"


compile_all = stored_goal_kernel
"""The goal kernel and the quantize kernels, compiled (``python -m bench.prepare`` and the tests call it)."""


def edited(ptx: str) -> str:
    """The goal kernel's ``ptx`` without its zero-size copies into the activation tile, the tile zeroed at the
    start instead."""
    if ptx.count(_BASE) != 1 or len(_ZERO_COPY.findall(ptx)) != 4:
        raise not_the_goal_kernel("padding_rows_once")
    start, end = X_TILE
    stores = ["\t{\n\t.reg .b32 %qz_at, %qz_t;\n\t.reg .pred %qz_p;\n\tmov.u32 %qz_t, %tid.x;\n",
              "\tshl.b32 %qz_t, %qz_t, 4;\n\tadd.s32 %qz_at, %r35, %qz_t;\n"]
    for offset in range(start, end, 1024):  # 64 threads × 16 bytes a round
        last = min(end - offset, 1024)
        if last < 1024:
            stores.append(f"\tsetp.lt.u32 %qz_p, %qz_t, {last};\n"
                          f"\t@%qz_p st.shared.v4.b32 [%qz_at+{offset}], {{0, 0, 0, 0}};\n")
        else:
            stores.append(f"\tst.shared.v4.b32 [%qz_at+{offset}], {{0, 0, 0, 0}};\n")
    stores.append("\tbar.sync \t0;\n\t}\n")
    ptx = _ZERO_COPY.sub("", ptx)
    at = ptx.index(_BASE) + len(_BASE)
    return ptx[:at] + "".join(stores) + ptx[at:]


def main() -> None:
    goal_kernel_ab(__doc__.split("\n\n")[0], COMMAND, {"padding-once": (edited, SHAPES[True])})


if __name__ == "__main__":
    main()
