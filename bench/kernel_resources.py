"""Registers, spills, shared memory and occupancy of every benchmark kernel on its H200 target.

    python -m bench.kernel_resources mmq mx_gemm

ptxas -v, for the kernel's own ``.target`` (sm_90, or sm_90a for the wgmma kernels), gives
registers, spill bytes and static shared memory; the kernels' dynamic shared memory comes
from the compiler's metadata. Occupancy is computed the way
the CUDA occupancy calculator does for an H200 SM (``compiler.occupancy``): 65 536 registers allocated per warp
in units of 256, 228 KiB of shared memory in 128-byte units with 1 KiB reserved per CTA, 64 warps, 32 CTAs; the
last column is the shared-memory configuration those CTAs take and the L1 it leaves (runs 212–214: some decode
kernels need the larger L1).
Run it with ``QDOT_KERNEL_CACHE=.devrun/kernels QDOT_COMPILER_FINGERPRINT=$(cat
.devrun/kernels/FINGERPRINT)`` to describe exactly the kernels a GPU run measured.
"""

from __future__ import annotations

import argparse
import importlib
import re

from compiler.occupancy import L1_AND_SHARED_KB, carveout_kb, programs_per_sm
from targets.ptx.ptxas import assemble

BENCHES = ("mmq", "mx_gemm")
"""The benchmarks whose kernels it describes (each module's ``compile_all``)."""


def occupancy(registers: int, warps: int, shared: int) -> tuple[int, str]:
    """Resident CTAs per SM on an H200 and the resource that limits them (``compiler.occupancy``)."""
    return programs_per_sm(shared, 32 * warps, registers)


def main(benches: list[str]) -> None:
    print("| kernel | stages | warps | registers | spills st/ld (B) | shared (B) | CTAs/SM | limited by | "
          "shared / L1 (KB) |")
    print("|---|---|---|---|---|---|---|---|---|")
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
            carveout = carveout_kb(ctas, shared)
            print(f"| {label} | {stages} | {info.num_warps} | {ptxas.registers} | "
                  f"{ptxas.spill_stores} / {ptxas.spill_loads} | {shared} | {ctas} | {limiter} | "
                  f"{carveout} / {L1_AND_SHARED_KB - carveout} |")


def parse_args(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(prog="python -m bench.kernel_resources",
                                     description=__doc__.split("\n\n")[0] + " Prints a Markdown table.")
    parser.add_argument("benches", nargs="+", choices=BENCHES, metavar="BENCH",
                        help=f"the benchmarks whose kernels to describe: {', '.join(BENCHES)}")
    return parser.parse_args(argv).benches


if __name__ == "__main__":
    main(parse_args())
