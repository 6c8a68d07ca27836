"""How many programs of one kernel an SM holds at once: the one model the split-K grids
(``mmq_grid(..., resident=…)``), the runner's spread of programmatic launches and
``bench.kernel_resources``' table all count with.

The rule is the CUDA occupancy calculator's for sm_90: each resource bounds the programs per SM on its own, and
the least bound wins. Registers are allocated per warp in units of 256 (a thread's count rounded up to a multiple
of 8), to whole warps of each of the SM's four sub-partitions; shared memory per program in units of 128 bytes,
with 1 KiB more that the driver reserves; and an SM takes at most 2048 threads and 32 programs. The figures are
an H200's (``cudaDeviceProp``: 132 SMs, 233472 B of shared memory and 65536 registers per SM); the runner passes
the device's own shared memory figures. Runs 209 and 214 held the model to the driver's
``cuOccupancyMaxActiveBlocksPerMultiprocessor`` for every decode kernel of ``bench.mmq``.

Registers matter for the decode kernels whose per-thread count is high for their 64 threads: q2_K's
ggml-order kernels (160–166 registers) fit 6 programs per SM where their 15360 B of shared memory
would allow 14, so a model that counted shared memory only overestimated the programs resident at
once by more than 2 × — and padded their programmatic launches to cap what registers already cap.
"""

from __future__ import annotations

SHARED_PER_SM = 233472
RESERVED_PER_PROGRAM = 1024
REGISTERS_PER_SM = 65536
REGISTER_UNIT = 256
"""Registers are allocated to a warp in units of this many (8 per thread)."""
WARP_GROUP = 4
"""An SM's register file is four sub-partitions', each holding whole warps: the warps registers allow per SM are
a multiple of 4 (run 214: the driver holds 6 two-warp programs of 135 or 137 registers per SM — 15 warps' worth
of registers, 12 warps — where 65536 / (2 × 4352) would say 7)."""
SHARED_UNIT = 128
"""Shared memory is allocated to a program in units of this many bytes (run 213: the driver holds 6 programs of
32329 B per SM, 6 × (32384 + 1024) B, where 7 × (32329 + 1024) B would fit)."""
THREADS_PER_SM = 2048
PROGRAMS_PER_SM = 32
CARVEOUTS_KB = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
"""The shared-memory sizes an sm_90 SM can be configured with; the rest of its 256 KB is L1."""
L1_AND_SHARED_KB = 256


def allocated_shared(shared_bytes: int) -> int:
    """The shared memory the driver allocates a program asking ``shared_bytes``: whole ``SHARED_UNIT``s (without
    the ``RESERVED_PER_PROGRAM`` it adds)."""
    return -(-shared_bytes // SHARED_UNIT) * SHARED_UNIT


def programs_per_sm(shared_bytes: int, threads: int = 0, registers: int = 0, *,
                    shared_per_sm: int = SHARED_PER_SM, reserved_per_program: int = RESERVED_PER_PROGRAM,
                    registers_per_sm: int = REGISTERS_PER_SM, threads_per_sm: int = THREADS_PER_SM,
                    programs_limit: int = PROGRAMS_PER_SM) -> tuple[int, str]:
    """(programs an SM holds at once, the resource that bounds them: "shared memory", "registers",
    "threads" or "programs"). ``threads``: per program, 0 if not counted; ``registers``: per thread as
    ptxas allocates them, 0 if not counted; ``shared_bytes`` 0 counts no shared memory. At least 1: a
    kernel that fits no SM is refused at launch, not here."""
    if min(shared_bytes, threads, registers) < 0 or shared_per_sm < 1:
        raise ValueError(f"programs_per_sm: got shared_bytes = {shared_bytes}, threads = {threads}, "
                         f"registers = {registers}, shared_per_sm = {shared_per_sm}")
    limits: dict[str, int] = {}
    if threads and registers:
        warps = -(-threads // 32)
        per_warp = -(-registers * 32 // REGISTER_UNIT) * REGISTER_UNIT
        limits["registers"] = registers_per_sm // per_warp // WARP_GROUP * WARP_GROUP // warps
    if threads:
        limits["threads"] = threads_per_sm // threads
    limits["programs"] = programs_limit
    if shared_bytes:
        limits["shared memory"] = shared_per_sm // (allocated_shared(shared_bytes) + reserved_per_program)
    limiter = min(limits, key=limits.__getitem__)  # on a tie the first of this order, as bench tables always had
    return max(1, limits[limiter]), limiter


def carveout_kb(programs: int, shared_bytes: int, reserved_per_program: int = RESERVED_PER_PROGRAM) -> int:
    """The shared-memory configuration (KB) an SM takes for ``programs`` programs of ``shared_bytes`` each with
    no preference set: the smallest that holds them (runs 212–213 saw the driver choose so; L1 is what is left of
    256 KB). It matters: mxfp4's and iq4_xs's ggml-order decode kernels ran 18 % slower at 228 KB (28 KB of L1)
    than at 196 KB (60 KB) with the same 8 programs per SM."""
    need = programs * (allocated_shared(shared_bytes) + reserved_per_program) if shared_bytes else 0
    return next((kb for kb in CARVEOUTS_KB if kb * 1024 >= need), CARVEOUTS_KB[-1])


def carveout_percent(kb: int, shared_per_sm: int = SHARED_PER_SM) -> int:
    """The preferred carve-out (``CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT``, percent of the SM's
    largest shared-memory configuration) that gives the ``kb`` configuration: the driver takes the smallest
    configuration at least that large, so the floor of the percentage (run 213: 85 % gave 196 KB of 228)."""
    largest = shared_per_sm // 1024
    if kb not in CARVEOUTS_KB or kb > largest:
        raise ValueError(f"carveout_percent: {kb} KB is not one of the configurations {CARVEOUTS_KB} up to {largest}")
    return kb * 100 // largest


__all__ = ["CARVEOUTS_KB", "L1_AND_SHARED_KB", "PROGRAMS_PER_SM", "REGISTERS_PER_SM", "RESERVED_PER_PROGRAM",
           "SHARED_PER_SM", "SHARED_UNIT", "THREADS_PER_SM", "WARP_GROUP", "allocated_shared", "carveout_kb",
           "carveout_percent", "programs_per_sm"]
