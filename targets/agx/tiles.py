"""Example dot tiles: the qdot IR of one simdgroup's tile, and inputs that make it exact.

``tile_ir(Tile(...))`` spells the function a user would write for a dot tile of
given shape and formats; ``compile_ir`` runs a pass pipeline on it;
``tile_inputs`` draws arrays for its arguments (in ``dot_scaled``'s
conventions) whose values make every product and partial sum exact in fp32,
so the emulator must match ``compiler.numerics.dot_scaled`` bit for bit. The
tests, the docs' examples and anyone trying the target use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument

from compiler import numerics
from compiler.format_table import FORMATS
from compiler.cli.common import Chunk, build_pipeline, parse_module
from compiler.pipelines import agx_pipeline
from compiler.registry import make_context, pass_factories
from dialects.qdot.ops import DotScaledOp

ELEMENT_TYPES = {
    "fp16": "f16", "bf16": "bf16", "fp32": "f32", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2",
    "e2m3": "f6E2M3FN", "e3m2": "f6E3M2FN", "e2m1": "i8",
}
BLOCK_VALUES = {name: info.block_values for name, info in FORMATS.items() if info.is_block and name != "q8_1_mmq"}
"""Values per block of the ggml formats a tile takes (the format table's; q8_1_mmq is an MMQ tile layout)."""
SCALE_TYPES = {"ue8m0": ("f8E8M0FNU", 32), "ue4m3": ("f8E4M3FN", 16)}
FULL_PIPELINE = agx_pipeline("%s")
"""The AGX pipeline (``compiler.pipelines.agx_pipeline``), ``%s`` standing for the form."""


@dataclass(frozen=True)
class Tile:
    """One simdgroup's dot D[M, N] = A[M, K] B[K, N] + acc, with the operand formats by qdot name."""

    m: int
    n: int
    k: int
    lhs: str = "fp16"
    rhs: str = "fp16"
    scale: str | None = None
    """Scale kind applied to every scalable side (ue8m0 / ue4m3), None for unscaled."""
    zero_acc: bool = False
    lhs_k_pack: bool = True
    scaled_sides: tuple[str, ...] = ("lhs", "rhs")
    """Which sides carry ``scale`` (those with a scalable format)."""

    def operand_type(self, side: str) -> str:
        fmt = self.lhs if side == "lhs" else self.rhs
        rows, cols = (self.m, self.k) if side == "lhs" else (self.k, self.n)
        if fmt in BLOCK_VALUES:
            bv = BLOCK_VALUES[fmt]
            rows, cols = (rows, cols // bv) if side == "lhs" else (rows // bv, cols)
            return f"tensor<{rows}x{cols}x!qdot.block<{fmt}>>"
        if fmt == "e2m1":
            if side == "lhs" and not self.lhs_k_pack:
                rows //= 2
            elif side == "lhs":
                cols //= 2
            else:
                rows //= 2
        return f"tensor<{rows}x{cols}x{ELEMENT_TYPES[fmt]}>"

    def scaled(self, side: str) -> bool:
        fmt = self.lhs if side == "lhs" else self.rhs
        return (self.scale is not None and side in self.scaled_sides
                and fmt in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"))

    def scale_type(self, side: str) -> str:
        assert self.scale is not None
        element, group = SCALE_TYPES[self.scale]
        rows = self.m if side == "lhs" else self.n
        return f"tensor<{rows}x{self.k // group}x{element}>"


def tile_ir(tile: Tile, name: str = "tile") -> str:
    """The qdot function of one dot tile: arguments a, [a_scale], b, [b_scale], [acc]."""
    args, operands, types = [], {}, {}
    for side, letter in (("lhs", "a"), ("rhs", "b")):
        args.append(f"%{letter}: {tile.operand_type(side)}")
        operands[side] = f"%{letter}"
        types[side] = tile.operand_type(side)
        if tile.scaled(side):
            args.append(f"%{letter}_scale: {tile.scale_type(side)}")
            operands[side] += f" scale %{letter}_scale"
            types[side] += f", {tile.scale_type(side)}"
    acc_type = f"tensor<{tile.m}x{tile.n}xf32>"
    body = []
    if tile.zero_acc:
        body.append(f"  %acc = arith.constant dense<0.0> : {acc_type}")
    else:
        args.append(f"%acc: {acc_type}")
    pack = "" if tile.lhs_k_pack else " {lhs_k_pack = false}"
    body.append(f"  %d = qdot.dot_scaled {operands['lhs']}, {operands['rhs']}, %acc lhs = {tile.lhs} "
                f"rhs = {tile.rhs}{pack} : {types['lhs']} * {types['rhs']} -> {acc_type}")
    body.append(f"  func.return %d : {acc_type}")
    return f"func.func @{name}({', '.join(args)}) -> {acc_type} {{\n" + "\n".join(body) + "\n}\n"


def compile_ir(text: str, pipeline: str) -> ModuleOp:
    """Parse and verify ``text``, run ``pipeline`` (qdot-opt's ``-p`` syntax) on it."""
    ctx = make_context()
    module = parse_module(ctx, Chunk(text, 0), "tile.mlir")
    build_pipeline(pass_factories(), pipeline).apply(ctx, module)
    return module


def _exact_codes(fmt: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Random codes whose values are 0 or multiples of 1/16 with magnitude in [1/2, 16]."""
    bits = 4 if fmt == "e2m1" else (6 if fmt in ("e2m3", "e3m2") else 8)
    codes = np.arange(1 << bits, dtype=np.uint8)
    values = numerics.decode(fmt, codes)
    good = codes[np.isfinite(values) & ((values == 0) | ((np.abs(values) >= 0.5) & (np.abs(values) <= 16)))
                 & (values * 16 == np.round(values * 16))]
    return rng.choice(good, size=shape).astype(np.uint8)


def tile_inputs(tile: Tile, seed: int = 0) -> tuple[list[np.ndarray], dict]:
    """Arrays for the tile's arguments (in order) and the matching ``dot_scaled`` keyword arguments."""
    rng = np.random.default_rng(seed)
    arrays: list[np.ndarray] = []
    ref: dict = {"lhs": tile.lhs, "rhs": tile.rhs, "lhs_k_pack": tile.lhs_k_pack}
    for side, key in (("lhs", "a"), ("rhs", "b")):
        fmt = tile.lhs if side == "lhs" else tile.rhs
        rows, cols = (tile.m, tile.k) if side == "lhs" else (tile.k, tile.n)
        if fmt in ("fp16", "bf16", "fp32"):
            dtype = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16, "fp32": np.float32}[fmt]
            data = (rng.integers(-16, 17, (rows, cols)) / 4).astype(dtype)
        elif fmt == "e2m1":
            codes = _exact_codes(fmt, (rows, cols), rng)
            axis = (1 if side == "lhs" else 0) if (tile.lhs_k_pack or side == "rhs") else 0
            data = numerics.pack_fp4(codes, axis=axis)
        elif fmt in BLOCK_VALUES:
            values = rng.integers(-8, 9, (rows, cols)).astype(np.float32) / 2
            by_k = values if side == "lhs" else values.T
            raw = numerics.quantize(fmt, by_k)
            bv = BLOCK_VALUES[fmt]
            blocks = raw.reshape(by_k.shape[0], by_k.shape[1] // bv, -1)
            data = blocks if side == "lhs" else blocks.transpose(1, 0, 2).copy()
        else:
            data = _exact_codes(fmt, (rows, cols), rng)
        arrays.append(data)
        ref[key] = data
        if tile.scaled(side):
            group = SCALE_TYPES[tile.scale][1]
            scale_rows = tile.m if side == "lhs" else tile.n
            if tile.scale == "ue8m0":
                scale = rng.integers(125, 130, (scale_rows, tile.k // group)).astype(np.uint8)
            else:
                scale = numerics.encode("ue4m3", rng.choice([0.25, 0.5, 1, 2, 4], (scale_rows, tile.k // group)))
            arrays.append(scale)
            ref[f"{key}_scale"] = scale
            ref[f"{key}_scale_fmt"] = tile.scale
    if not tile.zero_acc:
        acc = (rng.integers(-64, 65, (tile.m, tile.n)) / 8).astype(np.float32)
        arrays.append(acc)
        ref["acc"] = acc
    return arrays, ref


def tile_of(dot: DotScaledOp) -> Tile:
    """The ``Tile`` a ``qdot.dot_scaled`` computes (its shape, formats, scales, packing)."""
    problem = dot.problem()
    sides = tuple(side for side, scale in (("lhs", dot.a_scale), ("rhs", dot.b_scale)) if scale is not None)
    return Tile(problem.m, problem.n, problem.k, str(problem.lhs), str(problem.rhs),
                str(problem.scale_kind) if problem.scale_kind is not None else None,
                zero_acc=not isinstance(dot.acc, BlockArgument), lhs_k_pack=problem.lhs_k_pack,
                scaled_sides=sides)


def dot_inputs(func: FuncOp, seed: int = 0) -> tuple[list[np.ndarray], dict]:
    """Exact inputs for ``func``'s arguments (in its order) and ``dot_scaled``'s keywords, for its one dot.

    Arguments that are not operands of the dot get None.
    """
    dots = [op for op in func.walk() if isinstance(op, DotScaledOp)]
    if len(dots) != 1:
        raise ValueError(f"@{func.sym_name.data} has {len(dots)} dots, expected one")
    dot = dots[0]
    tile = tile_of(dot)
    arrays, reference = tile_inputs(tile, seed)
    operands = [dot.a, dot.a_scale, dot.b, dot.b_scale, None if tile.zero_acc else dot.acc]
    placed: list[np.ndarray | None] = [None] * len(func.body.blocks[0].args)
    supplied = iter(arrays)
    for value in operands:
        if value is None:
            continue
        if not isinstance(value, BlockArgument):
            raise ValueError(f"@{func.sym_name.data}: a dot operand is not a function argument")
        placed[value.index] = next(supplied)
    return placed, reference  # type: ignore[return-value]
