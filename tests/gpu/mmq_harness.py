"""Inputs, reference and check for the q8_1 × q4_K (q4_0, q4_1, q5_0, q5_1, q8_0, q5_K, q6_K, q3_K, mxfp4) kernels of
``compiler.mmq_template``.

Shared by the GPU suite (tests/gpu/test_mmq_gpu.py) and the CPU emulator test
(tests/emulator/test_mmq_emulated.py), so both check the same thing: random f32
weights and activations quantized by ``compiler.numerics`` (ggml's block layouts),
the kernel's Y = X · Wᵀ compared with the float64 meaning of llama.cpp's MMQ
(``dot_scaled(..., use_block_sums=True)``: dequantized blocks, the q4_K min term
taken with the q8_1 block sums, as is q4_1's + m; q4_0 and q8_0 have no min term), relative
Frobenius error ≤ 1e-5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from compiler import numerics
from compiler.format_table import FORMATS
from compiler.numerics.blocks import block_layout, fp16_fields
from compiler.mmq_template import MmqConfig, tile_weights

TOLERANCE = 1e-5
ONE_TOKEN_LAYOUTS = {"padded": {"pad_block_rows": True}, "broadcast": {"broadcast_rhs": True}}
"""The one-token kernel's two ways out of its activation tile's 2-way bank conflicts, as ``MmqConfig`` fields: rows
padded to 304 bytes (``qdot.pad_block_rows``, ``choose_mmq``'s for q4_K, q3_K, q4_1 and q5_1: runs 317, 320,
322–323) and token 0 read as every column (``qdot.broadcast_rhs``, run 319)."""


@dataclass(frozen=True)
class MmqCase:
    cfg: MmqConfig
    m: int
    n: int
    k: int
    stages: int = 3

    @property
    def id(self) -> str:
        return f"{self.cfg.name}-s{self.stages}-{self.m}x{self.n}x{self.k}"


def weight_shape(cfg: MmqConfig, n: int, k: int) -> tuple[int, int, int]:
    """[N, K/bv, block bytes] of the weights' format (q4_K: [N, K/256, 144])."""
    info = FORMATS[cfg.weights]
    assert info.block_values is not None and info.block_bytes is not None
    return n, k // info.block_values, info.block_bytes


def make_inputs(case: MmqCase, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """x: [M, K/128, 144] q8_1_mmq, w: [N, K/256, 144] q4_K or the other weights' blocks (ggml's
    row-major block arrays)."""
    w = quantized_weights(case.cfg, case.n, case.k, rng)
    return {**quantized_activations(case.m, case.k, rng), "w": w}


def quantized_weights(cfg: MmqConfig, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Random f32 weights [N, K] quantized to ``cfg.weights``' blocks [N, K/bv, bytes] by ``compiler.numerics``."""
    w = rng.standard_normal((n, k)).astype(np.float32)
    # per-row scale spread, so d and dmin differ between rows and blocks
    w *= rng.uniform(0.1, 4.0, size=(n, 1)).astype(np.float32)
    w += rng.uniform(-0.5, 0.5, size=(n, k // 32)).repeat(32, axis=1).astype(np.float32)
    return np.ascontiguousarray(numerics.quantize(cfg.weights, w).reshape(weight_shape(cfg, n, k)))


def quantized_activations(m: int, k: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Random f32 activations ``x_f32`` [M, K] and their q8_1_mmq blocks ``x`` [M, K/128, 144]."""
    x = rng.standard_normal((m, k)).astype(np.float32)
    return {"x": np.ascontiguousarray(numerics.quantize("q8_1_mmq", x).reshape(m, k // 128, 144)), "x_f32": x}


def reference(case: MmqCase, data: dict[str, np.ndarray]) -> np.ndarray:
    return reference_of(data["x"], data["w"], case.cfg.weights)


def reference_of(x: np.ndarray, w: np.ndarray, weights: str) -> np.ndarray:
    """The float64 meaning of Y = X · Wᵀ for q8_1_mmq blocks X [M, K/128, 144] and ``weights``
    blocks W [N, K/bv, bytes]: q4_K's, q5_K's and q4_1's min term taken with the q8_1 block sums
    (llama.cpp's MMQ meaning), the others (no min) their dequantized blocks'."""
    return numerics.dot_scaled(x, w.transpose(1, 0, 2), lhs="q8_1_mmq", rhs=weights,
                               use_block_sums=FORMATS[weights].min_term)


def check(out: np.ndarray, ref: np.ndarray) -> tuple[bool, float]:
    if not np.all(np.isfinite(out)):
        return False, float("inf")
    err = float(np.linalg.norm(out.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-300))
    return err <= TOLERANCE, err


def poisoned_output(case: MmqCase) -> np.ndarray:
    """NaN everywhere, so an element the kernel never writes fails the check — except for split-K
    kernels, which add into Y and need zeros (an unwritten element then shows as a wrong 0)."""
    fill = 0.0 if case.cfg.needs_zeroed_output else np.nan
    return np.full((case.m, case.n), fill, dtype=np.float32)




def integer_inputs(case: MmqCase, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Blocks whose scales are all 1 and mins and sums 0: the kernel's output is then the
    exact integer Σ q_x · q_w (|Σ| < 2^24 keeps it exact in f32), which checks the int8
    mma path, the nibble unpacking and the K-block order bit for bit."""
    x = np.zeros((case.m, case.k // 128, 144), dtype=np.uint8)
    one = np.frombuffer(np.float16(1.0).tobytes(), dtype=np.uint8)
    x[..., 16:] = rng.integers(-127, 128, size=(case.m, case.k // 128, 128)).astype(np.int8).view(np.uint8)
    for i in range(4):  # ds4: d = 1, s = 0 for each 32 values
        x[..., 4 * i:4 * i + 2] = one
    qx = x[..., 16:].view(np.int8).reshape(case.m, case.k).astype(np.int64)
    if case.cfg.weights != "q4_K":  # d = 1, random codes; their values through numerics' own decoding
        w = rng.integers(0, 256, size=weight_shape(case.cfg, case.n, case.k), dtype=np.uint8)
        for field in fp16_fields(case.cfg.weights):  # d = 1; q4_1's and q5_1's m = 0 (its term is the sums', 0 here)
            w[..., field.byte:field.byte + field.nbytes] = np.tile(one, field.count) if field.name != "m" else 0
        exponent = next((f for f in block_layout(case.cfg.weights) if f.name == "e"), None)
        if exponent is not None:  # mxfp4's exponent byte: d = 2^(128 - 128) = 1
            w[..., exponent.byte] = 128
        scales = next((f for f in block_layout(case.cfg.weights) if f.name == "scales"), None)
        if case.cfg.weights == "q6_K":  # int8 scales in -4..3: the sums stay far below 2^24
            assert scales is not None
            w[..., scales.byte:scales.byte + scales.nbytes] = rng.integers(-4, 4, size=(*w.shape[:2], scales.count),
                                                                           dtype=np.int8).view(np.uint8)
        if case.cfg.weights == "q3_K":  # 6-bit scale codes 28..35 (scales -4..3), as q6_K's: far below 2^24
            assert scales is not None
            codes = numerics.block_fields("q3_K", w.reshape(case.n, -1)).q  # the random quants as they are
            sc = rng.integers(-4, 4, size=(*codes.shape[:-1], 16), dtype=np.int8)
            w = numerics.pack_blocks("q3_K", numerics.Q3KFields(d=np.ones(codes.shape[:-1], np.float32), scales=sc,
                                                                 q=codes)).reshape(w.shape)
        if case.cfg.weights == "iq4_xs":  # 6-bit ls 28..35 (scales -4..3), as q3_K's: far below 2^24
            fields = numerics.block_fields("iq4_xs", w.reshape(case.n, -1))  # the random codes' kvalues
            sc = rng.integers(-4, 4, size=fields.scales.shape, dtype=np.int8)
            w = numerics.pack_blocks("iq4_xs", numerics.IQ4XSFields(d=np.ones(fields.d.shape, np.float32), scales=sc,
                                                                    q=fields.q)).reshape(w.shape)
        if case.cfg.weights == "q5_K":  # q4_K's packed scales: sc = 1 and m = 0 in all eight sub-blocks
            assert scales is not None
            w[..., scales.byte:scales.byte + scales.nbytes] = np.array([1] * 4 + [0] * 4 + [1] * 4, dtype=np.uint8)
        qw = numerics.dequantize(case.cfg.weights, w.reshape(case.n, -1)).astype(np.int64)
        return {"x": x, "w": w, "exact": qx @ qw.T}
    w = np.zeros((case.n, case.k // 256, 144), dtype=np.uint8)
    w[..., 0:2] = one  # d = 1, dmin = 0
    w[..., 4:8] = 1  # sc = 1 for sub-blocks 0..3, and m = 0
    w[..., 12:16] = 1  # sub-blocks 4..7: sc low bits 1, m 0
    w[..., 16:] = rng.integers(0, 256, size=(case.n, case.k // 256, 128)).astype(np.uint8)
    nib = w[..., 16:].reshape(case.n, case.k // 256, 4, 32)
    qw = np.concatenate([nib & 0xF, nib >> 4], axis=3).reshape(case.n, case.k).astype(np.int64)
    return {"x": x, "w": w, "exact": qx @ qw.T}


def kernel_weights(cfg: MmqConfig, w: np.ndarray) -> np.ndarray:
    """W as ``cfg``'s kernel reads it: ggml's row-major blocks, or ``tile_weights``' repacking of
    them for ``tiled_weights`` (the reference always takes ggml's)."""
    return tile_weights(w, cfg) if cfg.tiled_weights else w


def run_mmq(case: MmqCase, data: dict[str, np.ndarray], cupy: Any) -> np.ndarray:
    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_grid, mmq_kernel
    from targets.ptx.runner import load

    compiled = get_or_compile(mmq_kernel(case.cfg), arch="sm_90", strategy="promote-int8", num_stages=case.stages)
    kernel = load(compiled.ptx, compiled.kernels[0])
    y = cupy.asarray(poisoned_output(case))
    kernel.launch(cupy.asarray(data["x"]), cupy.asarray(kernel_weights(case.cfg, data["w"])), y, case.m, case.n, case.k,
                  grid=mmq_grid(case.cfg, case.m, case.n, case.k))
    return cupy.asnumpy(y)


def fixup_mul_mat(kernels: tuple, cfg: MmqConfig, grid: tuple[int, int, int], x: Any, xq: Any, w: Any, m: int, n: int,
                  k: int, cupy: Any) -> np.ndarray:
    """One MUL_MAT of a ``cfg.fixup`` GEMM from f32 activations ``x`` on the GPU, as a user runs it: the quantize
    kernel (no zeroing), the GEMM on ``grid`` leaving its pieces in a NaN-filled workspace, the fix-up kernel adding
    them into a NaN-filled Y. ``kernels``: the loaded (quantize, GEMM, fix-up) kernels. Returns Y on the host."""
    from compiler.mmq_template import fixup_grid, fixup_scalars, fixup_workspace_shape
    from compiler.quantize_template import quantize_grid

    quantize, gemm, fixup = kernels
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    parts = cupy.full(fixup_workspace_shape(cfg, grid, n), cupy.nan, dtype=cupy.float32)
    quantize.launch(x, xq, m, k, grid=quantize_grid(m, k))
    gemm.launch(xq, w, y, parts, m, n, k, grid=grid)
    fixup.launch(y, parts, *fixup_scalars(cfg, grid, m, n, k), grid=fixup_grid(cfg, m, n))
    return cupy.asnumpy(y)


def fixup_in_gemm_mul_mat(kernels: tuple, cfg: MmqConfig, grid: tuple[int, int, int], x: Any, xq: Any, w: Any,
                          counts: Any, m: int, n: int, k: int, cupy: Any) -> np.ndarray:
    """One MUL_MAT of a ``cfg.fixup_in_gemm`` GEMM from f32 activations ``x``: the quantize kernel (no zeroing), then
    the GEMM on ``grid`` with a NaN-filled workspace, a NaN-filled Y and the tiles' ``counts`` (zero before the first
    launch; each launch leaves them zero). ``kernels``: the loaded (quantize, GEMM) kernels. Returns Y on the host."""
    from compiler.mmq_template import fixup_workspace_shape
    from compiler.quantize_template import quantize_grid

    quantize, gemm = kernels
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    parts = cupy.full(fixup_workspace_shape(cfg, grid, n), cupy.nan, dtype=cupy.float32)
    quantize.launch(x, xq, m, k, grid=quantize_grid(m, k))
    gemm.launch(xq, w, y, parts, counts, m, n, k, grid=grid)
    return cupy.asnumpy(y)


def in_gemm_variants(cfg: MmqConfig, stages: int, one_launch: bool = True) -> dict[str, Any]:
    """``cfg`` (a fix-up GEMM) compiled with its fix-up in the GEMM (``"in_gemm"``) and, for a decode kernel with a
    contiguous share of K and ``one_launch``, also quantizing X itself (``"one_launch"``). Compile before asking for
    the GPU (``gpu()``), so the kernel cache a GPU run takes holds them."""
    from dataclasses import replace

    from compiler.kernel_cache import get_or_compile
    from compiler.mmq_template import mmq_kernel

    configs = {"in_gemm": replace(cfg, fixup_in_gemm=True)}
    if one_launch and cfg.small_m and not cfg.interleave_splits:
        configs["one_launch"] = replace(cfg, fixup_in_gemm=True, quantize_in_gemm=True)
    return {name: (c, get_or_compile(mmq_kernel(c), arch="sm_90", strategy="promote-int8", num_stages=stages))
            for name, c in configs.items()}


def assert_in_gemm_variants_match(variants: dict[str, Any], quantize: Any, grid: tuple[int, int, int], x: Any,
                                  xq: Any, w: Any, m: int, n: int, k: int, expected: np.ndarray, cupy: Any) -> None:
    """Each of ``in_gemm_variants``' kernels, launched twice on the same counters (zero at first): each launch must
    leave them zero and give ``expected``'s bits — the fix-up kernel's Y, whose quantization (the loaded ``quantize``
    kernel's, or the one-launch kernel's own) and additions in the same order they repeat."""
    from compiler.mmq_template import fixup_counters_shape, fixup_workspace_shape, quantize_scratch_shape
    from targets.ptx.runner import load

    for name, (cfg, compiled) in variants.items():
        kernel = load(compiled.ptx, compiled.kernels[0])
        counts = cupy.zeros(fixup_counters_shape(cfg, m, n), dtype=cupy.int32)
        for launch in range(2):
            if name == "one_launch":  # X as f32, quantized into the kernel's scratch
                y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
                parts = cupy.full(fixup_workspace_shape(cfg, grid, n), cupy.nan, dtype=cupy.float32)
                scratch = cupy.empty(quantize_scratch_shape(cfg, grid, n, k), dtype=cupy.uint8)
                kernel.launch(x, scratch, w, y, parts, counts, m, n, k, grid=grid)
                out = cupy.asnumpy(y)
            else:
                out = fixup_in_gemm_mul_mat((quantize, kernel), cfg, grid, x, xq, w, counts, m, n, k, cupy)
            assert not cupy.asnumpy(counts).any(), f"{cfg.name}: launch {launch} left the counters non-zero"
            assert np.array_equal(out.view(np.uint32), expected.view(np.uint32)), \
                f"{cfg.name} on grid {grid}, launch {launch}: {int((out != expected).sum())} elements differ from " \
                "the fix-up kernel's"


def random_weight_blocks(rows: int, k: int, rng: np.random.Generator, weights: str = "q4_K") -> np.ndarray:
    """Random weight blocks [rows, K/bv, bytes] (``block_q4_K`` by default): every byte pattern with
    finite fp16 fields (q4_K's d and dmin, q4_0's / q8_0's d) is a valid block, so benchmarks need
    not run the (slow, CPU) quantizer on 100+ MB."""
    info = FORMATS[weights]
    assert info.block_values is not None and info.block_bytes is not None
    shape = (rows, k // info.block_values, info.block_bytes)
    blocks = rng.integers(0, 256, size=shape, dtype=np.uint8)
    fields = fp16_fields(weights)  # where compiler.numerics says the format keeps them
    values = rng.uniform(1e-3, 1e-2, size=(*shape[:2], sum(f.count for f in fields))).astype("<f2")
    first = 0
    for field in fields:
        part = values[..., first:first + field.count]
        blocks[..., field.byte:field.byte + field.nbytes] = part.view(np.uint8).reshape(*shape[:2], field.nbytes)
        first += field.count
    exponent = next((f for f in block_layout(weights) if f.name == "e"), None)
    if exponent is not None:  # mxfp4's exponent byte: d = 2^(e - 128) from 2^-10 to 2^-7, as the fp16 scales above
        blocks[..., exponent.byte] = rng.integers(118, 122, size=shape[:2], dtype=np.uint8)
    return blocks


__all__ = ["MmqCase", "TOLERANCE", "assert_in_gemm_variants_match", "check", "fixup_in_gemm_mul_mat", "fixup_mul_mat",
           "in_gemm_variants", "integer_inputs", "kernel_weights", "make_inputs", "poisoned_output",
           "quantized_activations", "quantized_weights", "random_weight_blocks", "reference", "reference_of", "run_mmq",
           "weight_shape"]
