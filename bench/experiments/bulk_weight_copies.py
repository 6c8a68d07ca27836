"""Experiment: the one-token goal kernel's weight tiles copied by the bulk copy engine (``cp.async.bulk``, one
instruction per tile) instead of 576 16-byte ``cp.async`` (nine per thread) — a text edit of its PTX, a measuring
stick, not qdot output.

    python -m bench.experiments.bulk_weight_copies --prepare          # here: the kernels into the cache
    python -m bench.experiments.bulk_weight_copies [--reps R]         # on the GPU machine, with that cache

Run 306 (Nsight Compute) found the kernel's L1/TEX unit 80 % busy while its issue slots were 33 % used, and runs
303–310 took work off the SM's instruction stream without moving the time much. Every byte of W reaches shared
memory through that unit: each thread's ``cp.async`` of 16 bytes is an LSU request (``bench.sass_census`` of the
stored kernel's K step: 12 ``LDGSTS`` of its 54 shared-memory instructions per warp, beside 26 ``LDS``, 12 ``LDSM`` and
4 ``STS``; Nsight Compute counted the ``LDGSTS`` at 35 % of its wavefronts). The tile of a K step is one contiguous
run of 9216
bytes (W repacked by ``tile_weights``), which is what ``cp.async.bulk`` copies in one request, completing on an
mbarrier. The edit (``bulk``):

* two mbarriers (one per ring stage) in static shared memory, initialised by thread 0 before the first copy;
* the prologue's and the loop's nine W copies per thread replaced by thread 0's ``mbarrier.arrive.expect_tx`` and
  one ``cp.async.bulk`` of 9216 bytes into the stage, where the copies' guard let them read (a step past the
  program's share copies nothing: ``cp.async`` zero-filled it, and no step reads it);
* at the top of each step, every thread waits on its stage's mbarrier (``mbarrier.try_wait.parity``, the parity of
  the stage's use) before the existing ``cp.async.wait_group`` (the activations still come by ``cp.async``) and
  the barrier, which also orders the step's reads of a stage before thread 0's next copy into it.

Timed beside the kernel as compiled by ``ptx_variants.run_ab`` (every row checked against ``compiler.numerics``
first) at the four decode shapes. Run 312 (an H100, two repetitions, kernel alone): slower everywhere — the goal row
11.13–11.15 against 9.47–9.48 µs (1.18 ×), 32768 × 8192 56.6–57.2 against 52.5–52.8 (1.08 ×), 4096² and 3584²
1.06–1.10 × — with the same launch (the mbarriers' 16 static bytes change no program count); every row correct. The
LSU path of the cp.async copies is not what a bulk copy relieves here. Not built. The edit is tied to the stored goal
kernel (``ptx_variants.GOAL_PTX``, its register names) and refuses any other PTX.
"""

from __future__ import annotations

import re

from bench.experiments.ptx_variants import goal_kernel_ab, not_the_goal_kernel, stored_goal_kernel

COMMAND = "python -m bench.experiments.bulk_weight_copies"
DECODE_SHAPES = [(1, 4096, 14336), (1, 32768, 8192), (1, 4096, 4096), (1, 3584, 3584)]
TILE_BYTES = 9216
"""The W tile of one K step: 64 rows of a q4_K super-block (144 bytes), back to back in the repacked order."""

_W_COPY = re.compile(r"\tcp\.async\.cg\.shared\.global \[%r(14|73)(\+\d+)?\], \[%rd\d+\], 16, %r(33|72);\n")
_WAIT = "\t// begin inline asm\n\tgriddepcontrol.wait;\n\t// end inline asm\n"
_STEP_TOP = "$L__BB0_5:\n\tcp.async.wait_group \t0;\n\tbar.sync \t0;\n"
_STAGE_FLIP = "\txor.b32 \t%r688, %r688, 1;\n"
_REGS = "\t.reg .b64 \t%rd<112>;\n"


def _bulk_copy(dst: str, src: str, guard: str, stage: str) -> str:
    """Thread 0's copy of one tile into ring stage ``stage`` (an immediate or a register, 0 or 1; its mbarrier the
    stage's) at shared address ``dst`` from ``src``, where ``guard`` (the copies' src-size, 16 or 0) lets the copies
    read."""
    return (f"\tsetp.ne.b32 \t%qb_p, %r1, 0;\n\tsetp.eq.or.b32 \t%qb_p, {guard}, 0, %qb_p;\n"
            f"\tmov.b32 \t%qb_bar, qb_mbar;\n\tmad.lo.s32 \t%qb_bar, {stage}, 8, %qb_bar;\n"
            f"\t@!%qb_p mbarrier.arrive.expect_tx.shared::cta.b64 \t_, [%qb_bar], {TILE_BYTES};\n"
            f"\t@!%qb_p cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes \t[{dst}], [{src}], "
            f"{TILE_BYTES}, [%qb_bar];\n")


def bulk(ptx: str) -> str:
    """The W tiles by ``cp.async.bulk`` on a per-stage mbarrier (see the module's docstring)."""
    copies = _W_COPY.findall(ptx)
    if [base for base, _, _ in copies] != ["14"] * 9 + ["73"] * 9:
        raise not_the_goal_kernel("bulk_weight_copies", "the nine W copies of the prologue and of the loop")
    for anchor in (_WAIT, _STEP_TOP, _STAGE_FLIP, _REGS):
        if ptx.count(anchor) != 1:
            raise not_the_goal_kernel("bulk_weight_copies", anchor.strip().splitlines()[-1])
    ptx = ptx.replace(".address_size 64\n", ".address_size 64\n\n.shared .align 8 .b64 qb_mbar[2];\n", 1)
    ptx = ptx.replace(_REGS, _REGS + "\t.reg .pred \t%qb_p, %qb_w;\n"
                      "\t.reg .b32 \t%qb_bar, %qb_phase, %qb_par, %qb_sh;\n")
    init = ("\tmov.b32 \t%qb_phase, 0;\n\tsetp.ne.b32 \t%qb_p, %r1, 0;\n\tmov.b32 \t%qb_bar, qb_mbar;\n"
            "\t@!%qb_p mbarrier.init.shared::cta.b64 \t[%qb_bar], 1;\n"
            "\t@!%qb_p mbarrier.init.shared::cta.b64 \t[%qb_bar+8], 1;\n"
            "\tfence.mbarrier_init.release.cluster;\n\tbar.sync \t0;\n")
    ptx = ptx.replace(_WAIT, _WAIT + init)
    # thread 0's own addresses are the tile's: its first copy starts at the tile's first byte; the other copies go
    # (their address arithmetic stays, for ptxas to drop)
    firsts = {"14": _bulk_copy("%r14", "%rd29", "%r33", "0"), "73": _bulk_copy("%r73", "%rd66", "%r72", "%r687")}
    ptx = _W_COPY.sub(lambda m: firsts[m.group(1)] if m.group(2) is None else "", ptx)
    # the step reads stage %r688: wait for the phase of its use, then flip that stage's parity bit
    wait = ("$L__BB0_5:\n\tmov.b32 \t%qb_bar, qb_mbar;\n\tmad.lo.s32 \t%qb_bar, %r688, 8, %qb_bar;\n"
            "\tshr.u32 \t%qb_par, %qb_phase, %r688;\n\tand.b32 \t%qb_par, %qb_par, 1;\n"
            "$QB_WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 \t%qb_w, [%qb_bar], %qb_par;\n"
            "\t@!%qb_w bra.uni \t$QB_WAIT;\n\tshl.b32 \t%qb_sh, 1, %r688;\n\txor.b32 \t%qb_phase, %qb_phase, %qb_sh;\n"
            "\tcp.async.wait_group \t0;\n\tbar.sync \t0;\n")
    return ptx.replace(_STEP_TOP, wait)


compile_all = stored_goal_kernel
"""The goal kernel and the quantize kernels, compiled (``python -m bench.prepare`` and the tests call it)."""

EDITS = {"bulk": (bulk, DECODE_SHAPES)}


def main() -> None:
    goal_kernel_ab(__doc__.split("\n\n")[0], COMMAND, EDITS)


if __name__ == "__main__":
    main()
