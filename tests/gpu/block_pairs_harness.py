"""The ggml block-pair kernels: one small ``qdot.dot_scaled`` kernel per block pair the verifier
accepts, its inputs and its float64 meaning.

Shared by the CPU emulator test (tests/emulator/test_block_pairs_emulated.py, which also checks
that ``PAIRS`` is the verifier's list) and the GPU test (tests/gpu/test_block_pairs_gpu.py), so
both run the same kernels on the same kinds of inputs. Imports neither xDSL nor the dialects:
the GPU machine has neither.
"""

from __future__ import annotations

import numpy as np

from compiler import numerics
from compiler.format_table import FORMATS, IQ4NL_KVALUES
from compiler.numerics import (MXFP4_KVALUES, IQ4XSFields, Q2KFields, Q3KFields, Q4KFields, Q5KFields, Q6KFields, Q8Fields, Q41Fields,
                               Q51Fields, pack_blocks)

PAIRS = [("q4_K", "q8_1"), ("q4_K", "q8_1_mmq"), ("q4_0", "q8_1"), ("q4_0", "q8_0"), ("q4_0", "q8_1_mmq"),
         ("q4_1", "q8_1"), ("q4_1", "q8_1_mmq"), ("q5_0", "q8_1"), ("q5_0", "q8_0"), ("q5_0", "q8_1_mmq"),
         ("q5_1", "q8_1"), ("q5_1", "q8_1_mmq"), ("q5_K", "q8_1"), ("q5_K", "q8_1_mmq"), ("q6_K", "q8_1"),
         ("q6_K", "q8_1_mmq"), ("q3_K", "q8_1"), ("q3_K", "q8_1_mmq"), ("q2_K", "q8_1"), ("q2_K", "q8_1_mmq"),
         ("iq4_nl", "q8_1"), ("iq4_nl", "q8_0"), ("iq4_nl", "q8_1_mmq"), ("iq4_xs", "q8_1"), ("iq4_xs", "q8_1_mmq"),
         ("mxfp4", "q8_1"), ("mxfp4", "q8_0"),
         ("mxfp4", "q8_1_mmq"), ("q8_1", "q4_K"), ("q8_1", "q4_0"), ("q8_1", "q4_1"), ("q8_1", "q5_0"),
         ("q8_1", "q5_1"), ("q8_1", "q5_K"), ("q8_1", "q6_K"), ("q8_1", "q3_K"), ("q8_1", "q2_K"), ("q8_1", "iq4_nl"), ("q8_1", "iq4_xs"),
         ("q8_1", "mxfp4"), ("q8_1", "q8_1"),
         ("q8_1", "q8_0"), ("q8_1", "q8_1_mmq"), ("q8_0", "q4_0"), ("q8_0", "q5_0"), ("q8_0", "iq4_nl"), ("q8_0", "mxfp4"),
         ("q8_0", "q8_1"), ("q8_0", "q8_0"), ("q8_0", "q8_1_mmq"), ("q8_1_mmq", "q4_K"), ("q8_1_mmq", "q4_0"),
         ("q8_1_mmq", "q4_1"), ("q8_1_mmq", "q5_0"), ("q8_1_mmq", "q5_1"), ("q8_1_mmq", "q5_K"), ("q8_1_mmq", "q6_K"),
         ("q8_1_mmq", "q3_K"), ("q8_1_mmq", "q2_K"), ("q8_1_mmq", "iq4_nl"), ("q8_1_mmq", "iq4_xs"),
         ("q8_1_mmq", "mxfp4"), ("q8_1_mmq", "q8_1"), ("q8_1_mmq", "q8_0"),
         ("q8_1_mmq", "q8_1_mmq")]
"""The verifier's block pairs (``dialects.qdot.formats.block_pairs_sorted()``, which the emulator
test holds this list to), as (lhs, rhs) format names."""

K_STEP = 256
"""Values per K step: one q4_K super-block, the largest block."""
TILE = 16
K = 2 * K_STEP  # two trips round the K loop
DOT_LINE = 23
"""The line of ``qdot.dot_scaled`` in ``kernel_text``'s output (where a refusal points)."""


def kernel_text(lhs: str, rhs: str) -> str:
    """Y[M, N] = X[M, K] · W[N, K]ᵀ for M, N ≤ 16 in one program of one warp: X is M rows of K
    ``lhs`` blocks' worth, W N rows of ``rhs`` blocks (ggml's layouts), read as [K, N]."""
    x_values, w_values = FORMATS[lhs].block_values, FORMATS[rhs].block_values
    x_step, w_step = K_STEP // x_values, K_STEP // w_values
    x, w = f"!qdot.block<{lhs}>", f"!qdot.block<{rhs}>"
    x_tile, w_tile, y_tile = f"{TILE}x{x_step}x{x}", f"{w_step}x{TILE}x{w}", f"{TILE}x{TILE}xf32"
    return f"""\
func.func @dot_{lhs}_{rhs}(%x_ptr: !qdot.ptr<{x}>, %w_ptr: !qdot.ptr<{w}>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {{qdot.divisibility = {K_STEP} : i64}})
    attributes {{qdot.kernel, qdot.num_warps = 1 : i64}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_values = arith.constant {x_values} : index
  %w_values = arith.constant {w_values} : index
  %k_step = arith.constant {K_STEP} : index
  %x_step = arith.constant {x_step} : index
  %w_step = arith.constant {w_step} : index
  %kx = arith.divui %k, %x_values : index
  %kw = arith.divui %k, %w_values : index
  %ks = arith.divui %k, %k_step : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<{x}> -> !qdot.desc<{x_tile}>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<{w}> -> !qdot.desc<{w_tile}>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<{y_tile}>
  %zero = arith.constant dense<0.000000e+00> : tensor<{y_tile}>
  %acc = scf.for %kk = %c0 to %ks step %c1 iter_args(%acc_i = %zero) -> (tensor<{y_tile}>) {{
    %kkx = arith.muli %kk, %x_step : index
    %kkw = arith.muli %kk, %w_step : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<{x_tile}> -> tensor<{x_tile}>
    %w = qdot.load %w_desc[%kkw, %c0] : !qdot.desc<{w_tile}> -> tensor<{w_tile}>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = {lhs} rhs = {rhs}
         : tensor<{x_tile}> * tensor<{w_tile}> -> tensor<{y_tile}>
    scf.yield %d : tensor<{y_tile}>
  }}
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<{y_tile}>, tensor<{y_tile}>
  func.return
}}
"""


def quantized(fmt: str, rows: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` rows of K random normal values quantized to ``fmt``: [rows, K/bv, bytes]."""
    info = FORMATS[fmt]
    blocks = numerics.quantize(fmt, rng.standard_normal((rows, K)))
    return blocks.reshape(rows, K // info.block_values, info.block_bytes)


def unit_scaled(fmt: str, rows: int, rng: np.random.Generator) -> np.ndarray:
    """Blocks of ``fmt`` whose fp16 scales (d, q4_K's dmin) are all 1 and whose other fields are
    random: q8 quants in ±127, q4_0 quants in -8..7, q5_0's in -16..15, mxfp4's and iq4_nl's ggml kvalues (mxfp4's
    d 2^0), q4_1
    codes 0..15 (q5_1 0..31) and m in ±64, q8_1 sums integers in ±2048
    (exact in fp16), q4_K and q5_K 6-bit
    scales and mins in 0..7 (q5_K codes 0..31), q6_K quants in -32..31 and int8 scales in -8..7, q3_K quants in
    -4..3 and scales in -8..7, q2_K codes 0..3 and 4-bit scales and mins in 0..15 (d and dmin 1), iq4_xs kvalues
    and scales (ls − 32) in -2..2 — so a
    16 × 16 × 512 product stays below 2^24, exact in f32."""
    info = FORMATS[fmt]
    blocks = K // info.block_values
    fields: IQ4XSFields | Q2KFields | Q3KFields | Q4KFields | Q5KFields | Q6KFields | Q8Fields | Q41Fields | Q51Fields
    if fmt in ("q4_1", "q5_1"):  # d = 1, m integers in ±64 (exact in fp16: its sums with the q8_1 sums stay integers)
        fields = (Q41Fields if fmt == "q4_1" else Q51Fields)(
            d=np.ones((rows, blocks), np.float32), m=rng.integers(-64, 65, (rows, blocks)).astype(np.float32),
            q=rng.integers(0, 16 if fmt == "q4_1" else 32, (rows, blocks, 32), dtype=np.uint8))
    elif fmt == "q6_K":
        fields = Q6KFields(d=np.ones((rows, blocks), np.float32),
                           scales=rng.integers(-8, 8, (rows, blocks, 16), dtype=np.int8),
                           q=rng.integers(-32, 32, (rows, blocks, 256), dtype=np.int8))
    elif fmt == "q3_K":
        fields = Q3KFields(d=np.ones((rows, blocks), np.float32),
                           scales=rng.integers(-8, 8, (rows, blocks, 16), dtype=np.int8),
                           q=rng.integers(-4, 4, (rows, blocks, 256), dtype=np.int8))
    elif fmt == "q2_K":
        fields = Q2KFields(d=np.ones((rows, blocks), np.float32), dmin=np.ones((rows, blocks), np.float32),
                           scales=rng.integers(0, 16, (rows, blocks, 16), dtype=np.uint8),
                           mins=rng.integers(0, 16, (rows, blocks, 16), dtype=np.uint8),
                           q=rng.integers(0, 4, (rows, blocks, 256), dtype=np.uint8))
    elif fmt == "iq4_xs":
        fields = IQ4XSFields(d=np.ones((rows, blocks), np.float32),
                             scales=rng.integers(-2, 3, (rows, blocks, 8), dtype=np.int8),
                             q=rng.choice(np.array(IQ4NL_KVALUES, np.int8), (rows, blocks, 256)))
    elif fmt in ("q4_K", "q5_K"):
        sub_blocks = (rows, blocks, 8)
        kind = Q4KFields if fmt == "q4_K" else Q5KFields
        fields = kind(d=np.ones((rows, blocks), np.float32), dmin=np.ones((rows, blocks), np.float32),
                      scales=rng.integers(0, 8, sub_blocks, dtype=np.uint8),
                      mins=rng.integers(0, 8, sub_blocks, dtype=np.uint8),
                      q=rng.integers(0, 16 if fmt == "q4_K" else 32, (rows, blocks, 256), dtype=np.uint8))
    else:
        groups = (rows, blocks, 4) if fmt == "q8_1_mmq" else (rows, blocks)  # one (d, s) per 32 values
        no_sums = fmt in ("q8_0", "q4_0", "q5_0", "mxfp4", "iq4_nl")
        sums = None if no_sums else rng.integers(-2048, 2049, groups).astype(np.float32)
        low, high = {"q4_0": (-8, 8), "q5_0": (-16, 16)}.get(fmt, (-127, 128))  # a code 0..15 (0..31) minus 8 (16)
        q = rng.integers(low, high, (rows, blocks, info.block_values), dtype=np.int8)
        if fmt in ("mxfp4", "iq4_nl"):  # d = 1 (mxfp4: 2^(128 - 128)), each value one of ggml's kvalues
            table = MXFP4_KVALUES if fmt == "mxfp4" else IQ4NL_KVALUES
            q = rng.choice(np.array(table, np.int8), (rows, blocks, info.block_values))
        fields = Q8Fields(d=np.ones(groups, np.float32), s=sums, q=q)
    return pack_blocks(fmt, fields).reshape(rows, blocks, info.block_bytes)


def reference(x: np.ndarray, w: np.ndarray, lhs: str, rhs: str) -> np.ndarray:
    return numerics.dot_scaled(x, w.transpose(1, 0, 2), lhs=lhs, rhs=rhs, use_block_sums=FORMATS[lhs].min_term or FORMATS[rhs].min_term)
