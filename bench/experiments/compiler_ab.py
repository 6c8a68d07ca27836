"""Experiment: ``bench.mmq`` kernels of exact labels as this tree's compiler emits them, timed beside the same labels
compiled by another tree's compiler (the kernel cache on the GPU machine), interleaved in one process.

    python -m bench.experiments.compiler_ab --save-new NEW.json --label L ...       # here, this tree: its PTX
    python -m bench.experiments.compiler_ab --new NEW.json --label L ... [--reps R] # GPU machine, the old cache

Two processes, one per cache, let the machine drift between them; ``ptx_variants.run_ab`` times each shape of each
label in both forms back to back, every row checked against ``compiler.numerics`` first (run 311 did this by hand).
The old kernels come from ``$QDOT_KERNEL_CACHE`` (filled by the other tree: ``bench.mmq --prepare --label …`` there);
the new ones are launched with the old ones' ``KernelInfo``, so ``--save-new`` refuses a kernel whose info differs
(its shared memory, its arguments): that A/B needs both caches' launches. Decode labels run at M = 1 at the four
decode shapes, prefill labels at ``bench.mmq.PREFILL_SHAPES``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import bench.mmq as bm

COMMAND = "python -m bench.experiments.compiler_ab"
DECODE_SHAPES = [(1, n, k) for n, k in bm.DECODE_SHAPES]


def save_new(labels: list[str], path: Path) -> None:
    """This tree's PTX and ``KernelInfo`` of each label, as JSON."""
    rows = bm.compile_kernels(bm.selected(None, labels))
    path.write_text(json.dumps({label: {"ptx": kernel.ptx, "info": kernel.kernels[0].to_json()}
                                for label, _cfg, _stages, kernel in rows}, indent=1, sort_keys=True) + "\n")
    print(f"saved {len(rows)} kernels to {path}")


def run(labels: list[str], path: Path, reps: int) -> None:
    from bench.experiments.ptx_variants import run_ab
    from bench.gpu_common import gpu_or_exit
    from targets.ptx.kernel_info import KernelInfo

    gpu_or_exit(COMMAND)
    new = json.loads(path.read_text())
    compiled = bm.compile_kernels(bm.selected(None, labels))
    for label, _cfg, _stages, kernel in compiled:
        if label not in new:
            raise SystemExit(f"{COMMAND}: error: {path} has no kernel labelled {label!r}")
        if KernelInfo.from_json(new[label]["info"]) != kernel.kernels[0]:
            raise SystemExit(f"{COMMAND}: error: {label!r}: the new kernel's KernelInfo differs from the old one's")
    run_ab(compiled, {label: new[label]["ptx"] for label in new}, {True: DECODE_SHAPES, False: bm.PREFILL_SHAPES},
           "compiler_ab", "new", bm.compile_quantizers(), repetitions=reps)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", action="append", required=True, help="a bench.mmq label (repeatable)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save-new", type=Path, metavar="FILE", help="write this tree's PTX of the labels to FILE")
    group.add_argument("--new", type=Path, metavar="FILE", help="time FILE's PTX beside the cache's kernels")
    parser.add_argument("--reps", type=int, default=2, help="repetitions, both forms in each")
    args = parser.parse_args(argv)
    try:
        bm.selected(None, args.label)
    except ValueError as error:
        parser.error(str(error))
    if args.save_new:
        save_new(args.label, args.save_new)
    else:
        run(args.label, args.new, args.reps)


if __name__ == "__main__":
    main()
