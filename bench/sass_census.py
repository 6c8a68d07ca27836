"""SASS census of a compiled kernel's main loop: where the issue slots go.

    python -m bench.sass_census KERNEL.ptx --arch sm_90

Assembles with ptxas, disassembles with cuobjdump (pip: nvidia-cuda-cuobjdump and
nvidia-cuda-nvdisasm, or a CUDA toolkit), finds the K loop (the largest backward
branch range) and counts opcodes inside it, per mma instruction.
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
    sass = disassemble(assembled.cubin)
    lines = sass.splitlines()
    loops = []
    for line in lines:
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?BRA\s+0x([0-9a-f]+)", line)
        if m:
            here, target = int(m.group(1), 16), int(m.group(3), 16)
            if target < here:
                loops.append((target, here))
    start, end = max(loops, key=lambda r: r[1] - r[0]) if loops else (0, 1 << 62)
    counts: Counter = Counter()
    for line in lines:
        m = _LINE.search(line)
        if m and start <= int(m.group(1), 16) <= end:
            counts[m.group(2)] += 1
    return counts, assembled.log


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
    mma = sum(v for k, v in counts.items() if k in ("HMMA", "IMMA", "QMMA", "OMMA"))
    total = sum(counts.values())
    print("\n".join(l for l in log.splitlines() if "registers" in l or "spill" in l))
    print(f"main loop: {total} instructions, {mma} mma ({total / max(mma, 1):.1f} per mma)")
    for op, n in counts.most_common(16):
        print(f"  {op:8s} {n:6d}  {n / max(mma, 1):5.2f}/mma")


if __name__ == "__main__":
    main()
