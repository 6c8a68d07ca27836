"""Experiment: the q4_K kernels' K step without the barriers its scale staging does not need (run 96).

    python -m bench.experiments.fewer_barriers --prepare   # here: fill the kernel cache
    python -m bench.experiments.fewer_barriers             # on the GPU machine

A q4_K K step decodes its scales into shared memory (``_decode_once`` in qdot-accelerate-matmul;
the prefill kernel also stages its f16 fold operands) and each such register → shared copy
brings a barrier before its stores (earlier readers of the buffer) and one after (its readers).
Inside a pipelined loop the barrier before is redundant: the buffer's earlier readers are the
previous iteration's, and every thread has passed the ``cp.async`` wait's barrier at the top of
this iteration since. And two copies whose readers all come after the second need only the
second's barrier after. The decode kernel's step has 5 barriers and needs 2; the prefill
kernel's has 7, and without reordering its PTX 4 can go.

A measuring stick, not qdot output: the PTX with those ``bar.sync`` deleted (``drop``),
each variant checked against ``compiler.numerics`` first, interleaved with the compiled
kernel over two repetitions.
"""

from __future__ import annotations

import argparse
import re

from bench.experiments.ptx_variants import run_ab
from bench.mmq import DECODE, PREFILL, compile_kernels, compile_quantizers

KERNELS = [DECODE[-1], PREFILL[0]]
DROPPED = {True: (1, 2, 3), False: (1, 3, 5)}
"""Which of the K loop's barriers go (0 is the ``cp.async`` wait's), by whether it is the decode kernel."""
SHAPES = {True: ((1, 32768, 8192), (1, 4096, 14336), (1, 4096, 4096)),
          False: ((512, 4096, 14336), (512, 4096, 4096))}

_HEAD = re.compile(r"^\$L__BB\d+_\d+:\n\tcp\.async\.wait_group", re.M)
_BAR = "\tbar.sync \t0;\n"


def drop(ptx: str, which: tuple[int, ...], expected: int) -> str:
    """The pipelined K loop's barriers number ``which`` deleted (the loop must have ``expected``)."""
    head = _HEAD.search(ptx)
    if head is None:
        raise SystemExit("no pipelined loop head in this PTX")
    end = re.compile(r"\bbra(\.uni)? \t").search(ptx, head.end()).start()
    body = ptx[head.start():end]
    pieces = body.split(_BAR)
    if len(pieces) - 1 != expected:
        raise SystemExit(f"the K loop has {len(pieces) - 1} barriers, expected {expected}")
    out = pieces[0]
    for index, piece in enumerate(pieces[1:]):
        out += ("" if index in which else _BAR) + piece
    return ptx[:head.start()] + out + ptx[end:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    compiled = compile_kernels(KERNELS)
    quantizers_compiled = compile_quantizers()
    variants = {label: drop(kernel.ptx, DROPPED[cfg.small_m], 5 if cfg.small_m else 7)
                for label, cfg, _stages, kernel in compiled}
    if args.prepare:
        return
    run_ab(compiled, variants, SHAPES, "fewer_barriers", "fewer-barriers", quantizers_compiled)


if __name__ == "__main__":
    main()
