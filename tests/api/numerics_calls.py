"""The ``compiler.numerics`` calls of ``tests.api.helper_fuzz``: the reference functions a kernel engineer checks a
kernel's output with, given mostly valid arrays (codes in range, K a multiple of the block, scales of the right
shape) in formats the function takes, and at times a format or an array it does not take (a ragged list among
them). The fuzz then damages one argument in six, as for the templates' helpers."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np

from compiler import numerics
from compiler.numerics import FORMATS, FormatKind

ELEMENT = [name for name, info in FORMATS.items() if info.kind is FormatKind.FLOAT]
BLOCK = [name for name, info in FORMATS.items() if info.kind is FormatKind.BLOCK]
OPERANDS = ["bf16", "fp16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "i8"]
RAGGED = [[1, 2], [3]]


def _format(rng: random.Random, good: list[str]) -> str:
    return rng.choice(good) if rng.random() < 0.9 else rng.choice([*FORMATS, "q4_k", "f32", ""])


def _floats(rng: random.Random, shape: tuple[int, ...]) -> Any:
    """Normal values at a random magnitude, at times with a NaN or an infinity; one time in twenty a ragged list."""
    if rng.random() < 0.05:
        return RAGGED
    gen = np.random.default_rng(rng.getrandbits(32))
    values = (gen.standard_normal(shape) * rng.choice([1e-3, 1.0, 300.0, 1e30])).astype(
        rng.choice([np.float32, np.float64]))
    if values.size and rng.random() < 0.1:
        values.flat[rng.randrange(values.size)] = rng.choice([np.nan, np.inf, -np.inf])
    return values


def _codes(rng: random.Random, fmt: str, shape: tuple[int, ...]) -> np.ndarray:
    gen = np.random.default_rng(rng.getrandbits(32))
    if fmt == "i8":
        return gen.integers(-128, 128, shape, np.int8)
    bits = numerics.format_info(fmt).bits if fmt in ELEMENT else 8  # a block's bytes, or a format it does not know
    limit = 0x80 if fmt == "ue4m3" else 1 << bits
    return gen.integers(0, limit, shape).astype(np.uint16 if bits > 8 else np.uint8)


def _rows(rng: random.Random) -> int:
    return rng.choice([0, 1, 2, 3, 5, 8])


def _k(rng: random.Random, multiple: int) -> int:
    return multiple * rng.choice([0, 1, 2, 3]) if rng.random() < 0.9 else rng.choice([1, 17, 100])


def encode_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    return [_format(rng, ELEMENT), _floats(rng, (_rows(rng), _k(rng, 32)))], (
        {"saturate": rng.random() < 0.5} if rng.random() < 0.3 else {})


def decode_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    fmt = _format(rng, ELEMENT)
    return [fmt, _codes(rng, fmt, (_rows(rng), _k(rng, 32)))], {}


def pack_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    codes = _codes(rng, "e2m1", (rng.choice([1, 2, 4]), rng.choice([2, 4, 32])))
    return [codes], {"axis": rng.choice([0, 1, -1, -2])} if rng.random() < 0.5 else {}


def unpack_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    packed = _codes(rng, "i8" if rng.random() < 0.3 else "e4m3", (rng.choice([1, 2, 3]), rng.choice([1, 16])))
    return [packed], {"axis": rng.choice([0, 1, -1, -2])} if rng.random() < 0.5 else {}


def quantize_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    fmt = _format(rng, BLOCK)
    values = FORMATS[fmt].block_values if fmt in FORMATS and FORMATS[fmt].block_values else 32
    return [fmt, _floats(rng, (_rows(rng) or 1, _k(rng, values)))], {}


def blocks_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    """W's bytes: ``quantize``'s of random values (blocks a kernel would be given), or random bytes."""
    fmt = _format(rng, BLOCK)
    info = FORMATS.get(fmt)
    if info is None or info.block_bytes is None or rng.random() < 0.3:
        return [fmt, _codes(rng, "e4m3", (_rows(rng), rng.choice([18, 36, 144])))], {}
    gen = np.random.default_rng(rng.getrandbits(32))
    try:
        raw = numerics.quantize(fmt, gen.standard_normal((_rows(rng) or 1, info.block_values * rng.randint(1, 2))))
    except ValueError:  # a format quantize does not make (q8_1_mmq): its bytes at random
        raw = _codes(rng, "e4m3", (2, info.block_bytes))
    return [fmt, raw], {}


def e8m0_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    return [_codes(rng, "ue8m0", (_rows(rng), rng.choice([1, 4])))], {}


def dot_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    """``dot_scaled`` of two element-format operands (fp4 packed two per byte along K), with ue8m0 scales per 32
    values on either side at times, and an accumulator at times; one time in three ggml weights times ggml
    activations (``block_dot_args``)."""
    if rng.random() < 1 / 3:
        return block_dot_args(rng)
    lhs, rhs = _format(rng, OPERANDS), _format(rng, OPERANDS)
    m, n, k = _rows(rng), _rows(rng), _k(rng, 32)
    a = _codes(rng, lhs, (m, k // 2 if lhs == "e2m1" else k))
    b = _codes(rng, rhs, (k // 2 if rhs == "e2m1" else k, n))
    kwargs: dict[str, Any] = {"lhs": lhs, "rhs": rhs}
    for side, rows in (("a_scale", m), ("b_scale", n)):
        if rng.random() < 0.4:
            kwargs[side] = _codes(rng, "ue8m0", (rows, k // 32))
    args: list[Any] = [a, b] + ([_floats(rng, (m, n))] if rng.random() < 0.2 else [])
    return args, kwargs


def block_dot_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
    """W [M, K/bv, bytes] of a ggml weight format times X^T [K/bv', N, bytes'] of q8_1 / q8_1_mmq / q8_0 blocks, both
    as ``quantize`` writes them, K a multiple of 256; ``use_block_sums`` at times (only some pairs take it)."""
    lhs = _format(rng, [name for name in BLOCK if not name.startswith("q8_1")])
    rhs = _format(rng, ["q8_1", "q8_1_mmq", "q8_0"])
    m, n, k = _rows(rng) or 1, _rows(rng) or 1, 256 * rng.randint(1, 2)
    gen = np.random.default_rng(rng.getrandbits(32))
    operands = []
    for fmt, rows in ((lhs, m), (rhs, n)):
        info = FORMATS.get(fmt)
        if info is None or info.block_values is None or info.block_bytes is None:
            operands.append(_codes(rng, "e4m3", (rows, k)))
            continue
        raw = numerics.quantize(fmt, gen.standard_normal((rows, k)))
        operands.append(raw.reshape(rows, k // info.block_values, info.block_bytes))
    a, b = operands[0], operands[1].transpose(1, 0, 2) if operands[1].ndim == 3 else operands[1]
    return [a, b], {"lhs": lhs, "rhs": rhs} | ({"use_block_sums": rng.random() < 0.5} if rng.random() < 0.5 else {})


def is_array(value: object) -> bool:
    """An array, or numpy's scalar where the input was one (numpy's arithmetic on a 0-d array gives a scalar)."""
    return isinstance(value, (np.ndarray, np.generic))


def is_fields(value: object) -> bool:
    return dataclasses.is_dataclass(value) and all(
        isinstance(getattr(value, f.name), np.ndarray) or getattr(value, f.name) is None
        for f in dataclasses.fields(value))


CALLS = [
    ("numerics.encode", numerics.encode, encode_args, is_array),
    ("numerics.decode", numerics.decode, decode_args, is_array),
    ("numerics.pack_fp4", numerics.pack_fp4, pack_args, is_array),
    ("numerics.unpack_fp4", numerics.unpack_fp4, unpack_args, is_array),
    ("numerics.quantize", numerics.quantize, quantize_args, is_array),
    ("numerics.dequantize", numerics.dequantize, blocks_args, is_array),
    ("numerics.block_fields", numerics.block_fields, blocks_args, is_fields),
    ("numerics.e8m0_half", numerics.e8m0_half, e8m0_args, is_array),
    ("numerics.dot_scaled", numerics.dot_scaled, dot_args, is_array),
]
"""(name, function, arguments, promise) of each call, for ``helper_fuzz.Helper``."""
