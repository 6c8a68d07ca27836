"""The values a fragment load delivers: the model of ``agx.load_frag`` / ``agx.dequant_frag``.

Inputs are the arrays the tile function's arguments hold, in
``compiler.numerics.dot_scaled``'s conventions (fp16 ``np.float16``, f32
``np.float32``, bf16 ``ml_dtypes.bfloat16``, fp8/fp6 uint8 codes, e2m1 packed
two per byte, scales as uint8 codes, block formats ``[M, K/bv, bytes]`` /
``[K/bv, N, bytes]``). A load dequantizes with the public numerics functions
(``decode``, ``unpack_fp4``, ``dequantize``) and rounds to the fragment type
(round to nearest even), which is what the modelled conversion does.
``tests/agx/test_operands.py`` checks the operand matrices against ``dot_scaled``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from compiler import numerics
from compiler.format_table import SCALE_GROUP
from targets.agx.emulator import TileValues
from targets.agx.lanes import TILE
from targets.agx.mma8 import ElemType
from targets.agx.program import FragmentLoad, FragmentSource, Operand

_CODE_FORMATS = ("e4m3", "e5m2", "e2m3", "e3m2")


def _codes(array: np.ndarray) -> np.ndarray:
    return np.asarray(array).view(np.uint8)


def operand_matrix(source: FragmentSource, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """The whole logical operand in float64: A as M x K, B as K x N, C as M x N."""
    data = np.asarray(inputs[source.arg])
    fmt = source.format
    lhs = source.operand is Operand.LHS
    if fmt in ("fp16", "fp32", "bf16"):
        return data.astype(np.float64)
    if fmt in _CODE_FORMATS:
        values = numerics.decode(fmt, _codes(data))
    elif fmt == "e2m1":
        along_k_axis = 1 if lhs else 0
        axis = along_k_axis if source.k_pack else 1 - along_k_axis
        values = numerics.decode("e2m1", numerics.unpack_fp4(_codes(data), axis=axis))
    else:
        info = numerics.format_info(fmt)
        if not info.is_block:
            raise ValueError(f"format {fmt} has no fragment load model")
        blocks = data if lhs else data.transpose(1, 0, 2)
        rows, count, size = blocks.shape
        by_k = numerics.dequantize(fmt, np.ascontiguousarray(blocks).reshape(rows, count * size)).astype(np.float64)
        return by_k if lhs else by_k.T
    if source.scale_arg is not None:
        assert source.scale_format is not None
        factors = numerics.decode(source.scale_format, _codes(np.asarray(inputs[source.scale_arg])))
        group = SCALE_GROUP[source.scale_format]
        per_k = np.repeat(factors, group, axis=1)  # [rows, K]
        values = values * (per_k if lhs else per_k.T)
    return values


def round_to(values: np.ndarray, elem: ElemType) -> np.ndarray:
    """Values as a fragment of ``elem`` holds them (round to nearest even), back in float64."""
    dtype = np.float16 if elem is ElemType.FP16 else np.float32
    with np.errstate(over="ignore"):
        return values.astype(dtype).astype(np.float64)


def fragment_values(inputs: Sequence[np.ndarray]) -> TileValues:
    """A ``TileValues`` for the emulator: each load's 8x8 block, rounded to its fragment type."""
    matrices: dict[FragmentSource, np.ndarray] = {}

    def values(load: FragmentLoad) -> np.ndarray:
        key = FragmentSource(load.source.operand, load.source.arg, 0, 0, load.source.format,
                             load.source.scale_arg, load.source.k_pack, load.source.dequantize,
                             load.source.scale_format)
        if key not in matrices:
            matrices[key] = operand_matrix(load.source, inputs)
        block = matrices[key][load.source.row:load.source.row + TILE, load.source.col:load.source.col + TILE]
        return round_to(block, load.elem)

    return values
