"""Inputs, launches and checks for the activation-quantize kernels of ``compiler.quantize_template``.

Shared by the GPU test (tests/gpu/test_quantize_gpu.py) and the emulated one
(tests/passes/test_lower_quantize_emulated.py), so both check the same way: random
f32 rows in which every 32-value group gets one of the cases that break a careless
quantizer (all zeros, -0.0, exact .5 ties, a scale that underflows to 0, a subnormal
scale, huge and tiny magnitudes, values that cancel so that the sum depends on the
order of the additions), an output buffer poisoned with 0xAB bytes and two
rows longer than M, and a byte-for-byte comparison with ``compiler.numerics.quantize``
(method "cuda", the default) of the rows padded with zeros to whole blocks. Rows past
M must keep their poison. A case with ``zero_n`` runs the kernel that also zeroes an
f32 output Y [M, N] (``zero_output``): Y starts as NaN, two rows longer than M, and
must come back zero in its M rows and NaN past them.

Nothing here imports xDSL: on the GPU machine kernels come from the kernel cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from compiler import numerics
from compiler.kernel_cache import get_or_compile
from compiler.quantize_template import MID_VALUES, QuantizeConfig

POISON = 0xAB
EXTRA_ROWS = 2
"""Rows of the output buffer past M: the kernel must not write them."""
GROUP = 32
SMALLEST_SUBNORMAL = np.float32(2.0**-149)


@dataclass(frozen=True)
class QuantizeCase:
    fmt: str
    m: int
    k: int
    rows_per_program: int = 8
    block_k: int = 512
    num_warps: int = 4
    small_m: int = 32
    arch: str = "sm_90"
    zero_n: int = 0
    """N of the f32 output Y [M, N] the kernel also zeroes; 0: the kernel without zeroing."""
    mid_values: int = MID_VALUES
    """The kernel's ``mid_values``: 0 leaves out its mid tile (a case of the staged 8 × 512 tile at small M · K)."""

    @property
    def config(self) -> QuantizeConfig:
        return QuantizeConfig(self.fmt, self.rows_per_program, self.block_k, self.num_warps, self.small_m,
                              zero_output=self.zero_n > 0, mid_values=self.mid_values)

    @property
    def label(self) -> str:
        return f"{self.config.name} M={self.m} K={self.k}" + (f" N={self.zero_n}" if self.zero_n else "")

    @property
    def blocks_per_row(self) -> int:
        return -(-self.k // self.config.block_values)

    @property
    def row_bytes(self) -> int:
        info = numerics.format_info(self.fmt)
        assert info.block_bytes is not None
        return self.blocks_per_row * info.block_bytes

    @property
    def grid(self) -> tuple[int, int, int]:
        return self.config.grid(self.m, self.k)

    def source(self) -> str:
        return self.config.source()

    def arguments(self, x: Any, q: Any, y: Any) -> list[Any]:
        """The kernel's arguments: (x, q, M, K), or (x, q, y, M, K, N) for a zeroing kernel."""
        return [x, q, y, self.m, self.k, self.zero_n] if self.zero_n else [x, q, self.m, self.k]

    def compiled(self) -> Any:
        return get_or_compile(self.source(), arch=self.arch)


def activations(m: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """[m, k] float32: normal values, with one special case per 32-value group in turn."""
    padded = -(-k // GROUP) * GROUP
    x = rng.standard_normal((m, padded)).astype(np.float32)
    groups = x.reshape(m, padded // GROUP, GROUP)
    count = groups.shape[0] * groups.shape[1]
    kinds = rng.permutation(count) % 11  # each kind in turn, at random places
    flat = groups.reshape(count, GROUP)
    for index, kind in enumerate(kinds):
        g = flat[index]
        if kind == 0:
            g[:] = 0.0
        elif kind == 1:
            g[:] = -0.0
        elif kind == 2:  # amax = 127 · 2^e, so d = 2^e and many x / d are exact .5 ties
            e = int(rng.integers(-20, 20))
            g[:] = np.ldexp(rng.integers(-254, 255, GROUP) / 2.0, e).astype(np.float32)
            g[int(rng.integers(GROUP))] = np.float32(np.ldexp(127.0 * rng.choice([-1, 1]), e))
        elif kind == 3:  # amax / 127 underflows to 0: ggml divides by zero
            g[:] = rng.integers(-63, 64, GROUP) * SMALLEST_SUBNORMAL
        elif kind == 4:  # d is a subnormal float
            g[:] = rng.integers(-2000, 2001, GROUP) * SMALLEST_SUBNORMAL
        elif kind == 5:  # huge: d and s overflow f16
            g *= np.float32(1e36)
        elif kind == 6:  # tiny normal values: d below the f16 range
            g *= np.float32(1e-30)
        elif kind == 7:  # one large value among small ones
            g *= np.float32(1e-3)
            g[int(rng.integers(GROUP))] = np.float32(rng.choice([-1, 1]) * 1e3)
        elif kind == 8:  # pairs that nearly cancel: s depends on the order of the additions
            half = rng.standard_normal(GROUP // 2) * np.float32(2.0**20)
            noise = rng.standard_normal(GROUP // 2)
            g[:] = np.concatenate([half, -rng.permutation(half) + noise])[rng.permutation(GROUP)]
        elif kind == 9:  # some values ±0 among normal ones: the lowering divides d by d for them
            g[rng.permutation(GROUP)[:int(rng.integers(1, GROUP))]] = rng.choice([0.0, -0.0])
        # kind 10: plain normal values
    return np.ascontiguousarray(x[:, :k])


def reference(case: QuantizeCase, x: np.ndarray) -> np.ndarray:
    """The expected bytes [m, row_bytes]: the rows zero-padded to whole blocks, quantized."""
    padded = np.zeros((case.m, case.blocks_per_row * case.config.block_values), dtype=np.float32)
    padded[:, :case.k] = x
    return numerics.quantize(case.fmt, padded)


def poisoned_output(case: QuantizeCase) -> np.ndarray:
    return np.full((case.m + EXTRA_ROWS, case.row_bytes), POISON, dtype=np.uint8)


def poisoned_y(case: QuantizeCase) -> np.ndarray:
    """The f32 output a zeroing kernel clears: NaN, two rows longer than M (at least one column,
    so that a kernel without zeroing gets a valid, unused buffer)."""
    return np.full((case.m + EXTRA_ROWS, max(case.zero_n, 1)), np.nan, dtype=np.float32)


def check_zeroed(case: QuantizeCase, y: np.ndarray) -> str | None:
    """None when a zeroing kernel cleared exactly Y's M rows (or the case zeroes nothing)."""
    if not case.zero_n:
        return None
    rows = y[:case.m]
    if not (rows == 0).all():
        row, col = (int(v) for v in np.argwhere(rows != 0)[0])
        return f"{case.label}: Y[{row}, {col}] = {rows[row, col]} after the kernel, expected 0 in all {case.m} rows"
    if not np.isnan(y[case.m:]).all():
        return f"{case.label}: rows of Y past M = {case.m} were written"
    return None


def check(case: QuantizeCase, out: np.ndarray, expected: np.ndarray) -> str | None:
    """None when ``out`` is right; else what is wrong, with the first bad byte located."""
    rows = out[:case.m]
    if not np.array_equal(rows, expected):
        bad = np.argwhere(rows != expected)
        row, byte = (int(v) for v in bad[0])
        block_bytes = case.row_bytes // case.blocks_per_row
        block, offset = divmod(byte, block_bytes)
        return (f"{case.label}: {len(bad)} bytes differ; first at row {row}, block {block}, byte {offset}: "
                f"got {int(rows[row, byte]):#04x}, expected {int(expected[row, byte]):#04x}")
    if (out[case.m:] != POISON).any():
        return f"{case.label}: rows past M = {case.m} were written"
    return None


def run_case(case: QuantizeCase, x: np.ndarray, cupy: Any) -> tuple[np.ndarray, np.ndarray]:
    """Launch the compiled kernel on the GPU; the poisoned outputs (blocks, Y) as written."""
    from targets.ptx.runner import load

    compiled = case.compiled()
    kernel = load(compiled.ptx, compiled.kernels[0])
    x_dev = cupy.asarray(np.ascontiguousarray(x, dtype=np.float32))
    q_dev = cupy.asarray(poisoned_output(case))
    y_dev = cupy.asarray(poisoned_y(case))
    kernel.launch(*case.arguments(x_dev, q_dev, y_dev), grid=case.grid)
    return cupy.asnumpy(q_dev), cupy.asnumpy(y_dev)
