"""Experiment: the one-token kernel's decoded q4_K scales written by the warp that reads them, so that the K step's
second CTA barrier can be a warp barrier — a text edit of the goal kernel's PTX, a measuring stick.

    python -m bench.experiments.warp_local_scales --prepare   # here: the kernels into $QDOT_KERNEL_CACHE
    python -m bench.experiments.warp_local_scales [--reps R]  # on the GPU machine, with that cache

Run 304 (``program_trace``) split the goal kernel's K step (1.6 µs on an H100, the tiles already there) into 0.5 µs
from the tiles' arrival to the decoded scales' barrier and 1.0 µs of ldmatrix, mma and fold. The scales of the 64
rows are decoded once per program and shared through shared memory: lane l of warp w decodes row 32w + l, but warp w
reads rows [16w, 16w + 16) and [32 + 16w, 48 + 16w) (its two m16 tiles, the warps interleaved along M), so a CTA
barrier separates the two phases. ``edited`` makes lane l of warp w decode row 16w + (l mod 16) + 32 ⌊l / 16⌋
instead — the rows its own warp reads — and turns that barrier into ``bar.warp.sync`` (which orders the warp's
shared-memory stores before its loads). The barrier after the tiles' ``cp.async.wait_group`` stays: each tile is
copied by all the program's threads.

The edit is tied to the goal kernel's PTX as qdot 360499b94b4cbc7c emitted it (the registers that hold the row's raw
and decoded addresses), kept as ``ptx_variants.GOAL_PTX`` and timed here; it refuses any other.
``bench.experiments.ptx_variants.run_ab`` times both forms at the four decode shapes, each checked against
``compiler.numerics`` first.
"""

from __future__ import annotations


from bench.experiments.ptx_variants import goal_kernel_ab, not_the_goal_kernel, stored_goal_kernel

COMMAND = "python -m bench.experiments.warp_local_scales"
SHAPES = {True: [(1, 4096, 14336), (1, 32768, 8192), (1, 4096, 4096), (1, 3584, 3584)]}

_RAW_ROW = "\tadd.s32 \t%r18, %r62, %r7;\n"
"""The raw-scale address of the thread's row: shared base + 144 · (32 · warp + lane)."""
_DECODED_ROW = "\tadd.s32 \t%r22, %r70, %r68;\n"
"""The decoded-scale address of the thread's row: shared base (%r35) + 32 · (32 · warp + lane)."""
_LANE_WARP = ("\tand.b32 \t%r2, %r1, 31;\n", "\tshr.u32 \t%r3, %r1, 5;\n", "\tmov.b32 \t%r35, qdot_dynamic_smem;\n")


compile_all = stored_goal_kernel
"""The goal kernel and the quantize kernels, compiled (``python -m bench.prepare`` and the tests call it)."""


def edited(ptx: str) -> str:
    """The goal kernel's ``ptx`` with each warp decoding the scales of the rows it reads, and the barrier after
    the decoding a warp barrier."""
    for line in (_RAW_ROW, _DECODED_ROW, *_LANE_WARP):
        if ptx.count(line) != 1:
            raise not_the_goal_kernel("warp_local_scales", repr(line.strip()))
    loop = ptx.index("\tcp.async.wait_group \t0;\n\tbar.sync \t0;\n")
    second = ptx.index("\tbar.sync \t0;\n", loop + len("\tcp.async.wait_group \t0;\n\tbar.sync \t0;\n"))
    if ptx[second - 200:second].count("st.shared.v4.b32 \t[%r22+") != 1:
        raise ValueError("warp_local_scales: the loop's second barrier does not follow the decoded scales' stores")
    ptx = ptx[:second] + "\tbar.warp.sync \t-1;\n" + ptx[second + len("\tbar.sync \t0;\n"):]
    rows = ("\t{\n\t.reg .b32 %qw_r, %qw_h;\n"
            "\tand.b32 %qw_r, %r1, 15;\n\tshl.b32 %qw_h, %r3, 4;\n\tadd.s32 %qw_r, %qw_r, %qw_h;\n"
            "\tand.b32 %qw_h, %r1, 16;\n\tshl.b32 %qw_h, %qw_h, 1;\n\tadd.s32 %qw_r, %qw_r, %qw_h;\n"
            "\tmad.lo.s32 %r18, %qw_r, 144, %r35;\n\tshl.b32 %qw_r, %qw_r, 5;\n\tadd.s32 %r22, %r35, %qw_r;\n\t}\n")
    at = ptx.index(_DECODED_ROW) + len(_DECODED_ROW)
    if ptx.index(_RAW_ROW) > at:
        raise ValueError("warp_local_scales: the raw-scale address is set after the decoded one")
    return ptx[:at] + rows + ptx[at:]


def main() -> None:
    goal_kernel_ab(__doc__.split("\n\n")[0], COMMAND, {"warp-local": (edited, SHAPES[True])})


if __name__ == "__main__":
    main()
