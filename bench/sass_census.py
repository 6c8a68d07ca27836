"""SASS census of a compiled kernel's main loop: where the issue slots go.

    python -m bench.sass_census KERNEL.ptx --arch sm_90

Assembles with ptxas, disassembles with cuobjdump (pip: nvidia-cuda-cuobjdump and
nvidia-cuda-nvdisasm, or a CUDA toolkit), finds the K loop and counts opcodes inside it, per mma
instruction. The K loop is the innermost loop (a backward branch's range that holds no other) with the
most mma instructions, the largest where none has any: a stream-K kernel's loop over its tile segments
holds the K loop and the epilogue's stores, which are not per-step work (run 269 counted that outer
loop first).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from compiler.tools import find_ptxas, find_tool
from targets.ptx.ptxas import assemble
from targets.ptx.sass import disassemble

_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9]*)(\.[A-Z0-9_.]+)?[^;]*;")


def census(ptx: str, arch: str) -> tuple[Counter, str]:
    if find_ptxas() is None or find_tool("cuobjdump") is None:
        raise SystemExit("needs ptxas and cuobjdump (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)")
    assembled = assemble(ptx, arch)
    if not assembled.ok or assembled.cubin is None:
        raise SystemExit(f"ptxas rejected the PTX:\n{assembled.log}")
    return loop_census(assembled.cubin), assembled.log


def loop_census(cubin: bytes) -> Counter:
    """The opcodes of ``cubin``'s K loop (``k_loop``), counted: a cubin another compiler made (nvcc's, for the
    experiments' CUDA text) is read as qdot's are."""
    lines = disassemble(cubin).splitlines()
    loops = []
    for line in lines:
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?BRA\s+(?:!?U?P[T0-9]+,\s*)?0x([0-9a-f]+)", line)
        if m:
            here, target = int(m.group(1), 16), int(m.group(3), 16)
            if target < here:
                loops.append((target, here))
    ops = [(int(m.group(1), 16), m.group(2)) for m in map(_LINE.search, lines) if m]
    start, end = k_loop(loops, ops) if loops else (0, 1 << 62)
    return Counter(op for at, op in ops if start <= at <= end)


MMA_OPCODES = ("HMMA", "IMMA", "QMMA", "OMMA")


def k_loop(loops: list[tuple[int, int]], ops: list[tuple[int, str]]) -> tuple[int, int]:
    """The (first, last) address of the K loop among ``loops`` (backward branch ranges): the innermost one
    with the most mma instructions, the largest where none has any."""
    innermost = [loop for loop in loops
                 if not any(other != loop and loop[0] <= other[0] and other[1] <= loop[1] for other in loops)]

    def weight(loop: tuple[int, int]) -> tuple[int, int]:
        return (sum(1 for at, op in ops if loop[0] <= at <= loop[1] and op in MMA_OPCODES), loop[1] - loop[0])
    return max(innermost, key=weight)


def loop_spills(counts: Counter) -> dict[str, int]:
    """The spill instructions (``STL``, ``LDL``) of a ``census``: a value ptxas parks in local
    memory across the K loop costs nothing per step; one of these costs every step."""
    return {op: counts[op] for op in ("STL", "LDL") if counts.get(op)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ptx")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    counts, log = census(Path(args.ptx).read_text(), args.arch)
    mma = sum(v for k, v in counts.items() if k in MMA_OPCODES)
    total = sum(counts.values())
    print("\n".join(l for l in log.splitlines() if "registers" in l or "spill" in l))
    print(f"main loop: {total} instructions, {mma} mma ({total / max(mma, 1):.1f} per mma)")
    for op, n in counts.most_common(16):
        print(f"  {op:8s} {n:6d}  {n / max(mma, 1):5.2f}/mma")


if __name__ == "__main__":
    main()
