"""GEMM kernels in the qdot kernel vocabulary, generated for any format pair and tile.

The compiler's input is IR; these functions write that IR for the common case
(one program per output tile, a K loop carrying the accumulator, grouped tile
order for L2 reuse) so that tests and benchmarks can ask for
"e2m1 × e2m1 with ue8m0 scales, 128×128×128 tiles, 4 warps" without hand-writing
MLIR. ``examples/`` holds instances of these kernels; ``qdot-opt`` shows what
every pass does to them.

Memory layouts: A is [M, K] row-major; B is [K, N] logically but stored as its
transpose (N rows of K values, K contiguous) unless ``b_k_major=False``; scales
are [M, K/g] and [N, K/g] row-major (g = 32 for ue8m0, 16 for ue4m3); C is
[M, N] row-major. Packed e2m1 travels two per byte along K, except a B with
``rhs_k_pack=False`` (K rows of N/2 bytes, two values per byte along N) and an A with
``lhs_k_pack=False`` (K rows of M/2 bytes, two values per byte along M).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, fields

_ELEM = {
    "e4m3": "f8E4M3FN", "e5m2": "f8E5M2", "e2m3": "f6E2M3FN", "e3m2": "f6E3M2FN",
    "e2m1": "i8", "bf16": "bf16", "fp16": "f16", "i8": "i8",
}
_SCALE = {"ue8m0": ("f8E8M0FNU", 32), "ue4m3": ("f8E4M3FN", 16)}
MAX_WARPS = 32
"""The most warps of a kernel (``qdot.num_warps``: 1 to 32, a program's 1024 threads)."""


def check_int(who: str, name: str, value: object, least: int | None = None, most: int | None = None) -> None:
    """Refuse ``value`` of argument or field ``name`` unless it is an int (any ``numbers.Integral`` but a bool) of
    at least ``least`` and at most ``most``. The templates write their numbers into kernel text and grids: a float,
    a str or a negative count used to reach them and fail far from where it was given — an xDSL ParseError on
    ``64.0``, a kernel name with a '-' in it, a grid of floats, a division by zero when the kernel ran."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__} {value!r}")
    if least is not None and value < least:
        what = "a positive int" if least == 1 else f"an int ≥ {least}"
        raise ValueError(f"{who}: {name} must be {what}, got {value}")
    if most is not None and value > most:
        raise ValueError(f"{who}: {name} must be at most {most}, got {value}")


def check_config(who: str, cfg: object, kind: type, article: str = "a") -> None:
    """Refuse a ``cfg`` that is not a ``kind`` (``article`` goes before its name in the message): any other object
    used to fail as an AttributeError on the first field the helper read, or with a ``__name__`` of its type."""
    if not isinstance(cfg, kind):
        raise TypeError(f"{who}: cfg must be {article} {kind.__name__}, got {type(cfg).__name__}")


def check_grid(who: str, grid: object) -> tuple[int, int, int]:
    """``grid``, a launch grid as ``mmq_grid`` and ``grid`` return it, padded to (x, y, z) as
    ``launch_checks.checked_grid`` reads every launch grid; its ``TypeError`` or ``ValueError`` prefixed with ``who``
    otherwise. The shape helpers that size a launch's buffers from its grid (a fix-up workspace, a quantization
    scratch) take it: a string or a one-element tuple there used to end in an IndexError far from the call."""
    from compiler.launch_checks import checked_grid

    try:
        return checked_grid(grid, "grid")
    except (TypeError, ValueError) as err:
        raise type(err)(f"{who}: {err}") from None


def check_grid_x(who: str, programs: int, shape: str, per: str, split_along: str) -> None:
    """Refuses a grid of more ``programs`` along x than CUDA launches (``launch_plan.MAX_GRID``): the runner would
    refuse it at the launch, after the caller had sized and filled arrays for it, so the shape is refused where its
    grid is computed, naming the dimensions to split."""
    from compiler.launch_plan import MAX_GRID

    if programs > MAX_GRID[0]:
        raise ValueError(f"{who}: {shape} {programs} programs ({per}), more than a grid's x dimension holds "
                         f"({MAX_GRID[0]}): split {split_along} into launches that fit")


def check_programs(who: str, programs: object) -> None:
    """Refuse a fixed program count (a persistent or stream-K grid's) that is no int from 1 to a grid's largest x: a
    grid of 2^63 programs used to come back as asked when the tiles were as many."""
    from compiler.launch_plan import MAX_GRID

    check_int(who, "programs", programs, least=1, most=MAX_GRID[0])


def check_bool(who: str, name: str, value: object) -> None:
    """Refuse ``value`` of argument or field ``name`` unless it is True or False: Python takes any object as a
    condition, so ``small_m="no"`` would have been taken as True."""
    if not isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be a bool (True or False), got {type(value).__name__} {value!r}")


def check_power_of_two(who: str, name: str, value: object, why: str, most: int | None = None) -> None:
    """Refuse ``value`` unless it is an int that is a power of two (at most ``most``); ``why`` says what needs
    it to be one."""
    check_int(who, name, value)
    assert isinstance(value, numbers.Integral)
    if value < 1 or value & (value - 1) or (most is not None and value > most):
        bound = f" from 1 to {most}" if most is not None else ""
        raise ValueError(f"{who}: {name} must be a power of two{bound} ({why}), got {value}")


def check_field_types(cfg: object, who: str | None = None) -> None:
    """Refuse a dataclass field declared ``bool`` holding anything but True or False (``check_bool``), and one
    declared ``int`` holding anything but an int (``check_int``); a numpy int is made a Python int (it has no
    ``bit_length``, and its repr is not its value). ``who`` heads the message (default: the class's name)."""
    who = who or type(cfg).__name__
    for field in fields(cfg):
        value = getattr(cfg, field.name)
        if field.type in (bool, "bool"):
            check_bool(who, field.name, value)
        if field.type in (int, "int"):
            check_int(who, field.name, value)
            if type(value) is not int:
                object.__setattr__(cfg, field.name, int(value))  # the frozen dataclass's own way to set a field


@dataclass(frozen=True)
class GemmConfig:
    lhs: str = "e4m3"
    rhs: str = "e2m1"
    lhs_scale: str | None = "ue8m0"
    rhs_scale: str | None = "ue8m0"
    block_m: int = 128
    block_n: int = 128
    block_k: int = 128
    num_warps: int = 4
    group_m: int = 8
    b_k_major: bool = True
    lhs_k_pack: bool = True
    """False: an e2m1 A is packed two per byte along M and stored as K rows of M/2 bytes
    (``lhs_k_pack = false``, A column-major); M must be even. Only dequant-bf16 runs it."""
    rhs_k_pack: bool = True
    """False: an e2m1 B is packed two per byte along N and stored as K rows of N/2 bytes
    (``rhs_k_pack = false``); N must be even. Only dequant-bf16 runs it."""
    min_blocks_per_sm: int = 0
    """Ask ptxas for this many resident programs per SM (``.minnctapersm``, a register cap); 0: none."""
    k_divisibility: int = 128
    """What the kernel may assume of K (``qdot.divisibility``): K is always a multiple of 32;
    a multiple of 128 lets the per-32 scale rows be copied with 4-byte cp.async."""
    out: str = "f32"
    """C's element type: ``f32`` (the accumulator) or ``bf16`` (rounded to nearest even from the
    f32 accumulator by ``arith.truncf`` before the store; half the bytes written)."""
    n_divisibility: int = 1
    """What the kernel may assume of N (``qdot.divisibility``): with an even N a bf16 C is
    stored two elements (one register) at a time, an f32 C two registers (8 bytes) at a time.
    Without it each pair's store is predicated on a run-time test of N's parity (one uniform
    test) and the single stores on its negation; with it, only the pairs are compiled. The
    runner refuses a launch whose N is not a multiple of it."""
    persistent: bool = False
    """One loop over (output tile, K step) pairs per program instead of one tile per program:
    program p takes tiles p, p + P, p + 2P… (P = the grid's size, ``grid(..., programs=)``),
    stores a tile's C under ``scf.if`` at its last K step and restarts from zero. Because the
    tiles follow each other in one loop, ``qdot-pipeline`` copies the next tile's first K steps
    while the current tile's last ones compute and its C is stored, which one-tile programs
    cannot overlap (their prologue and epilogue leave the SM's tensor cores idle). Measured
    slower on the H200 all the same (runs 60–62, 128×256 wgmma: 290 against 371 TFLOP/s at
    4096³; with the shape's divisors made constants, which removes the loop's ~100 instructions
    of tile arithmetic, still 4 % slower), so it is not a default: the IR form (an ``scf.if``
    carrying the accumulator) is what the compiler supports, for kernels that need it."""

    promote: bool = False
    """Each K step's dot starts from zero and its result is added to the loop-carried f32 sum
    (``arith.addf``, rounded to nearest), instead of the dot accumulating onto the sum. A bf16
    tensor core truncates its running sum toward zero at every k16 step, so chained over the
    whole K the error grows in proportion to K (beyond 1e-5 past K ≈ 10 000 for e4m3 × e2m1,
    run 135); promoted, the truncation is relative to one step's partial sum. It costs a second
    set of accumulator registers — the 128 × 256 tiles spill — and on wgmma the overlap of one
    K step's dot with the next step's conversion (the dot waits for itself). Run 137, e4m3 ×
    e2m1 on wgmma 128 × 128 × 64: 4e-7 at K = 32768 instead of 3.3e-5, at 0.69–0.81 × the
    chained kernel's speed; with 4 warps (two programs per SM) 290 TFLOP/s at 8192³, 303 for
    MXFP4 (run 138)."""

    def __post_init__(self) -> None:
        check_field_types(self)
        for side, fmt in (("lhs", self.lhs), ("rhs", self.rhs)):
            if not isinstance(fmt, str) or fmt not in _ELEM:
                raise ValueError(f"GemmConfig: {side} must be one of {', '.join(_ELEM)}, got {fmt!r} (the ggml "
                                 "block formats, q4_K and the rest, are MmqConfig's weights)")
        for side, scale in (("lhs_scale", self.lhs_scale), ("rhs_scale", self.rhs_scale)):
            if scale is not None and (not isinstance(scale, str) or scale not in _SCALE):
                raise ValueError(f"GemmConfig: {side} must be one of {', '.join(_SCALE)} or None (no scales), "
                                 f"got {scale!r}")
        layouts = "the register and shared layouts map an index's bits"
        for name in ("block_m", "block_n", "block_k"):
            check_power_of_two("GemmConfig", name, getattr(self, name), layouts)
        check_power_of_two("GemmConfig", "num_warps", self.num_warps, layouts, most=MAX_WARPS)
        check_int("GemmConfig", "group_m", self.group_m, least=1)  # the tile order divides by it
        check_int("GemmConfig", "min_blocks_per_sm", self.min_blocks_per_sm, least=0)
        for name in ("k_divisibility", "n_divisibility"):
            check_power_of_two("GemmConfig", name, getattr(self, name), "qdot.divisibility")
        if self.promote and self.acc_type != "f32":
            raise ValueError("GemmConfig: promote adds f32 partial sums; i8 × i8 accumulates exactly in i32")
        if self.out not in ("f32", "bf16"):
            raise ValueError(f"GemmConfig: out must be 'f32' or 'bf16', got {self.out!r}")
        if self.out == "bf16" and self.acc_type != "f32":
            raise ValueError("GemmConfig: a bf16 output rounds an f32 accumulator; i8 × i8 accumulates in i32")

    @property
    def name(self) -> str:
        scales = "_".join(s for s in (self.lhs_scale, self.rhs_scale) if s) or "noscale"
        occupancy = f"_b{self.min_blocks_per_sm}" if self.min_blocks_per_sm else ""
        npack = ("" if self.lhs_k_pack else "_mpack") + ("" if self.rhs_k_pack else "_npack")
        out = ("" if self.out == "f32" else f"_out_{self.out}") + (f"_n{self.n_divisibility}"
                                                                   if self.n_divisibility > 1 else "")
        persistent = "_persistent" if self.persistent else ""
        promote = "_promote" if self.promote else ""
        return (f"gemm_{self.lhs}_{self.rhs}{npack}_{scales}_{self.block_m}x{self.block_n}x{self.block_k}"
                f"_w{self.num_warps}{occupancy}{out}{persistent}{promote}")

    @property
    def acc_type(self) -> str:
        return "i32" if self.lhs == "i8" else "f32"


def grouped_tile_offsets(bm: int, bn: int, group_m: int, tile: str | None = None, indent: str = "  ") -> list[str]:
    """IR lines that map ``qdot.program_id x`` (or the index value named ``tile``) to
    ``%off_m``/``%off_n``, the origin of that bm × bn output tile, walking tiles in groups of
    ``group_m`` tile-rows so that neighbouring programs share the same B tiles in L2. Needs the
    constants %c{bm}, %c{bn}, %c{group_m} and the arguments %m, %n; with ``tile`` also
    %tiles_m and %tiles_n, which it then does not define."""
    g = group_m
    lines = [] if tile is not None else [
        "%pid = qdot.program_id x",
        f"%tiles_m = arith.ceildivui %m, %c{bm} : index",
        f"%tiles_n = arith.ceildivui %n, %c{bn} : index",
    ]
    pid = tile or "%pid"
    lines += [
        f"%in_group = arith.muli %tiles_n, %c{g} : index",
        f"%group = arith.divui {pid}, %in_group : index",
        f"%first_m = arith.muli %group, %c{g} : index",
        "%left_m = arith.subi %tiles_m, %first_m : index",
        f"%group_m = arith.minui %left_m, %c{g} : index",
        f"%pos = arith.remui {pid}, %in_group : index",
        "%pid_m_in = arith.remui %pos, %group_m : index",
        "%pid_m = arith.addi %first_m, %pid_m_in : index",
        "%pid_n = arith.divui %pos, %group_m : index",
        f"%off_m = arith.muli %pid_m, %c{bm} : index",
        f"%off_n = arith.muli %pid_n, %c{bn} : index",
    ]
    return [indent + line for line in lines]


def _packed(fmt: str) -> int:
    return 2 if fmt == "e2m1" else 1


def gemm_kernel(cfg: GemmConfig) -> str:
    """The MLIR text of one GEMM kernel (see the module docstring for layouts)."""
    check_config("gemm_kernel", cfg, GemmConfig)
    bm, bn, bk = cfg.block_m, cfg.block_n, cfg.block_k
    if not cfg.rhs_k_pack and cfg.rhs != "e2m1":
        raise ValueError(f"gemm_kernel: rhs_k_pack = False packs e2m1 along N; rhs is {cfg.rhs}")
    if not cfg.lhs_k_pack and cfg.lhs != "e2m1":
        raise ValueError(f"gemm_kernel: lhs_k_pack = False packs e2m1 along M; lhs is {cfg.lhs}")
    m_packed, n_packed = not cfg.lhs_k_pack, not cfg.rhs_k_pack
    pa, pb = 1 if m_packed else _packed(cfg.lhs), 1 if n_packed else _packed(cfg.rhs)
    ea, eb = _ELEM[cfg.lhs], _ELEM[cfg.rhs]
    acc = cfg.acc_type
    args = [f"%a_ptr: !qdot.ptr<{ea}>", f"%b_ptr: !qdot.ptr<{eb}>"]
    scale_group = {}
    for side, kind in (("a", cfg.lhs_scale), ("b", cfg.rhs_scale)):
        if kind:
            elem, group = _SCALE[kind]
            scale_group[side] = (elem, group)
            args.append(f"%s{side}_ptr: !qdot.ptr<{elem}>")
    out = cfg.out if acc == "f32" else acc
    n_hint = f" {{qdot.divisibility = {cfg.n_divisibility} : i64}}" if cfg.n_divisibility > 1 else ""
    args += [f"%c_ptr: !qdot.ptr<{out}>", "%m: index", f"%n: index{n_hint}",
             f"%k: index {{qdot.divisibility = {cfg.k_divisibility} : i64}}"]
    consts = sorted({0, 1, 2, cfg.group_m, bm, bn, bk, pa, pb, *(g for _, g in scale_group.values())})
    occupancy = f", qdot.min_blocks_per_sm = {cfg.min_blocks_per_sm} : i64" if cfg.min_blocks_per_sm else ""
    lines = [
        f"func.func @{cfg.name}({', '.join(args)})",
        f"    attributes {{qdot.kernel, qdot.num_warps = {cfg.num_warps} : i64{occupancy}}} {{",
    ]
    lines += [f"  %c{c} = arith.constant {c} : index" for c in consts]
    if cfg.persistent:
        lines += _persistent_share(bm, bn, bk, cfg.group_m)
    else:
        lines += grouped_tile_offsets(bm, bn, cfg.group_m)
    lines += [
        f"  %ka = arith.divui %k, %c{pa} : index",
        f"  %kb = arith.divui %k, %c{pb} : index",
    ]
    a_tile = f"{bm // 2}x{bk}x{ea}" if m_packed else f"{bm}x{bk // pa}x{ea}"
    b_tile = f"{bk}x{bn // 2}x{eb}" if n_packed else f"{bk // pb}x{bn}x{eb}"
    if m_packed:  # K rows of M/2 bytes
        lines.append("  %mb = arith.divui %m, %c2 : index")
        lines.append(f"  %a_desc = qdot.make_desc %a_ptr, [%mb, %k], [%c1, %mb] : !qdot.ptr<{ea}> -> !qdot.desc<{a_tile}>")
    else:
        lines.append(f"  %a_desc = qdot.make_desc %a_ptr, [%m, %ka], [%ka, %c1] : !qdot.ptr<{ea}> -> !qdot.desc<{a_tile}>")
    if n_packed:  # K rows of N/2 bytes
        lines.append("  %nb = arith.divui %n, %c2 : index")
        lines.append(f"  %b_desc = qdot.make_desc %b_ptr, [%k, %nb], [%nb, %c1] : !qdot.ptr<{eb}> -> !qdot.desc<{b_tile}>")
    elif cfg.b_k_major:
        lines.append(f"  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<{eb}> -> !qdot.desc<{b_tile}>")
    else:
        lines.append(f"  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%n, %c1] : !qdot.ptr<{eb}> -> !qdot.desc<{b_tile}>")
    for side, (elem, group) in scale_group.items():
        rows = "%m" if side == "a" else "%n"
        lines.append(f"  %ks{side} = arith.divui %k, %c{group} : index")
        lines.append(f"  %s{side}_desc = qdot.make_desc %s{side}_ptr, [{rows}, %ks{side}], [%ks{side}, %c1] "
                     f": !qdot.ptr<{elem}> -> !qdot.desc<{bm if side == 'a' else bn}x{bk // group}x{elem}>")
    lines.append(f"  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<{out}> -> !qdot.desc<{bm}x{bn}x{out}>")
    zero = "0" if acc == "i32" else "0.000000e+00"
    lines.append(f"  %zero = arith.constant dense<{zero}> : tensor<{bm}x{bn}x{acc}>")
    acc_type = f"tensor<{bm}x{bn}x{acc}>"
    if cfg.persistent:
        lines.append(f"  %acc = scf.for %i = %c0 to %iters step %c1 iter_args(%acc_i = %zero) -> ({acc_type}) {{")
        lines += _persistent_position(bm, bn, bk, cfg.group_m)
    else:
        lines.append(f"  %acc = scf.for %kk = %c0 to %k step %c{bk} iter_args(%acc_i = %zero) -> ({acc_type}) {{")
    lines.append(f"    %kka = arith.divui %kk, %c{pa} : index")
    lines.append(f"    %kkb = arith.divui %kk, %c{pb} : index")
    if m_packed:
        lines.append("    %off_mb = arith.divui %off_m, %c2 : index")
        lines.append(f"    %a = qdot.load %a_desc[%off_mb, %kk] : !qdot.desc<{a_tile}> -> tensor<{a_tile}>")
    else:
        lines.append(f"    %a = qdot.load %a_desc[%off_m, %kka] : !qdot.desc<{a_tile}> -> tensor<{a_tile}>")
    if n_packed:
        lines.append("    %off_nb = arith.divui %off_n, %c2 : index")
        lines.append(f"    %b = qdot.load %b_desc[%kk, %off_nb] : !qdot.desc<{b_tile}> -> tensor<{b_tile}>")
    else:
        lines.append(f"    %b = qdot.load %b_desc[%kkb, %off_n] : !qdot.desc<{b_tile}> -> tensor<{b_tile}>")
    operand_a, operand_b = "%a", "%b"
    type_a, type_b = f"tensor<{a_tile}>", f"tensor<{b_tile}>"
    for side, (elem, group) in scale_group.items():
        rows = bm if side == "a" else bn
        off = "%off_m" if side == "a" else "%off_n"
        stile = f"{rows}x{bk // group}x{elem}"
        lines.append(f"    %kks{side} = arith.divui %kk, %c{group} : index")
        lines.append(f"    %s{side} = qdot.load %s{side}_desc[{off}, %kks{side}] : !qdot.desc<{stile}> -> tensor<{stile}>")
        if side == "a":
            operand_a, type_a = "%a scale %sa", f"tensor<{a_tile}>, tensor<{stile}>"
        else:
            operand_b, type_b = "%b scale %sb", f"tensor<{b_tile}>, tensor<{stile}>"
    packs = [f"{side}_k_pack = false" for side, packed in (("lhs", m_packed), ("rhs", n_packed)) if packed]
    pack_attr = f" {{{', '.join(packs)}}}" if packs else ""
    onto = "%zero" if cfg.promote else "%acc_i"
    lines.append(f"    %d = qdot.dot_scaled {operand_a}, {operand_b}, {onto} lhs = {cfg.lhs} rhs = {cfg.rhs}"
                 f"{pack_attr}")
    lines.append(f"         : {type_a} * {type_b} -> {acc_type}")
    if cfg.promote:
        lines.append(f"    %sum = arith.addf %acc_i, %d : {acc_type}")
    step = "%sum" if cfg.promote else "%d"
    if cfg.persistent:
        lines += [
            "    %tile_done = arith.cmpi eq, %k_step, %last_k_step : index",
            f"    %next = scf.if %tile_done -> ({acc_type}) {{",
            *_store_c(step, acc, out, bm, bn, "      "),
            f"      scf.yield %zero : {acc_type}",
            "    } else {",
            f"      scf.yield {step} : {acc_type}",
            "    }",
            f"    scf.yield %next : {acc_type}",
            "  }",
        ]
    else:
        lines.append(f"    scf.yield {step} : {acc_type}")
        lines.append("  }")
        lines += _store_c("%acc", acc, out, bm, bn, "  ")
    lines.append("  func.return")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _persistent_share(bm: int, bn: int, bk: int, group_m: int) -> list[str]:
    """The persistent kernel's loop bounds: %iters (K steps of the program's tiles), with
    %pid, %programs, %tiles_m, %tiles_n, %k_steps and %last_k_step for the loop body."""
    return [
        "  %pid = qdot.program_id x",
        "  %programs = qdot.num_programs x",
        f"  %tiles_m = arith.ceildivui %m, %c{bm} : index",
        f"  %tiles_n = arith.ceildivui %n, %c{bn} : index",
        "  %tiles = arith.muli %tiles_m, %tiles_n : index",
        "  %has_tiles = arith.cmpi ult, %pid, %tiles : index",
        "  %after_pid = arith.subi %tiles, %pid : index",
        "  %tiles_left = arith.select %has_tiles, %after_pid, %c0 : index",
        "  %my_tiles = arith.ceildivui %tiles_left, %programs : index",
        f"  %k_steps = arith.ceildivui %k, %c{bk} : index",
        "  %last_k_step = arith.subi %k_steps, %c1 : index",
        "  %iters = arith.muli %my_tiles, %k_steps : index",
        # the loop's tile arithmetic is 32-bit (_persistent_position)
        f"  %c{group_m}_i32 = arith.constant {group_m} : i32",
        "  %pid_32 = arith.index_cast %pid : index to i32",
        "  %programs_32 = arith.index_cast %programs : index to i32",
        "  %tiles_m_32 = arith.index_cast %tiles_m : index to i32",
        "  %tiles_n_32 = arith.index_cast %tiles_n : index to i32",
        f"  %in_group_32 = arith.muli %tiles_n_32, %c{group_m}_i32 : i32",
        "  %k_steps_32 = arith.index_cast %k_steps : index to i32",
    ]


def _persistent_position(bm: int, bn: int, bk: int, group_m: int) -> list[str]:
    """Loop iteration %i → its tile's origin (%off_m, %off_n, grouped as ``grouped_tile_offsets``
    does) and K offset %kk, and %k_step. In 32-bit arithmetic: the divisors are run-time values,
    and a 64-bit division is a subroutine call in SASS, whose calling convention makes ptxas
    spill a loop that carries a whole accumulator tile (a 32-bit one is a dozen instructions;
    ``qdot-pipeline`` computes the position twice per iteration, for the step and for the copies
    it issues ahead)."""
    g = group_m
    return [f"    {line}" for line in (
        "%i_32 = arith.index_cast %i : index to i32",
        "%t_32 = arith.divui %i_32, %k_steps_32 : i32",
        "%k_step_32 = arith.remui %i_32, %k_steps_32 : i32",
        "%t_programs_32 = arith.muli %t_32, %programs_32 : i32",
        "%tile_32 = arith.addi %pid_32, %t_programs_32 : i32",
        "%group_32 = arith.divui %tile_32, %in_group_32 : i32",
        f"%first_m_32 = arith.muli %group_32, %c{g}_i32 : i32",
        "%left_m_32 = arith.subi %tiles_m_32, %first_m_32 : i32",
        f"%group_m_32 = arith.minui %left_m_32, %c{g}_i32 : i32",
        "%pos_32 = arith.remui %tile_32, %in_group_32 : i32",
        "%pid_m_in_32 = arith.remui %pos_32, %group_m_32 : i32",
        "%pid_m_32 = arith.addi %first_m_32, %pid_m_in_32 : i32",
        "%pid_n_32 = arith.divui %pos_32, %group_m_32 : i32",
        "%pid_m = arith.index_cast %pid_m_32 : i32 to index",
        "%pid_n = arith.index_cast %pid_n_32 : i32 to index",
        "%k_step = arith.index_cast %k_step_32 : i32 to index",
        f"%off_m = arith.muli %pid_m, %c{bm} : index",
        f"%off_n = arith.muli %pid_n, %c{bn} : index",
        f"%kk = arith.muli %k_step, %c{bk} : index",
    )]


def _store_c(acc_value: str, acc: str, out: str, bm: int, bn: int, indent: str) -> list[str]:
    """C's store of ``acc_value`` (rounded to ``out`` first where it differs from ``acc``)."""
    lines, stored = [], acc_value
    if out != acc:
        lines.append(f"%c = arith.truncf {acc_value} : tensor<{bm}x{bn}x{acc}> to tensor<{bm}x{bn}x{out}>")
        stored = "%c"
    lines.append(f"qdot.store %c_desc[%off_m, %off_n], {stored} : !qdot.desc<{bm}x{bn}x{out}>, tensor<{bm}x{bn}x{out}>")
    return [indent + line for line in lines]


PERSISTENT_PROGRAMS = 132
"""A persistent grid's default size: the H200's SM count, one program per SM (a run-time choice:
the kernel reads it from the grid)."""


def grid(cfg: GemmConfig, m: int, n: int, programs: int | None = None) -> tuple[int, int, int]:
    """Launch grid of ``gemm_kernel(cfg)`` for an M × N output: one program per tile, or for a
    persistent kernel ``programs`` (default ``PERSISTENT_PROGRAMS``), at most one per tile. M and N
    must be positive ints (an empty C has no tile to launch a program for); ``programs`` is refused
    for a kernel that is not persistent, whose grid it would not change."""
    check_config("grid", cfg, GemmConfig)
    check_int("grid", "m", m, least=1)
    check_int("grid", "n", n, least=1)
    if programs is not None:
        if not cfg.persistent:
            raise ValueError(f"grid: programs is the size of a persistent kernel's grid; {cfg.name} has one program "
                             "per tile (GemmConfig(persistent=True) for a fixed number)")
        check_programs("grid", programs)
    tiles = -(-m // cfg.block_m) * -(-n // cfg.block_n)
    if cfg.persistent:
        return (min(tiles, programs or PERSISTENT_PROGRAMS), 1, 1)
    check_grid_x("grid", tiles, f"M = {m}, N = {n} need", f"one per {cfg.block_m} × {cfg.block_n} tile", "M or N")
    return (tiles, 1, 1)
