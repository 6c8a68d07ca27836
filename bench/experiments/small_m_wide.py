"""Experiment (runs 235–238): the M ≤ 8 kernel widened to 16, 32 and 64 tokens, against stream-K at 9 ≤ M ≤ 64.
    python -m bench.experiments.small_m_wide --prepare   # here: fill the kernel cache (with each mode's flag)
    python -m bench.experiments.small_m_wide             # on the GPU machine: q4_K's sweep (run 235)
    python -m bench.experiments.small_m_wide --formats   # run 236: every format, the widened kernels and stream-K
    python -m bench.experiments.small_m_wide --two-warps # run 237: 32 tokens on 2 warps, and W repacked
    python -m bench.experiments.small_m_wide --unpaired  # run 238: q6_K, q3_K, q2_K where K rules out their pairs
    python -m bench.experiments.small_m_wide --shapes    # run 239: other N and K, against both prefill grids
    python -m bench.experiments.small_m_wide --wide64    # run 241: the 64-token tile at M = 33-64 over seven shapes
    python -m bench.experiments.small_m_wide --wide64-formats  # run 242: the other formats and orders, small shapes
    python -m bench.experiments.small_m_wide --wide64-splits   # run 243: the 64-token tile's K splits, larger W
    python -m bench.experiments.small_m_wide --stages    # run 245: the widened kernels in 1, 2 and 3 stages
    python -m bench.experiments.small_m_wide --wide64-threshold  # run 247: W between 2^24 and 2^25 weights
Runs 232–234 left M = 9–16 to stream-K on the prefill tile (36.5 µs for q4_K at N = 4096, K = 14336), though two calls
of the M ≤ 8 kernel (15.6 µs each) would be faster. The small_m kernel's grid has no M dimension — each program
multiplies its weight rows by every token — so its n tile can hold 16, 32 or 64 tokens (``MmqConfig(max_m=…)``), still
reading each weight byte once. Here q4_K's widened kernels (2 and 4 warps, ggml's order and repacked, 64 and 128
weight rows) at M = 9 … 64 on three shapes against ``choose_mmq``'s kernel at each M (stream-K there) and the M ≤ 8
kernel at M = 8; ``--formats`` (run 236): every format's decode kernel of ``choose_mmq`` widened to 16 tokens (on its
2 warps), 32 and 64 (on 4) against stream-K at M = 16, 32 and 64. Run 235 found 2 warps faster than 4 for q4_K's 32
tokens; ``--two-warps`` (run 237): every format's 32-token kernel on 2 warps at M = 17 and 32, and, with W repacked,
the 16- and 32-token kernels against the repacked stream-K; ``--unpaired`` (run 238): the kernels ``choose_mmq`` picks
for q6_K, q3_K and q2_K in ggml's order at M = 16 and 32 where K is an odd number of super-blocks (no aligned pairs),
against stream-K; ``--shapes`` (run 239): ``choose_mmq``'s widened kernels for q4_K, q8_0, q6_K and q2_K at M = 16 and
32 on two more shapes (3584 × 3584 and 32768 × 8192, where the plain prefill grid at M ≤ 64 has 28 and 256 tiles)
against the prefill tile's plain and stream-K grids. Runs 235–236 found the 64-token tile (4 warps) faster than
stream-K at N = K = 4096 and slower at 4096 × 14336 and 14336 × 4096; ``--wide64`` (run 241): it against both prefill
grids at M = 33, 48 and 64 for five formats (q4_K also repacked, and on 128 weight rows and 8 warps) over seven
shapes of 12.8 M to 58.7 M weights, to find where it pays; ``--wide64-formats`` (run 242): the same for every other
format and order at M = 33 and 64 on the three shapes of at most 2^24 weights, against ``choose_mmq``'s kernel
(stream-K there); ``--wide64-splits`` (run 243): q4_K's and q8_0's 64-token kernel at M = 48 on the four larger
shapes with 1 to 16 K splits forced, against the default grid (``split_factor``'s wave model, which fits the 2
programs per SM its registers allow in one wave), to see whether the grid, not the tile, loses there;
``--stages`` (run 245): the widened kernels ``choose_mmq`` picks (16, 32 and 64 tokens; 64 also for q6_K and q2_K,
as ``--wide64`` built them) for six formats and q4_K repacked, in 1, 2 and 3 stages, at M = 16, 32 and 48 — they
took the M ≤ 8 kernel's stage count untuned; ``--wide64-threshold`` (run 247): the 64-token kernel against stream-K
for q4_K, q4_0 and q8_0 at M = 33, 48, 64 on four shapes between the 2^24 weights ``choose_mmq`` allows it and the
2^25 where run 241 found it mixed (21 M to 25 M weights). Each kernel is checked against ``compiler.numerics``
before it is timed (``bench.mmq.measure``).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import bench.mmq as mmq
from compiler.mmq_choice import ALIGNED_PAIRS, MmqChoice, choose_mmq
from compiler.mmq_template import WEIGHT_FORMATS, MmqConfig

MS = (9, 12, 16, 24, 32, 48, 64)
SHAPES = ((4096, 14336), (4096, 4096), (14336, 4096))
FORMAT_MS = (16, 32, 64)
FORMAT_SHAPES = ((4096, 14336), (4096, 4096))
TWO_WARP_MS = (16, 17, 32)
UNPAIRED_SHAPES = ((4096, 14080), (4096, 3840))
OTHER_SHAPES = ((3584, 3584), (32768, 8192))
SHAPE_FORMATS = ("q4_K", "q8_0", "q6_K", "q2_K")
WIDE64_MS = (33, 48, 64)
WIDE64_SHAPES = ((3584, 3584), (4096, 4096), (2048, 8192), (4096, 8192), (8192, 4096), (4096, 14336), (14336, 4096))
WIDE64_FORMATS = ("q4_K", "q4_0", "q8_0", "q6_K", "q2_K")
WIDE64_SMALL_SHAPES = WIDE64_SHAPES[:3]  # 12.8 M and 16.8 M weights
_DECODE = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
WIDE = ((16, 2), (16, 4), (32, 2), (32, 4), (64, 4))  # (max_m, num_warps)


def widened(decode: MmqConfig, **changes) -> MmqConfig:
    """``choose_mmq``'s M ≤ 8 kernel ``decode`` with ``changes`` (its n tile widened), the copy guard kept and the
    fold buffers plain: the choice drops the guard for some formats' 8-token kernels (``UNGUARDED_EIGHT_TOKENS``) and
    swizzles q4_K's repacked one's fold buffers (``SWIZZLED_FOLDS_EIGHT_TOKENS``), not the widened ones'."""
    return replace(decode, guard_copies=True, swizzle_fold_buffers=False, **changes)


def widened_to_64(decode: MmqChoice) -> MmqConfig:
    """``choose_mmq``'s M ≤ 8 kernel with its n tile widened to 64 tokens, on the 4 warps it needs (2 spill)."""
    return widened(decode.cfg, max_m=64, num_warps=4)


def stream_k_choice(weights: str, tiled: bool = False) -> MmqChoice:
    """The prefill tile ``choose_mmq`` takes for ``weights`` in the stream-K grid, as it chose for every M = 33-256
    at N = K = 4096 when these runs were made (run 241 gives the smallest shapes the 64-token tile at M ≤ 64)."""
    plain = choose_mmq(weights, 512, 4096, 4096, tiled)  # 256 tiles: the plain grid, the same tile
    return replace(plain, cfg=replace(plain.cfg, stream_k=True))


def q4k_entries() -> list[tuple[str, MmqConfig, int]]:
    """q4_K's widened kernels, the M ≤ 8 kernel, and the stream-K prefill ``choose_mmq`` takes at these M."""
    out = [("small_m 64 w2 splitk s2", _DECODE, 2)]
    for max_m, warps in WIDE:
        out.append((f"small_m 64 w{warps} splitk s2 m{max_m}", replace(_DECODE, max_m=max_m, num_warps=warps), 2))
    for max_m, warps in ((16, 2), (32, 4), (64, 4)):
        out.append((f"small_m 64 w{warps} splitk s2 m{max_m} wt",
                    replace(_DECODE, max_m=max_m, num_warps=warps, tiled_weights=True), 2))
        out.append((f"small_m 128 w{2 * warps} splitk s2 m{max_m}",
                    replace(_DECODE, block_n=128, max_m=max_m, num_warps=2 * warps), 2))
    choice = stream_k_choice("q4_K")  # as at M = 9-32 before run 235
    return [*out, ("mmq 64x128 w4 s2 b2 streamk", choice.cfg, choice.num_stages),
            ("mmq 64x128 w4 s2 b2 streamk wt", replace(choice.cfg, tiled_weights=True), choice.num_stages)]


def format_entries() -> list[tuple[str, MmqConfig, int]]:
    """Every other format: ``choose_mmq``'s decode kernel (K a multiple of 512, ggml's order) widened to 16, 32 and
    64 tokens, and its choice just past the widened kernels (stream-K on the format's prefill tile)."""
    out = []
    for weights in WEIGHT_FORMATS:
        if weights == "q4_K":
            continue
        decode, prefill = choose_mmq(weights, 8, 4096, 4096), stream_k_choice(weights)
        for max_m, warps in ((16, 2), (32, 4), (64, 4)):
            out.append((f"small_m 64 w{warps} splitk s{decode.num_stages} m{max_m} {weights}",
                        widened(decode.cfg, max_m=max_m, num_warps=warps), decode.num_stages))
        out.append((f"mmq 64x{prefill.cfg.block_n} w4 s2 b2 streamk {weights}", prefill.cfg, prefill.num_stages))
    return out


def two_warp_entries() -> list[tuple[str, MmqConfig, int]]:
    """Every format's decode kernel of ``choose_mmq`` widened to 32 tokens on its 2 warps; repacked, widened to 16
    and 32 tokens, and the repacked stream-K ``choose_mmq`` takes just past the widened kernels."""
    out = []
    for weights in WEIGHT_FORMATS:
        decode, tiled = choose_mmq(weights, 8, 4096, 4096), choose_mmq(weights, 8, 4096, 4096, tiled_weights=True)
        prefill = stream_k_choice(weights, tiled=True)
        out += [(f"small_m 64 w2 splitk s{decode.num_stages} m32 {weights}", widened(decode.cfg, max_m=32),
                 decode.num_stages),
                (f"small_m 64 w2 splitk s{tiled.num_stages} m16 wt {weights}", widened(tiled.cfg, max_m=16),
                 tiled.num_stages),
                (f"small_m 64 w2 splitk s{tiled.num_stages} m32 wt {weights}", widened(tiled.cfg, max_m=32),
                 tiled.num_stages),
                (f"mmq 64x{prefill.cfg.block_n} w4 s2 b2 streamk wt {weights}", prefill.cfg, prefill.num_stages)]
    return out


def unpaired_entries() -> list[tuple[str, MmqConfig, int]]:
    """``choose_mmq``'s kernels for the ``ALIGNED_PAIRS`` formats in ggml's order at M = 16 and 32 with K not a
    multiple of 512 (one super-block per stage), and the stream-K prefill on their tile."""
    out = []
    for weights in ALIGNED_PAIRS:
        for m in (16, 32):
            choice = choose_mmq(weights, m, UNPAIRED_SHAPES[0][0], UNPAIRED_SHAPES[0][1])
            cfg = choice.cfg
            out.append((f"small_m 64 w{cfg.num_warps} splitk s{choice.num_stages} m{cfg.max_m} {weights}", cfg,
                        choice.num_stages))
        streamk = stream_k_choice(weights)
        out.append((f"mmq 64x{streamk.cfg.block_n} w4 s2 b2 streamk {weights}", streamk.cfg, streamk.num_stages))
    return out


def shape_entries() -> list[tuple[str, MmqConfig, int]]:
    """``choose_mmq``'s widened kernels for four formats at M = 16 and 32 (ggml's order, K a multiple of 512), and
    their prefill tile in the plain grid and in stream-K."""
    out = []
    for weights in SHAPE_FORMATS:
        for m in (16, 32):
            choice = choose_mmq(weights, m, 4096, 4096)
            out.append((f"small_m 64 w{choice.cfg.num_warps} splitk s{choice.num_stages} m{m} {weights}", choice.cfg,
                        choice.num_stages))
        plain = choose_mmq(weights, 512, 4096, 4096)
        out += [(f"mmq 64x{plain.cfg.block_n} w4 s2 b2 {weights}", plain.cfg, plain.num_stages),
                (f"mmq 64x{plain.cfg.block_n} w4 s2 b2 streamk {weights}", replace(plain.cfg, stream_k=True),
                 plain.num_stages)]
    return out


def wide64_entries() -> list[tuple[str, MmqConfig, int]]:
    """Five formats' decode kernel of ``choose_mmq`` (ggml's order, K a multiple of 512) widened to 64 tokens on 4
    warps, and their prefill tile in the plain grid and in stream-K; q4_K's three also with W repacked."""
    out = []
    for weights, tiled in [(w, False) for w in WIDE64_FORMATS] + [("q4_K", True)]:
        decode, plain = choose_mmq(weights, 8, 4096, 4096, tiled), choose_mmq(weights, 512, 4096, 4096, tiled)
        order = " wt" if tiled else ""
        out += [(f"small_m 64 w4 splitk s{decode.num_stages} m64{order} {weights}", widened_to_64(decode),
                 decode.num_stages),
                (f"mmq 64x{plain.cfg.block_n} w4 s2 b2{order} {weights}", plain.cfg, plain.num_stages),
                (f"mmq 64x{plain.cfg.block_n} w4 s2 b2 streamk{order} {weights}", replace(plain.cfg, stream_k=True),
                 plain.num_stages)]
    wide = widened(choose_mmq("q4_K", 8, 4096, 4096).cfg, block_n=128, max_m=64, num_warps=8)
    return [*out, ("small_m 128 w8 splitk s2 m64 q4_K", wide, 2)]  # 4 × 2 warps of 32 × 32, as 64 rows' 2 × 2


def wide64_format_entries() -> list[tuple[str, MmqConfig, int]]:
    """``wide64_entries``' 64-token kernel for the formats and orders it left out (every format but q4_K repacked),
    and ``choose_mmq``'s kernel at M = 33 (stream-K on the small shapes)."""
    out = []
    cases = [(w, False) for w in WEIGHT_FORMATS if w not in WIDE64_FORMATS] + [(w, True) for w in WEIGHT_FORMATS
                                                                               if w != "q4_K"]
    for weights, tiled in cases:
        decode, streamk = choose_mmq(weights, 8, 4096, 4096, tiled), stream_k_choice(weights, tiled)
        order = " wt" if tiled else ""
        out += [(f"small_m 64 w4 splitk s{decode.num_stages} m64{order} {weights}", widened_to_64(decode),
                 decode.num_stages),
                (f"mmq 64x{streamk.cfg.block_n} w4 s2 b2 streamk{order} {weights}", streamk.cfg, streamk.num_stages)]
    return out


SPLITS = (1, 2, 3, 4, 6, 8, 12, 16)
SPLIT_SHAPES = ((4096, 8192), (8192, 4096), (4096, 14336), (14336, 4096))


def wide64_split_entries() -> list[tuple[str, MmqConfig, int]]:
    """q4_K's and q8_0's 64-token kernels of ``wide64_entries`` (ggml's order)."""
    return [(label, cfg, stages) for label, cfg, stages in wide64_entries() if cfg.small_m and cfg.block_n == 64
            and not cfg.tiled_weights and cfg.weights in ("q4_K", "q8_0")]


def time_splits(kernels: list, quantizers_compiled: dict, ms: tuple[int, ...], shapes: tuple) -> None:
    """On the GPU machine: each kernel at each M of ``ms`` on ``shapes`` with its default grid, then with each of
    ``SPLITS`` K splits forced (``mmq_grid``'s ``split_factor`` arguments; its rounding to the fewest splits of the
    same longest share may lower the count: the row's grid has the one launched)."""
    from bench.gpu_common import gpu_or_exit, record

    cupy = gpu_or_exit("python -m bench.experiments.small_m_wide --wide64-splits")
    quantizers, rng, flush = mmq.measuring_setup(cupy, quantizers_compiled)
    loaded = mmq.load_kernels(kernels)
    for n, k in shapes:
        for label, cfg, stages, kernel, info in loaded:
            for m in ms:
                record(mmq.measure(cupy, kernel, quantizers, label, cfg, stages, info, m, n, k, rng, flush))
                tiles = -(-n // cfg.block_n)
                for splits in SPLITS:
                    forced = {"target": splits * tiles, "max_splits": splits, "min_blocks": 1}
                    record(mmq.measure(cupy, kernel, quantizers, f"{label} splits={splits}", cfg, stages, info, m,
                                       n, k, rng, flush, **forced))
        cupy.get_default_memory_pool().free_all_blocks()


STAGE_FORMATS = ("q4_K", "q4_0", "q8_0", "q5_K", "q6_K", "q2_K")


def stage_entries() -> list[tuple[str, MmqConfig, int]]:
    """``choose_mmq``'s widened kernels at M = 16 and 32 (N = K = 4096) and ``wide64_entries``' 64-token one, for
    ``STAGE_FORMATS`` in ggml's order and q4_K repacked, each in 1, 2 and 3 stages."""
    out = []
    for weights, tiled in [(w, False) for w in STAGE_FORMATS] + [("q4_K", True)]:
        decode = choose_mmq(weights, 8, 4096, 4096, tiled)
        cfgs = [choose_mmq(weights, m, 4096, 4096, tiled).cfg for m in (16, 32)]
        cfgs.append(widened_to_64(decode))
        order = " wt" if tiled else ""
        for cfg in cfgs:
            for stages in (1, 2, 3):
                out.append((f"small_m 64 w{cfg.num_warps} splitk s{stages} m{cfg.max_m}{order} {weights}", cfg,
                            stages))
    return out


THRESHOLD_SHAPES = ((2560, 8192), (2048, 11008), (11008, 2048), (3072, 8192))
THRESHOLD_FORMATS = ("q4_K", "q4_0", "q8_0")


def threshold_entries() -> list[tuple[str, MmqConfig, int]]:
    """``wide64_entries``' 64-token kernel and stream-K for ``THRESHOLD_FORMATS`` in ggml's order."""
    return [(label, cfg, stages) for label, cfg, stages in wide64_entries()
            if (cfg.small_m and cfg.block_n == 64 or cfg.stream_k) and not cfg.tiled_weights
            and cfg.weights in THRESHOLD_FORMATS]


MODES = {  # --flag: (entries, M values, (N, K) shapes); no flag: q4_K's sweep (run 235)
    None: (q4k_entries, MS, SHAPES),
    "formats": (format_entries, FORMAT_MS, FORMAT_SHAPES),
    "two_warps": (two_warp_entries, TWO_WARP_MS, FORMAT_SHAPES),
    "unpaired": (unpaired_entries, TWO_WARP_MS, UNPAIRED_SHAPES),
    "shapes": (shape_entries, (16, 32), OTHER_SHAPES),
    "wide64": (wide64_entries, WIDE64_MS, WIDE64_SHAPES),
    "wide64_formats": (wide64_format_entries, (33, 64), WIDE64_SMALL_SHAPES),
    "wide64_splits": (wide64_split_entries, (48,), SPLIT_SHAPES),  # timed by time_splits, each split count
    "stages": (stage_entries, (48,), FORMAT_SHAPES),
    "wide64_threshold": (threshold_entries, WIDE64_MS, THRESHOLD_SHAPES),
}


def compile_all(mode: str | None = None) -> tuple[list, dict]:
    """The kernels of ``mode`` (a key of ``MODES``) and the quantize kernels (``bench.prepare``'s hook)."""
    return mmq.compile_kernels(MODES[mode][0]()), mmq.compile_quantizers()


def _ms_of(cfg: MmqConfig, mode: str | None, ms: tuple[int, ...]) -> list[int]:
    """The M values a kernel is timed at: a widened kernel at the M it serves down to a quarter of its tile
    (``--shapes``: its tile's width only; ``--stages``: that too, 48 for 64 tokens), the M ≤ 8 kernel at M = 8;
    every other kernel at all of ``ms``."""
    if not cfg.small_m:
        return list(ms)
    if mode == "shapes":
        return [cfg.max_m]
    if mode == "stages":
        return [min(cfg.max_m, ms[0])]
    return [m for m in (8, *ms) if m <= cfg.max_m and 4 * m > cfg.max_m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    modes = parser.add_mutually_exclusive_group()
    for flag, text in (("--formats", "run 236: every format's widened kernels"),
                       ("--two-warps", "run 237: 32 tokens on 2 warps; W repacked"),
                       ("--unpaired", "run 238: q6_K, q3_K, q2_K with K = 55 or 15 steps"),
                       ("--shapes", "run 239: 3584 x 3584 and 32768 x 8192"),
                       ("--wide64", "run 241: 64 tokens against both prefill grids, M = 33-64, seven shapes"),
                       ("--wide64-formats", "run 242: the same, every other format and order, small shapes"),
                       ("--wide64-splits", "run 243: the 64-token tile with 1-16 K splits forced, larger W"),
                       ("--stages", "run 245: the widened kernels in 1-3 stages"),
                       ("--wide64-threshold", "run 247: 64 tokens against stream-K at 21-25 M weights")):
        modes.add_argument(flag, dest="mode", action="store_const", const=flag[2:].replace("-", "_"), help=text)
    args = parser.parse_args()
    kernels, quantizers_compiled = compile_all(args.mode)
    if args.prepare:
        return
    _entries, ms, shapes = MODES[args.mode]
    if args.mode == "wide64_splits":
        time_splits(kernels, quantizers_compiled, ms, shapes)
        return
    mmq.time_over_shapes("python -m bench.experiments.small_m_wide", kernels, quantizers_compiled, shapes,
                         lambda cfg: _ms_of(cfg, args.mode, ms))


if __name__ == "__main__":
    main()
