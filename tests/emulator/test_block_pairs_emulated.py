"""Every ggml block pair ``qdot.dot_scaled`` accepts, compiled for sm_90 and run on the emulator.

The verifier's pairs (``dialects.qdot.formats.block_pairs_sorted()``: ggml's vec_dot pairings,
q8_1_mmq standing in for q8_1 on either side) are more than the MMQ kernels of
``compiler.mmq_template`` use (q8_1_mmq × q4_K), so each gets the same small kernel here: one
16 × 16 tile, a K step of 256 values (one q4_K super-block, two q8_1_mmq blocks, eight q8_0 /
q8_1 / q4_0 blocks), written for the pair from ``compiler.format_table``. The pipeline is the default
one (``qdot-accelerate-matmul{arch=sm_90}`` picks ``promote-int8`` for blocks), so every pair
runs on s8 / u8 mma.sync. Two checks per pair:

* quantized random inputs (``compiler.numerics.quantize``) against ``compiler.numerics.dot_scaled``
  at relative error ≤ 1e-5, with ``use_block_sums`` where a q4_K min term meets a q8_1 stored sum
  (llama.cpp's MMQ meaning: -dmin·m·s, not -dmin·m·d·Σq, which differs by ~1e-2);
* every fp16 scale 1 (random quants, sums and 6-bit scales and mins): Y is an integer below 2^24,
  which the f32 result must equal bit for bit.

Block pairs the verifier refuses are refused here too, with the verifier's diagnostic at the op.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

import compiler
from compiler import numerics
from compiler.api import CompiledKernel
from compiler.diagnostics import QdotError, location_of
from compiler.format_table import FORMATS
from compiler.numerics import Q4KFields, Q8Fields, pack_blocks
from dialects.qdot.formats import BLOCK_FORMATS, BLOCK_PAIRS, block_pairs_sorted

K_STEP = 256
"""Values per K step: one q4_K super-block, the largest block."""
TILE = 16
K = 2 * K_STEP  # two trips round the K loop
PAIRS = [(str(lhs), str(rhs)) for lhs, rhs in block_pairs_sorted()]
REFUSED_PAIRS = [(str(lhs), str(rhs)) for lhs, rhs in product(BLOCK_FORMATS, repeat=2) if (lhs, rhs) not in BLOCK_PAIRS]
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
    random: q8 quants in ±127, q4_0 quants in -8..7, q8_1 sums integers in ±2048 (exact in fp16), q4_K 6-bit scales and
    mins in 0..7 (so a 16 × 16 × 512 product stays below 2^24, exact in f32)."""
    info = FORMATS[fmt]
    blocks = K // info.block_values
    fields: Q4KFields | Q8Fields
    if fmt == "q4_K":
        sub_blocks = (rows, blocks, 8)
        fields = Q4KFields(d=np.ones((rows, blocks), np.float32), dmin=np.ones((rows, blocks), np.float32),
                           scales=rng.integers(0, 8, sub_blocks, dtype=np.uint8),
                           mins=rng.integers(0, 8, sub_blocks, dtype=np.uint8),
                           q=rng.integers(0, 16, (rows, blocks, 256), dtype=np.uint8))
    else:
        groups = (rows, blocks, 4) if fmt == "q8_1_mmq" else (rows, blocks)  # one (d, s) per 32 values
        sums = None if fmt in ("q8_0", "q4_0") else rng.integers(-2048, 2049, groups).astype(np.float32)
        low, high = (-8, 8) if fmt == "q4_0" else (-127, 128)  # q4_0: a code 0..15 minus 8
        fields = Q8Fields(d=np.ones(groups, np.float32), s=sums,
                          q=rng.integers(low, high, (rows, blocks, info.block_values), dtype=np.int8))
    return pack_blocks(fmt, fields).reshape(rows, blocks, info.block_bytes)


def _reference(x: np.ndarray, w: np.ndarray, lhs: str, rhs: str) -> np.ndarray:
    return numerics.dot_scaled(x, w.transpose(1, 0, 2), lhs=lhs, rhs=rhs, use_block_sums="q4_K" in (lhs, rhs))


def _emulate(kernel: CompiledKernel, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    m, n = x.shape[0], w.shape[0]
    y = np.full((m, n), np.nan, np.float32)  # a value the kernel does not write stays NaN
    compiler.emulate(kernel, x, w, y, m, n, K, grid=(1, 1, 1))
    return y


@pytest.mark.slow
@pytest.mark.parametrize("lhs,rhs", PAIRS, ids=[f"{lhs}-x-{rhs}" for lhs, rhs in PAIRS])
def test_block_pair_matches_reference(lhs: str, rhs: str) -> None:
    kernel = compiler.compile(kernel_text(lhs, rhs), arch="sm_90")
    mnemonics = {op.ptx_mnemonic() for op in kernel.lowered.walk() if op.name == "ptx.mma_sync"}
    assert any(m.endswith(("s32.s8.s8.s32", "s32.u8.s8.s32", "s32.s8.u8.s32")) for m in mnemonics), mnemonics

    rng = np.random.default_rng(sum(map(ord, lhs + rhs)))
    x, w = quantized(lhs, 13, rng), quantized(rhs, 11, rng)  # a ragged 13 × 11 corner of the tile
    y, ref = _emulate(kernel, x, w), _reference(x, w, lhs, rhs)
    err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
    assert err <= 1e-5, f"{lhs} × {rhs}: relative error {err:.3e}"

    x, w = unit_scaled(lhs, TILE, rng), unit_scaled(rhs, TILE, rng)
    y, ref = _emulate(kernel, x, w), _reference(x, w, lhs, rhs)
    assert np.abs(ref).max() < 2**24 and (ref == np.rint(ref)).all()
    wrong = np.argwhere(y != ref)
    assert not len(wrong), f"{lhs} × {rhs}, unit scales: {len(wrong)} of {y.size} differ, first at " \
                           f"{tuple(wrong[0])}: {y[tuple(wrong[0])]} != {ref[tuple(wrong[0])]}"


@pytest.mark.parametrize("lhs,rhs", REFUSED_PAIRS, ids=[f"{lhs}-x-{rhs}" for lhs, rhs in REFUSED_PAIRS])
def test_unpaired_blocks_are_refused_at_the_op(lhs: str, rhs: str) -> None:
    with pytest.raises(QdotError) as refusal:
        compiler.compile(kernel_text(lhs, rhs), arch="sm_90")
    assert refusal.value.op is not None and location_of(refusal.value.op) == f"<source>:{DOT_LINE}:5"
    assert f"'qdot.dot_scaled' op unsupported block pair lhs = {lhs}, rhs = {rhs}" in refusal.value.render()


def test_every_accepted_pair_is_a_pair_of_blocks() -> None:
    """The verifier's pairs are all ones ``kernel_text`` can write (two block formats), so a pair
    added to it runs here without editing this file; ``DOT_LINE`` is where the op is."""
    assert set(BLOCK_PAIRS) <= set(product(BLOCK_FORMATS, repeat=2))
    assert kernel_text("q8_0", "q8_0").splitlines()[DOT_LINE - 1].lstrip().startswith("%d = qdot.dot_scaled")
