"""Registers, spills, shared memory and occupancy of every benchmark kernel on its H200 target.

    python -m bench.kernel_resources mmq mx_gemm

ptxas -v, for the kernel's own ``.target`` (sm_90, or sm_90a for the wgmma kernels), gives
registers, spill bytes and static shared memory; the kernels' dynamic shared memory comes
from the compiler's metadata. Occupancy is computed the way
the CUDA occupancy calculator does for an H200 SM: 65 536 registers allocated per warp in
units of 256, 228 KiB of shared memory with 1 KiB reserved per CTA, 64 warps, 32 CTAs.
Run it with ``QDOT_KERNEL_CACHE=.devrun/kernels QDOT_COMPILER_FINGERPRINT=$(cat
.devrun/kernels/FINGERPRINT)`` to describe exactly the kernels a GPU run measured.
"""

from __future__ import annotations

import importlib
import re
import sys

from targets.ptx.ptxas import assemble

SM_REGISTERS, SM_SHARED, CTA_RESERVED, SM_WARPS, SM_CTAS = 65536, 233472, 1024, 64, 32


def occupancy(registers: int, warps: int, shared: int) -> tuple[int, str]:
    """Resident CTAs per SM and the resource that limits them."""
    per_warp = -(-registers * 32 // 256) * 256
    limits = {"registers": SM_REGISTERS // (per_warp * warps), "warps": SM_WARPS // warps, "CTAs": SM_CTAS,
              "shared memory": SM_SHARED // (shared + CTA_RESERVED)}
    limiter = min(limits, key=limits.get)
    return limits[limiter], limiter


def main(benches: list[str]) -> None:
    print("| kernel | stages | warps | registers | spills st/ld (B) | shared (B) | CTAs/SM | limited by |")
    print("|---|---|---|---|---|---|---|---|")
    for name in benches:
        kernels = importlib.import_module(f"bench.{name}").compile_all()
        entries = kernels[0] if isinstance(kernels, tuple) else kernels
        for entry in entries:
            label, stages, compiled = entry[0], entry[-2] if isinstance(entry[-2], int) else "", entry[-1]
            info = compiled.kernels[0]
            target = re.search(r"^\.target\s+(\w+)", compiled.ptx, re.MULTILINE)
            ptxas = assemble(compiled.ptx, target.group(1) if target else "sm_90").kernel(info.name)
            shared = info.shared_bytes + ptxas.shared_bytes  # dynamic (compiler) + static (ptxas)
            ctas, limiter = occupancy(ptxas.registers, info.num_warps, shared)
            print(f"| {label} | {stages} | {info.num_warps} | {ptxas.registers} | "
                  f"{ptxas.spill_stores} / {ptxas.spill_loads} | {shared} | {ctas} | {limiter} |")


if __name__ == "__main__":
    main(sys.argv[1:])
