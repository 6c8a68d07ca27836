"""Experiment: issue the next tile's copies before waiting for this one's (run 95).

    python -m bench.experiments.issue_before_wait --prepare   # here: fill the kernel cache
    python -m bench.experiments.issue_before_wait             # on the GPU machine

``qdot-pipeline`` orders a K iteration as: wait until tile i has landed, barrier, copy tile
i + S - 1 into the ring slot iteration i - 1 read, compute tile i. With two stages a program then
has one tile in flight at any moment, and a copy is issued only once the previous one has
landed: the copy latency is paid once per step whatever the compute overlaps. Issued before the
wait instead — barrier (every warp is done with iteration i - 1's slot), copy tile i + S - 1, wait
until only that copy is pending, barrier (tile i visible to every thread), compute — two tiles
are in flight while a program waits, for one more barrier per step.

This is a measuring stick, not qdot output: the kernels' PTX with that one reordering made as a
text edit (``reorder``), each variant checked against ``compiler.numerics`` before it is timed,
interleaved with the compiled kernel over two repetitions.
"""

from __future__ import annotations

import argparse
import re

from bench.experiments.ptx_variants import run_ab
from bench.mmq import DECODE, PREFILL, compile_kernels, compile_quantizers
from compiler.mmq_template import MmqConfig

KERNELS = [DECODE[-1], PREFILL[0],
           ("small_m 64 w2 splitk s3 m1 fold=fma pdl l2p128",
            MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True,
                      l2_prefetch=128), 3)]
SHAPES = {True: ((1, 32768, 8192), (1, 4096, 14336), (1, 4096, 4096)),
          False: ((512, 4096, 14336), (512, 4096, 4096))}

_TOP = re.compile(r"^(\$L__BB\d+_\d+:\n)\tcp\.async\.wait_group \t(\d+);\n\tbar\.sync \t0;\n", re.M)


def reorder(ptx: str) -> str:
    """The loop whose first instructions are ``cp.async.wait_group N; bar.sync 0`` gets them as
    ``bar.sync 0`` there and ``cp.async.wait_group N+1; bar.sync 0`` after its first commit."""
    found = _TOP.search(ptx)
    if found is None:
        raise SystemExit("no pipelined loop head in this PTX")
    pending = int(found.group(2))
    head = found.group(1) + "\tbar.sync \t0;\n"
    rest = ptx[found.end():]
    commit = rest.index("\tcp.async.commit_group;\n") + len("\tcp.async.commit_group;\n")
    rest = rest[:commit] + f"\tcp.async.wait_group \t{pending + 1};\n\tbar.sync \t0;\n" + rest[commit:]
    return ptx[:found.start()] + head + rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = compile_kernels(KERNELS)
    quantizers_compiled = compile_quantizers()
    for _label, _cfg, _stages, kernel in compiled:
        reorder(kernel.ptx)  # fails here, not on the GPU, if the loop head changed
    if args.prepare:
        return
    run_ab(compiled, {label: reorder(kernel.ptx) for label, _cfg, _stages, kernel in compiled}, SHAPES,
           "issue_before_wait", "issue-before-wait", quantizers_compiled)


if __name__ == "__main__":
    main()
