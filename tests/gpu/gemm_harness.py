"""Random inputs, launches and checks for the GEMM kernels of ``compiler.templates``.

Every check draws fresh random inputs, poisons the output with NaN (0xFF bytes),
launches, and compares with ``compiler.numerics.dot_scaled`` in float64:
bit-identical for integer accumulation, relative Frobenius error ≤ 1e-5 for f32; a bf16
output (``GemmConfig(out="bf16")``) must be the float64 result rounded to bf16 (nearest
even) within one bf16 ulp everywhere, and exactly that for at least 99 % of the elements
(the f32 accumulation may land on the other side of a rounding boundary).
Used by tests/gpu and by the benchmark scripts, so both check the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from compiler import numerics
from compiler.kernel_cache import get_or_compile
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.templates import GemmConfig, gemm_kernel, grid

F32_TOLERANCE = 1e-5
BF16_EXACT_SHARE = 0.99


def poisoned_output(cfg: GemmConfig, m: int, n: int) -> np.ndarray:
    """C filled with all-ones bits: NaN for f32 and bf16, -1 for i32."""
    dtype = {"i32": np.int32, "f32": np.float32}[cfg.acc_type] if cfg.out == "f32" else np.uint16
    return np.full((m, n), -1, dtype=np.int32 if dtype != np.uint16 else np.int16).view(dtype)


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """float64 → bf16 bit patterns: rounded to f32, then to bf16 to nearest even. The two roundings
    can differ from a direct one by a bf16 ulp in a rare tie, which the check's one-ulp
    allowance covers."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def random_operand(fmt: str, rows: int, cols: int, rng: np.random.Generator) -> np.ndarray:
    """Codes of a [rows, cols] logical operand in its memory form (packed e2m1: cols/2 bytes)."""
    if fmt == "e2m1":
        return rng.integers(0, 256, size=(rows, cols // 2), dtype=np.uint8)
    if fmt in ("e4m3", "e5m2"):
        return numerics.encode(fmt, rng.standard_normal((rows, cols)) * 2.0)
    if fmt == "e2m3":
        return rng.integers(0, 64, size=(rows, cols), dtype=np.uint8)
    if fmt == "e3m2":
        return rng.integers(0, 64, size=(rows, cols), dtype=np.uint8)
    if fmt == "bf16":
        return numerics.encode("bf16", rng.standard_normal((rows, cols)))
    if fmt == "fp16":
        return numerics.encode("fp16", rng.standard_normal((rows, cols)))
    if fmt == "i8":
        return rng.integers(-128, 128, size=(rows, cols), dtype=np.int8)
    raise ValueError(fmt)


def random_scales(kind: str, rows: int, blocks: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "ue8m0":
        return rng.integers(120, 135, size=(rows, blocks), dtype=np.uint8)
    # ue4m3: positive normal codes from 0.25 to 16
    return rng.integers(0x28, 0x48, size=(rows, blocks), dtype=np.uint8)


def _reference_operand(fmt: str, codes: np.ndarray) -> np.ndarray:
    if fmt == "bf16":
        import ml_dtypes

        return codes.view(ml_dtypes.bfloat16)
    if fmt == "fp16":
        return codes.view(np.float16)
    return codes


@dataclass
class GemmCase:
    cfg: GemmConfig
    m: int
    n: int
    k: int
    arch: str = "sm_90"
    strategy: str = "auto"
    num_stages: int = 3
    programs: int | None = None
    """A persistent kernel's grid (``grid``'s default otherwise)."""
    epilogue: str = "direct"
    """qdot-to-llvm's ``epilogue``: ``staged`` sends an f32 C through shared memory."""

    @property
    def label(self) -> str:
        return f"{self.cfg.name}[{self.strategy}] {self.m}x{self.n}x{self.k} s{self.num_stages}"

    def compiled(self) -> Any:
        cfg = self.cfg
        if self.k % 128:
            cfg = replace(cfg, k_divisibility=32)
        pipeline = None if self.epilogue == "direct" else ptx_pipeline(
            PtxOptions(arch=self.arch, strategy=self.strategy, num_stages=self.num_stages, epilogue=self.epilogue))
        return get_or_compile(gemm_kernel(cfg), arch=self.arch, strategy=self.strategy, num_stages=self.num_stages,
                              pipeline=pipeline)


def make_inputs(case: GemmCase, rng: np.random.Generator) -> dict[str, np.ndarray]:
    cfg = case.cfg
    # B is stored transposed, [N, K'], or for N-packed e2m1 as K rows of N/2 bytes (the name stays b_t)
    b = random_operand(cfg.rhs, case.k, case.n, rng) if not cfg.rhs_k_pack else \
        random_operand(cfg.rhs, case.n, case.k, rng)
    # A is [M, K'], or for M-packed e2m1 K rows of M/2 bytes (its memory form; numerics takes the transpose)
    a = random_operand(cfg.lhs, case.k, case.m, rng) if not cfg.lhs_k_pack else \
        random_operand(cfg.lhs, case.m, case.k, rng)
    data = {"a": a, "b_t": b}
    for side, kind, rows in (("sa", cfg.lhs_scale, case.m), ("sb", cfg.rhs_scale, case.n)):
        if kind:
            group = 32 if kind == "ue8m0" else 16
            data[side] = random_scales(kind, rows, case.k // group, rng)
    return data


def kernel_operands(cfg: GemmConfig, data: dict[str, np.ndarray]) -> list[np.ndarray]:
    """A, B and the scales that are present, in the order and memory form the kernel takes them.
    ``data["b_t"]`` always holds B as ``make_inputs`` draws it (K-packed: [N, K'], K contiguous), which
    is what ``reference`` and the bf16 check read; a kernel built with ``b_k_major=False`` reads a
    K-packed B as [K', N] (N contiguous), so it gets the transpose, made contiguous."""
    b = data["b_t"]
    if not cfg.b_k_major and cfg.rhs_k_pack:  # an N-packed B is K rows of N/2 bytes whatever b_k_major says
        b = np.ascontiguousarray(b.T)
    return [data["a"], b] + [data[s] for s in ("sa", "sb") if s in data]


def reference(case: GemmCase, data: dict[str, np.ndarray]) -> np.ndarray:
    cfg = case.cfg
    a = data["a"].T if not cfg.lhs_k_pack else _reference_operand(cfg.lhs, data["a"])
    b = data["b_t"] if not cfg.rhs_k_pack else _reference_operand(cfg.rhs, data["b_t"]).T
    return numerics.dot_scaled(a, b, lhs=cfg.lhs, rhs=cfg.rhs, a_scale=data.get("sa"), b_scale=data.get("sb"),
                               lhs_k_pack=cfg.lhs_k_pack, rhs_k_pack=cfg.rhs_k_pack)


def run_case(case: GemmCase, data: dict[str, np.ndarray], cupy: Any) -> np.ndarray:
    from targets.ptx.runner import load

    compiled = case.compiled()
    kernel = load(compiled.ptx, compiled.kernels[0])
    c = cupy.asarray(poisoned_output(case.cfg, case.m, case.n))
    args = [cupy.asarray(np.ascontiguousarray(value)) for value in kernel_operands(case.cfg, data)]
    args += [c, case.m, case.n, case.k]
    kernel.launch(*args, grid=grid(case.cfg, case.m, case.n, case.programs))
    return cupy.asnumpy(c)


def check(case: GemmCase, out: np.ndarray, ref: np.ndarray,
          data: dict[str, np.ndarray] | None = None) -> tuple[bool, float]:
    """(passed, the error measure: relative Frobenius error, or for bf16 the share of elements
    not the correctly rounded value). A bf16 C needs ``data`` (the inputs): see ``_check_bf16``."""
    if case.cfg.out == "bf16":
        if data is None:
            raise ValueError("checking a bf16 C needs the inputs (data)")
        return _check_bf16(case, out, ref, data)
    if case.cfg.acc_type == "i32":
        return bool(np.array_equal(out.astype(np.int64), np.rint(ref).astype(np.int64))), 0.0
    if not np.isfinite(out).all():
        return False, float("inf")
    err = float(np.linalg.norm(out.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-300))
    return err <= F32_TOLERANCE, err


_SIGN_BITS_CLEAR = {"e2m1": 0x77, "e4m3": 0x7F, "e5m2": 0x7F, "e2m3": 0x1F, "e3m2": 0x1F, "bf16": 0x7FFF,
                    "fp16": 0x7FFF}
"""AND masks that turn codes (in their memory form: e2m1 two per byte) into their magnitudes' codes."""


def _check_bf16(case: GemmCase, out: np.ndarray, ref: np.ndarray, data: dict[str, np.ndarray]) -> tuple[bool, float]:
    """A bf16 C is the kernel's f32 accumulation rounded to bf16. The f32 sum may differ from the
    exact one by up to γ_K · Σ_k |a_ik b_kj| (K · 2^-24 times the magnitudes' sum), which near a
    cancellation is more than a bf16 ulp of the tiny result, so each element must be within one
    bf16 ulp of the float64 result plus that bound (a 520 × 1000 C has a few such elements); and
    at least ``BF16_EXACT_SHARE`` of the elements must be the correctly rounded value itself."""
    got = out.view(np.uint16)
    if ((got & 0x7F80) == 0x7F80).any():  # NaN or infinity: unwritten or overflowed
        return False, float("inf")
    off = float((got != bf16_bits(ref)).mean())
    magnitudes = dict(data)
    for side, fmt in (("a", case.cfg.lhs), ("b_t", case.cfg.rhs)):
        magnitudes[side] = data[side] & np.asarray(_SIGN_BITS_CLEAR[fmt], dtype=data[side].dtype)
    bound = case.k * 2.0 ** -24 * reference(case, magnitudes)
    value = (got.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    ulp = np.ldexp(1.0, np.floor(np.log2(np.maximum(np.abs(ref), 2.0 ** -126))).astype(np.int64) - 7)
    return bool((np.abs(value - ref) <= ulp + bound).all() and 1.0 - off >= BF16_EXACT_SHARE), off
