"""Experiment: text edits of the one-token goal kernel's PTX around its q4_K scale decoding (runs 308–310) —
measuring sticks, not qdot output.

    python -m bench.experiments.decode_phase_edits --prepare                  # here: the kernels into the cache
    python -m bench.experiments.decode_phase_edits EDIT [--reps R]            # on the GPU machine, with that cache

Run 304 timed the goal kernel's K step at 1.6 µs on an H100, 0.5 µs of it from the tiles' arrival to the decoded
scales' barrier. The edits, each timed beside the kernel as compiled by ``ptx_variants.run_ab`` (every row checked
against ``compiler.numerics`` first; ``no-decode``'s check fails by design):

* ``no-decode``: the four ``st.shared.v4`` of the decoded scales deleted, so ptxas drops the decoding behind them
  (its raw loads, unpacking, conversions and products); the fold reads whatever the shared memory holds. A bound:
  what the K step would take with the decoding free. Timed at the goal row and at 4096².
* ``desync-300`` / ``desync-700``: the programs of odd K splits sleep 300 or 700 ns (``nanosleep``) after their
  programmatic wait, so that the programs sharing an SM reach their decoding at different times. Timed at the goal
  row and at 4096².
* ``header-v4``: the q4_K block header (d, dmin and the 12 scale bytes, 16-aligned in the repacked tile) read by one
  ``ld.shared.v4.b32`` instead of five loads of 2 to 8 bytes, which Nsight Compute (run 306) counted at 3–4 × their
  ideal wavefronts (rows 144 bytes apart put four lanes of a warp in one bank; 16-byte loads go a quarter-warp at a
  time, conflict-free). Timed at the four decode shapes.

The edits are tied to the goal kernel's PTX as qdot 360499b94b4cbc7c emitted it (its register names), which is kept
as ``ptx_variants.GOAL_PTX`` and timed here (run 311 changed the compiler's); each refuses any other.
"""

from __future__ import annotations

import re

from bench.experiments.ptx_variants import goal_kernel_ab, not_the_goal_kernel, stored_goal_kernel

COMMAND = "python -m bench.experiments.decode_phase_edits"
DECODE_SHAPES = [(1, 4096, 14336), (1, 32768, 8192), (1, 4096, 4096), (1, 3584, 3584)]
_DECODED_STORE = re.compile(r"\tst\.shared\.v4\.b32 \t\[%r22\+\d+\], \{[^}]+\};\n")
_WAIT = "\t// begin inline asm\n\tgriddepcontrol.wait;\n\t// end inline asm\n"
_HEADER_LOADS = ("\tld.shared.b16 \t%rs19, [%r81];\n", "\tld.shared.b32 \t%r82, [%r81+12];\n",
                 "\tld.shared.b32 \t%r83, [%r81+4];\n", "\tld.shared.b16 \t%rs20, [%r81+2];\n",
                 "\tld.shared.v2.b32 \t{%r125, %r126}, [%r81+8];\n")


compile_all = stored_goal_kernel
"""The goal kernel and the quantize kernels, compiled (``python -m bench.prepare`` and the tests call it)."""


def no_decode(ptx: str) -> str:
    """Without the decoded scales' stores (and so, after ptxas, without the decoding)."""
    stores = _DECODED_STORE.findall(ptx)
    if len(stores) != 4:
        raise not_the_goal_kernel("decode_phase_edits", f"{len(stores)} decoded-scale stores")
    for line in stores:
        ptx = ptx.replace(line, "")
    return ptx


def desync(ptx: str, nanoseconds: int) -> str:
    """The programs of odd K splits (``%ctaid.y``) sleeping ``nanoseconds`` after the programmatic wait."""
    if ptx.count(_WAIT) != 1:
        raise not_the_goal_kernel("decode_phase_edits", "griddepcontrol.wait")
    sleep = ("\t{\n\t.reg .b32 %qs_y;\n\t.reg .pred %qs_p;\n\tmov.u32 %qs_y, %ctaid.y;\n\tand.b32 %qs_y, %qs_y, 1;\n"
             f"\tsetp.ne.u32 %qs_p, %qs_y, 0;\n\t@%qs_p nanosleep.u32 {nanoseconds};\n\t}}\n")
    return ptx.replace(_WAIT, _WAIT + sleep)


def header_v4(ptx: str) -> str:
    """The block header's five loads as one 16-byte load: d and dmin the halves of word 0, the scales words 1–3."""
    if any(ptx.count(line) != 1 for line in _HEADER_LOADS):
        raise not_the_goal_kernel("decode_phase_edits", "the header's loads")
    vector = ("\t{\n\t.reg .b32 %qh<4>;\n\tld.shared.v4.b32 {%qh0, %qh1, %qh2, %qh3}, [%r81];\n"
              "\tmov.b32 {%rs19, %rs20}, %qh0;\n\tmov.b32 %r83, %qh1;\n\tmov.b32 %r125, %qh2;\n"
              "\tmov.b32 %r126, %qh3;\n\tmov.b32 %r82, %qh3;\n\t}\n")
    ptx = ptx.replace(_HEADER_LOADS[0], vector)
    for line in _HEADER_LOADS[1:]:
        ptx = ptx.replace(line, "")
    return ptx


EDITS = {"no-decode": (no_decode, DECODE_SHAPES[::2]),
         "desync-300": (lambda ptx: desync(ptx, 300), DECODE_SHAPES[::2]),
         "desync-700": (lambda ptx: desync(ptx, 700), DECODE_SHAPES[::2]),
         "header-v4": (header_v4, DECODE_SHAPES)}


def main() -> None:
    goal_kernel_ab(__doc__.split("\n\n")[0], COMMAND, EDITS)


if __name__ == "__main__":
    main()
