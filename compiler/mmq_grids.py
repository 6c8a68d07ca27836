"""Launch geometry of the MMQ kernels: the grid of a config at a shape, the decode kernels' K splits, and how
many programs the GPU holds at once.

These are run-time choices (the kernels read their split count and stream-K program count from the grid), so they
live apart from the kernel text: one kernel serves every shape, and the numbers here (fitted to measured runs in
bench/RESULTS.md) choose how it is launched.
"""

from __future__ import annotations

from compiler import occupancy
from compiler.mmq_config import K_STEP_VALUES, SMALL_M_WIDEST, MmqConfig
from compiler.templates import check_config, check_grid_x, check_int, check_programs


SPLIT_TARGET_PROGRAMS = 1024
"""About eight programs per SM of an H200 (132 SMs): a program's K step is a long chain (wait,
decode, barrier, mma, rescale), so HBM needs many of them in flight. The three split defaults
are the best of the sweep in bench/RESULTS.md (run 8) for the 64-row, two-warp kernel."""
MAX_SPLITS = 16
MIN_BLOCKS_PER_SPLIT = 2


def split_factor(tiles: int, k: int, target: int = SPLIT_TARGET_PROGRAMS, max_splits: int = MAX_SPLITS,
                 min_blocks: int = MIN_BLOCKS_PER_SPLIT, resident: int | None = None) -> int:
    """K splits for ``tiles`` weight-row tiles: up to ``target`` programs, at least
    ``min_blocks`` super-blocks per split, at most ``max_splits`` splits — and then the fewest
    splits that keep the longest split as short: a split's K range is a chain of dependent
    steps, so 56 super-blocks in 16 splits (3 or 4 each) take as long as in 14 (4 each), which
    need fewer programs (run 55: 14.95 → 14.60 µs at M = 1, N = 4096, K = 14336).

    ``resident``, the programs the GPU holds at once (``resident_programs``): where that grid
    would overflow them, a second wave of a few programs runs alone at the end; the split count
    is then the one of least ``waves · (longest split + WAVE_OVERHEAD_STEPS)`` (fewest splits on a
    tie). Run 184, N = 32768, K = 8192 (32 super-blocks, 512 tiles): q6_K's one-token kernel (7
    programs per SM, 924 resident) took 60.2 / 77.0 / 61.0 / 65.5 µs in 1 / 2 / 3 / 4 splits, q5_1's
    61.4 / 62.4 / 56.3 / 59.0 — the model's order for both, 3 splits; q4_K (9 per SM) and q5_0 (8)
    hold 1024 programs at once and keep 2."""
    check_int("split_factor", "tiles", tiles, least=1)
    check_int("split_factor", "k", k, least=0)  # K = 0: one split, which has no work
    for name, value in (("target", target), ("max_splits", max_splits), ("min_blocks", min_blocks)):
        check_int("split_factor", name, value, least=1)
    from compiler.launch_plan import MAX_GRID

    if max_splits > MAX_GRID[1]:  # the wave model also walks every count up to it
        raise ValueError(f"split_factor: max_splits must be at most {MAX_GRID[1]} (the K splits are the grid's y "
                         f"dimension), got {max_splits}")
    if resident is not None:
        check_int("split_factor", "resident", resident)
        if resident < 1:
            raise ValueError(f"split_factor: resident must be the programs the GPU holds at once (≥ 1), got "
                             f"{resident}")
    blocks = k // K_STEP_VALUES
    splits = max(1, min(max_splits, -(-target // tiles), blocks // min_blocks))
    longest = -(-blocks // splits)
    splits = max(1, -(-blocks // longest)) if blocks else splits
    if resident is None or tiles * splits <= resident:
        return splits
    candidates = range(1, max(1, min(max_splits, blocks // min_blocks)) + 1)
    return min(candidates, key=lambda s: (-(-tiles * s // resident) * (-(-blocks // s) + WAVE_OVERHEAD_STEPS), s))


WAVE_OVERHEAD_STEPS = 3
"""A program's start and end (prologue, pipeline fill, the split-K store) in K steps of its chain,
for ``split_factor``'s wave model: fitted to run 184's eight q6_K / q5_1 rows (2 or 4 order them
the same way)."""


_LEAST_COUNT = {"shared_bytes": 0, "reserved_per_program": 0, "registers": 0, "sms": 1, "shared_per_sm": 1,
                "programs": 1, "threads_per_sm": 1, "programs_per_sm": 1, "granularity": 1}
"""The least value of each residency argument; ``threads`` is 0 (not counted) or more, but ``resident_programs``,
which counts threads always, needs one."""


def _check_counts(who: str, **counts: object) -> None:
    """Refuse a residency argument that is no int, or less than its least: a float there became a float program
    count, a str a Python ``TypeError`` from deep in ``compiler.occupancy``."""
    for name, value in counts.items():
        least = 1 if (name, who) == ("threads", "resident_programs") else _LEAST_COUNT.get(name, 0)
        check_int(who, name, value, least)


def resident_programs(shared_bytes: int, sms: int, shared_per_sm: int, reserved_per_program: int = 1024,
                      threads: int = 64, threads_per_sm: int = 2048, programs_per_sm: int = 32,
                      registers: int = 0) -> int:
    """Programs of a kernel the GPU holds at once: ``sms`` times what one SM holds by its shared memory,
    threads, registers (per thread as ptxas allocates them; 0: not counted) and the per-SM program limit
    (``compiler.occupancy.programs_per_sm``). H200 (``cudaDeviceProp``): 132 SMs, 233472 B of shared
    memory per SM, 1024 of them reserved per program. The runner's ``LoadedKernel.resident_programs``
    passes a loaded kernel's own registers: the q2_K, q5_K and lookup-format decode kernels are bound by
    them, not by shared memory."""
    _check_counts("resident_programs", shared_bytes=shared_bytes, sms=sms, shared_per_sm=shared_per_sm,
                  reserved_per_program=reserved_per_program, threads=threads, threads_per_sm=threads_per_sm,
                  programs_per_sm=programs_per_sm, registers=registers)
    per_sm, _ = occupancy.programs_per_sm(shared_bytes, threads, registers, shared_per_sm=shared_per_sm,
                                          reserved_per_program=reserved_per_program,
                                          threads_per_sm=threads_per_sm, programs_limit=programs_per_sm)
    return sms * per_sm


def spread_shared_bytes(shared_bytes: int, programs: int, sms: int, shared_per_sm: int,
                        reserved_per_program: int = occupancy.RESERVED_PER_PROGRAM,
                        granularity: int = occupancy.SHARED_UNIT, *, threads: int = 0,
                        registers: int = 0) -> int:
    """The dynamic shared memory to launch a one-wave grid of ``programs`` with so that no SM can take more
    than ⌈programs / sms⌉ of them: ``shared_bytes`` where that is already so — by shared memory, or by
    ``threads`` per program and ``registers`` per thread where given (0: not counted) —, else the smallest
    multiple of ``granularity`` above it at which one program more no longer fits on an SM.

    A programmatic launch of such a grid with room left on the SMs sometimes lands unevenly, and the decode
    kernels bound by their instructions per SM (iq4_xs's, iq4_nl's, mxfp4's table lookups) then take up to 20 %
    longer; capped they do not (run 197, padded to 28160 B at 32768 × 8192: iq4_xs's one-token MUL_MAT 67.5 →
    55.8 µs, q4_K's unchanged). The least padding is asked for because size itself costs: 32 KB and more per
    program slowed every kernel 5–15 % at 4096 × 14336, where a padding just past the threshold (28224 B, 7 per
    SM) changed nothing (run 199, launched plainly). A grid of more than one wave (``shared_bytes`` already allows
    no more than ⌈programs / sms⌉ per SM) is left as it is, and so is a kernel whose registers already cap it (q2_K's
    ggml-order decode kernels: 6 per SM) — where a padding lowers no cap it can still cost: 128 bytes cost
    mxfp4's and iq4_xs's 128-register decode kernels 18 %, pushing 8 programs past 196 KB per SM and so the SM's
    L1 from 60 to 28 KB (runs 209, 212–213: the shared-memory carve-out). The runner pads
    every programmatic launch so by default (``LoadedKernel.shared_bytes_for``): in runs 200 and 210 none of 66
    decode MUL_MATs padded so was more than 0.9 % slower for it."""
    _check_counts("spread_shared_bytes", shared_bytes=shared_bytes, programs=programs, sms=sms,
                  shared_per_sm=shared_per_sm, reserved_per_program=reserved_per_program, granularity=granularity,
                  threads=threads, registers=registers)
    cap = -(-programs // sms)
    held, _ = occupancy.programs_per_sm(shared_bytes, threads, registers, shared_per_sm=shared_per_sm,
                                        reserved_per_program=reserved_per_program)
    if held <= cap:  # capped already, or more than one wave
        return shared_bytes
    least = shared_per_sm // (cap + 1) - reserved_per_program + 1  # one program more no longer fits
    return max(shared_bytes, -(-least // granularity) * granularity)


def spread_launch(shared_bytes: int, programs: int, sms: int, shared_per_sm: int,
                  reserved_per_program: int = occupancy.RESERVED_PER_PROGRAM,
                  *, threads: int = 0, registers: int = 0) -> tuple[int, int | None]:
    """(dynamic shared memory, shared-memory configuration in KB to prefer, or None for the driver's choice) for a
    programmatic launch of ``programs``. One wave: ``spread_shared_bytes``' cap at ⌈programs / sms⌉ per SM, the
    driver's configuration (runs 216–217: capping by the configuration instead was no faster). More than one wave,
    where the programs an SM holds put it in its largest configuration (228 KB of shared memory, 28 KB of L1) and
    one program fewer fits a smaller one: that one — the kernel's own shared memory then fills it, as the smallest
    configuration holding one program fewer cannot hold one more. Run 220: q5_K's, q5_1's and q6_K's decode
    kernels (7 per SM at 29184–31488 B) at N = 32768, K = 8192 (512 × 3 programs, two waves), 6 per SM under
    196 KB: 0.924–1.000 × the MUL_MAT time over 17 (kernel, M) pairs; kernels already under a smaller
    configuration lost 8–12 % with one program fewer (6 → 5 per SM at 164 / 196 KB: mxfp4's, iq4_xs's and q5_K's
    register-bound one-token kernels)."""
    _check_counts("spread_launch", shared_bytes=shared_bytes, programs=programs, sms=sms, shared_per_sm=shared_per_sm,
                  reserved_per_program=reserved_per_program, threads=threads, registers=registers)
    held, _ = occupancy.programs_per_sm(shared_bytes, threads, registers, shared_per_sm=shared_per_sm,
                                        reserved_per_program=reserved_per_program)
    if programs <= held * sms:
        return spread_shared_bytes(shared_bytes, programs, sms, shared_per_sm, reserved_per_program,
                                   threads=threads, registers=registers), None
    largest = shared_per_sm // 1024
    if held < 2 or occupancy.carveout_kb(held, shared_bytes, reserved_per_program) < largest:
        return shared_bytes, None
    fewer = occupancy.carveout_kb(held - 1, shared_bytes, reserved_per_program)
    return shared_bytes, fewer if fewer < largest else None


STREAM_K_PROGRAMS = 132
"""Programs of a stream-K grid per resident program per SM: the H200's SM count (a run-time
choice: the kernel reads the count from the grid)."""


def mmq_grid(cfg: MmqConfig, m: int, n: int, k: int, programs: int | None = None,
             **split: int) -> tuple[int, int, int]:
    """The launch grid of ``cfg`` for Y[m, n] += X[m, k] · W[n, k]ᵀ. ``split`` overrides
    ``split_factor``'s defaults (a run-time choice: the kernel reads its split count from
    the grid) — ``resident=resident_programs(...)`` lets it avoid a short second wave;
    ``programs`` the size of a stream-K grid (default: ``STREAM_K_PROGRAMS`` times
    ``min_blocks_per_sm``, or once without it, at most one per iteration).

    A small_m grid runs over weight rows (and K splits) only, the same for every M ≤ max_m, so
    each weight byte is read once whatever M is (seed 000 §12.4); it raises ``ValueError`` for
    M > ``cfg.max_m``, whose rows max_m.. the kernel would leave unwritten: M > 64 needs the mmq
    kernel, a smaller M a small_m config with a larger max_m (or the mmq kernel).

    M and N must be positive ints (an empty Y has no tile to launch a program for), K an int ≥ 0: the
    kernels take K = 0 (stream-K's shares and the split-K decode's one split are then empty, and the
    fix-up stores zeros). Arguments the grid would not use are refused rather than ignored: ``programs``
    but for a stream-K grid, the split overrides for a prefill grid (``max_splits=1`` excepted: every grid
    keeps to it). A decode grid takes them with or without split_k (without, it has one split whatever
    they say), so one set of overrides serves every decode kernel. A shape whose grid would hold more programs
    along x than CUDA launches (``launch_plan.MAX_GRID``: 2^31 − 1) is a ``ValueError`` naming the dimensions to
    split (``compiler.templates.check_grid_x``)."""
    check_config("mmq_grid", cfg, MmqConfig, "an")
    check_int("mmq_grid", "m", m, least=1)
    check_int("mmq_grid", "n", n, least=1)
    check_int("mmq_grid", "k", k, least=0)
    unknown = sorted(set(split) - set(SPLIT_ARGUMENTS))
    if unknown:
        raise TypeError(f"mmq_grid: unexpected keyword argument {unknown[0]!r} (the split-K grid's overrides: "
                        f"{', '.join(SPLIT_ARGUMENTS)})")
    if programs is not None:
        if not cfg.stream_k:
            raise ValueError(f"mmq_grid: programs is the size of a stream-K grid; {cfg.name} has one program per "
                             f"{'weight-row tile and K split' if cfg.small_m else 'output tile'}")
        check_programs("mmq_grid", programs)
    split_factor(1, k, **split)  # its checks of the overrides, for every grid (some have no split to use them)
    unused = [name for name, value in split.items() if not (name == "max_splits" and value == 1)]
    if unused and not cfg.small_m:
        raise ValueError(f"mmq_grid: {unused[0]} overrides the K split of a decode grid (small_m with split_k); "
                         f"{cfg.name} is a prefill kernel, which does not split K")
    if cfg.small_m:
        if m > cfg.max_m:
            raise ValueError(_small_m_refusal(cfg, m))
        tiles = -(-n // cfg.block_n)
        check_grid_x("mmq_grid", tiles, f"N = {n} needs", f"one per {cfg.block_n} weight rows", "N")
        return (tiles, split_factor(tiles, k, **split) if cfg.split_k else 1, 1)
    tiles = -(-m // cfg.block_m) * -(-n // cfg.block_n)
    if not cfg.stream_k:
        check_grid_x("mmq_grid", tiles, f"M = {m}, N = {n} need",
                     f"one per {cfg.block_m} × {cfg.block_n} output tile", "M or N")
    if cfg.stream_k:
        slots = programs or STREAM_K_PROGRAMS * max(1, cfg.min_blocks_per_sm)
        return (max(1, min(slots, tiles * (k // K_STEP_VALUES))), 1, 1)
    return (tiles, 1, 1)


SPLIT_ARGUMENTS = ("target", "max_splits", "min_blocks", "resident")
"""``split_factor``'s overrides, which ``mmq_grid`` passes on from its keyword arguments."""


def _small_m_refusal(cfg: MmqConfig, m: int) -> str:
    unwritten = f"row {cfg.max_m}" if m == cfg.max_m + 1 else f"rows {cfg.max_m}..{m - 1}"
    what = (f"mmq_grid: {cfg.name} (small_m, max_m = {cfg.max_m}) serves M ≤ {cfg.max_m}, got M = {m}: "
            f"{unwritten} of Y would be left unwritten; ")
    if m > SMALL_M_WIDEST:
        return what + (f"use the mmq kernel (MmqConfig(small_m=False)) for M > {SMALL_M_WIDEST}: max_m cannot "
                       f"exceed SMALL_M_WIDEST = {SMALL_M_WIDEST}")
    return what + (f"use a small_m config with max_m ≥ {m} (at most SMALL_M_WIDEST = {SMALL_M_WIDEST}) or the mmq "
                   "kernel (MmqConfig(small_m=False))")
