"""The fragment-load model reads operands exactly as compiler.numerics.dot_scaled defines them."""

from __future__ import annotations

import numpy as np
import pytest

from compiler import numerics
from targets.agx.operands import operand_matrix, round_to
from targets.agx.mma8 import ElemType
from targets.agx.program import FragmentSource, Operand
from targets.agx.tiles import Tile, tile_inputs

CASES = [
    Tile(16, 8, 64, "e2m1", "e4m3", "ue8m0"),
    Tile(16, 8, 64, "e2m1", "e2m1", "ue4m3"),
    Tile(8, 16, 64, "e5m2", "e3m2"),
    Tile(8, 16, 64, "e2m3", "bf16"),
    Tile(16, 8, 32, "e2m1", "fp16", lhs_k_pack=False),
    Tile(8, 8, 256, "q4_K", "q8_1"),
    Tile(8, 8, 256, "q8_1", "q4_K"),
    Tile(8, 8, 64, "q8_0", "q8_0"),
]


def _source(tile: Tile, side: str, arrays: list[np.ndarray]) -> FragmentSource:
    """Argument order of ``tile_ir``: a, [a_scale], b, [b_scale], [acc]."""
    lhs_args = 2 if tile.scaled("lhs") else 1
    arg = 0 if side == "lhs" else lhs_args
    scale_arg = arg + 1 if tile.scaled(side) else None
    fmt = tile.lhs if side == "lhs" else tile.rhs
    k_pack = tile.lhs_k_pack if side == "lhs" else True
    return FragmentSource(Operand(side), arg, 0, 0, fmt, scale_arg, k_pack, True, tile.scale if scale_arg else None)


@pytest.mark.parametrize("tile", CASES, ids=lambda t: f"{t.lhs}-{t.rhs}-{t.scale}-{t.lhs_k_pack}")
def test_operand_matrices_multiply_to_dot_scaled(tile: Tile) -> None:
    arrays, reference = tile_inputs(tile, seed=5)
    a = operand_matrix(_source(tile, "lhs", arrays), arrays)
    b = operand_matrix(_source(tile, "rhs", arrays), arrays)
    assert a.shape == (tile.m, tile.k) and b.shape == (tile.k, tile.n)
    expected = numerics.dot_scaled(**reference)
    assert np.allclose(a @ b + reference["acc"], expected, rtol=0, atol=1e-9 * max(1.0, np.abs(expected).max()))


def test_round_to_fragment_type() -> None:
    values = np.array([1 / 3, 65520.0, 2.0 ** -25])
    assert list(round_to(values, ElemType.FP16)) == [float(np.float16(1 / 3)), float("inf"), 0.0]
    assert round_to(values, ElemType.FP32)[0] == float(np.float32(1 / 3))
