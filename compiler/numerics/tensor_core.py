"""The H200's floating-point tensor-core arithmetic, bit for bit: what one ``mma.sync`` or
``wgmma`` computes for one element of D from its row of A, column of B and C.

IEEE arithmetic does not say what a tensor core computes: the instruction adds k products and C
in one fused step whose internal precision NVIDIA does not document. The model here has the
shape Fasi, Higham, Mikaitis and Pranesh gave tensor cores ("Numerical behavior of NVIDIA
tensor cores", 2021); its parameters were measured on an H200 (sm_90, runs 122–126 and 132–133
of bench/RESULTS.md: ``bench/experiments/tensor_core_probe.py`` ran every form below on
operands and C from 25 pairs of distributions — values near 1, exponents spread over ±8 and
±24, every finite fp8 code, the bottom of each range with subnormals, a subnormal whose product
sets the alignment; C at 2^±12, zero, spread over 2^±20 — and
``bench/experiments/tensor_core_fit.py`` replayed the 12.3 million elements of D of runs 126,
132 and 133 against models: this one reproduces every one bit for bit; one f32 rounding of the
exact sum misses 21–92 % of them, and the model with any one parameter moved misses some of
every form's — each parameter is pinned by the data, not merely consistent with it).

One fused step over k terms (``FusedDot``):

1. each product a_j·b_j is exact; its exponent is taken as e(a_j) + e(b_j), the sum of the
   inputs' exponents, not the product's own (which can be one more), where e(x) is
   floor(log2 |x|) for a normal number and the format's smallest normal exponent for a
   subnormal one (its exponent field is zero: −14 for f16, −6 for e4m3; tens of thousands of
   elements of each bf16, f16 and fp8 wgmma form tell the two apart, run 133);
2. the products and C are aligned to the largest of those exponents and e(C), E, and each is
   truncated toward zero to a multiple of 2^(E − ``fraction_bits``);
3. the truncated terms are added exactly, and the sum is rounded toward zero to f32 and then,
   toward zero again, to ``result_bits`` significand bits.

Measured on the H200:

* bf16 and f16 → f32, ``mma.sync`` m16n8k16 and ``wgmma`` m64nNk16: one step of 16 products,
  25 fraction bits, f32 result (``BF16_STEP``);
* e4m3 and e5m2 → f32, the same type or mixed (e4m3 × e5m2, e5m2 × e4m3), ``wgmma`` m64nNk32:
  one step of 32 products, 13 fraction bits, the result kept to 13 significand bits
  (``FP8_WGMMA_STEP``) — the "fp22" accumulation reported of Hopper's fp8 tensor cores, which is
  why the MX kernels never use fp8 wgmma; each operand's subnormals at its own format's exponent;
* e4m3 and e5m2 → f32, the same or mixed, ``mma.sync`` m16n8k32 on sm_90 (the mixed form is what
  promote-fp8 runs for e5m2 × e2m1): Hopper has no fp8 ``mma.sync``; ptxas
  (13.0, and the JIT of driver 580.159 that ran the probes) converts both operands to f16 and
  issues two f16 HMMA from zero — the products of k mod 4 ∈ {0, 1} first, then those of
  k mod 4 ∈ {2, 3} onto the first's result — and adds C with an f32 FADD, rounded to nearest
  (``sm90_fp8_mma``; the SASS is in bench/RESULTS.md).

Not measured, so not modelled: non-finite operands, sums beyond f32's range, f16 results,
other GPUs (sm_80 / sm_89 / sm_120 tensor cores differ) and the block-scaled forms (sm_120).
``tensor_core_dot`` gives the one-rounding result — the exact sum rounded once to f32 — where
no measured model applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from compiler.numerics.formats import format_info

_NO_EXPONENT = -(1 << 20)
"""e(0): below every real exponent, so a zero term never sets the alignment."""


@dataclass(frozen=True)
class FusedDot:
    """One fused step of a tensor core: how many products it adds, and at what precision."""

    terms: int
    fraction_bits: int
    result_bits: int = 23


BF16_STEP = FusedDot(16, 25)
"""bf16 / f16 → f32, mma.sync m16n8k16 and wgmma k16 (H200)."""
FP8_WGMMA_STEP = FusedDot(32, 13, 13)
"""e4m3 / e5m2 → f32, wgmma k32 (H200)."""


NUMERICS_FORMAT = {"bf16": "bf16", "f16": "fp16", "e4m3": "e4m3", "e5m2": "e5m2"}
"""``compiler.numerics``' name of each PTX operand type a tensor core takes here."""
_F32_SMALLEST_EXPONENT = -126
"""IEEE binary32's smallest normal exponent: C's e(x) when C is subnormal."""


def smallest_exponent(operand_type: str) -> int:
    """A subnormal ``operand_type`` operand's e(x): its format's smallest normal exponent, 1 − bias
    (the format table's)."""
    coding = format_info(NUMERICS_FORMAT[operand_type]).coding
    assert coding is not None
    return 1 - coding.bias


def _exponent(x: NDArray[np.float64], smallest: int = _F32_SMALLEST_EXPONENT) -> NDArray[np.int64]:
    _, e = np.frexp(x)
    return np.where(x == 0, _NO_EXPONENT, np.maximum(e.astype(np.int64) - 1, smallest))


def _toward_zero_f32(v: NDArray[np.float64], bits: int) -> NDArray[np.float32]:
    """``v`` rounded toward zero to f32, then to ``bits`` significand bits (toward zero)."""
    r = v.astype(np.float32)
    r = np.where(np.abs(r.astype(np.float64)) > np.abs(v), np.nextafter(r, np.float32(0)), r).astype(np.float32)
    if bits < 23:
        mask = np.uint32((0xFFFFFFFF << (23 - bits)) & 0xFFFFFFFF)
        r = (r.view(np.uint32) & mask).view(np.float32)
    return r


OperandTypes = str | tuple[str, str]
"""The PTX types of A and B: one name when both are the same (``"bf16"``), else a pair
(``("e4m3", "e5m2")``: mixed fp8)."""


def operand_types(types: OperandTypes) -> tuple[str, str]:
    """(A's type, B's type) of ``types``."""
    return (types, types) if isinstance(types, str) else (types[0], types[1])


def fused_dot(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float32],
              step: FusedDot, types: OperandTypes) -> NDArray[np.float32]:
    """D = Σ_j a_j·b_j + C by one fused step: ``a``, ``b`` [..., step.terms] the values of
    operands of ``types`` (exact in float64), ``c`` [...] f32. Rows with a non-finite
    operand or a sum beyond f32's range get the one-rounding result (not measured)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    c64 = np.asarray(c, np.float32).astype(np.float64)
    if a.shape[-1] != step.terms or b.shape[-1] != step.terms:
        raise ValueError(f"a fused step adds {step.terms} products, got {a.shape[-1]} and {b.shape[-1]}")
    a_type, b_type = operand_types(types)
    with np.errstate(invalid="ignore", over="ignore"):
        products = a * b
        exponents = np.where(products == 0, _NO_EXPONENT,
                             _exponent(a, smallest_exponent(a_type)) + _exponent(b, smallest_exponent(b_type)))
        top = np.maximum(exponents.max(axis=-1), _exponent(c64))
        shift = np.clip(step.fraction_bits - top, -2000, 2000)
        kept = np.trunc(np.ldexp(products, shift[..., None])).sum(axis=-1) + np.trunc(np.ldexp(c64, shift))
        total = np.ldexp(kept, -shift)
        fused = _toward_zero_f32(total, step.result_bits)
        once = (products.sum(axis=-1) + c64).astype(np.float32)
    measured = np.isfinite(products).all(axis=-1) & np.isfinite(c64) & (np.abs(total) < 2.0 ** 128)
    return np.where(measured, fused, once).astype(np.float32)


def sm90_fp8_mma(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float32]) -> NDArray[np.float32]:
    """``mma.sync`` m16n8k32 with e4m3 / e5m2 operands (the same or mixed) → f32 as an sm_90 GPU
    runs it: two f16 HMMA from zero (k mod 4 < 2, then k mod 4 ≥ 2), then C added in f32.
    ``a``, ``b`` [..., 32]."""
    k = np.arange(32)
    first, second = k[k % 4 < 2], k[k % 4 >= 2]
    zero = np.zeros(np.shape(c), np.float32)
    partial = fused_dot(a[..., first], b[..., first], zero, BF16_STEP, "f16")  # fp8 → f16 is exact
    products = fused_dot(a[..., second], b[..., second], partial, BF16_STEP, "f16")
    with np.errstate(invalid="ignore", over="ignore"):
        return (products + np.asarray(c, np.float32)).astype(np.float32)


MEASURED_ARCHES = ("sm_90", "sm_90a")
"""The GPUs the models above were measured on (an H200)."""
FP8_TYPES = ("e4m3", "e5m2")
"""The fp8 PTX operand types (either may meet the other in one instruction)."""
_STEPS = {("mma", "bf16", "bf16"): BF16_STEP, ("mma", "f16", "f16"): BF16_STEP,
          ("wgmma", "bf16", "bf16"): BF16_STEP, ("wgmma", "f16", "f16"): BF16_STEP,
          **{("wgmma", a, b): FP8_WGMMA_STEP for a in FP8_TYPES for b in FP8_TYPES}}
"""The measured single-step forms: (instruction, A's type, B's type)."""


def tensor_core_dot(instruction: str, types: OperandTypes, a: NDArray[np.float64], b: NDArray[np.float64],
                    c: NDArray[np.float32], arch: str = "sm_90") -> NDArray[np.float32]:
    """D of one element per row of ``a`` / ``b`` [..., k] and ``c`` [...]: ``instruction`` is
    ``"mma"`` (mma.sync) or ``"wgmma"``, ``types`` the PTX types of A and B (``bf16``, ``f16``,
    ``e4m3``, ``e5m2``, or a pair of the fp8 ones), for an f32 accumulator. The measured model
    where there is one for this arch and form, else the exact sum rounded once to f32."""
    a_type, b_type = operand_types(types)
    measured = arch in MEASURED_ARCHES
    step = _STEPS.get((instruction, a_type, b_type)) if measured else None
    if step is not None and np.shape(a)[-1] == step.terms:
        return fused_dot(a, b, c, step, (a_type, b_type))
    if measured and instruction == "mma" and a_type in FP8_TYPES and b_type in FP8_TYPES and np.shape(a)[-1] == 32:
        return sm90_fp8_mma(a, b, c)
    with np.errstate(invalid="ignore", over="ignore"):
        products = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    return sum_rounded_once(products, np.asarray(c, np.float32))


def sum_rounded_once(terms: NDArray[np.float64], c: NDArray[np.float32]) -> NDArray[np.float32]:
    """Σ ``terms`` [..., k] + ``c`` [...], the exact sum rounded once to f32 (to nearest, ties to even); each term
    exact in float64, as products of the mma operand types are.

    The float64 sum rounds, and converting it to f32 rounds again: where the exact sum lies just past an f32
    midpoint, the float64 sum can land on the midpoint itself (1 + 2^-24 + 2^-80 → 1 + 2^-24) and the tie then
    rounds to even, the wrong way. So where the float64 sum lies within its own error bound (k + 1 float64
    roundings of the terms' magnitude) of a midpoint, that element's sum is taken exactly, in rationals, and
    rounded by comparing it with its two f32 neighbours: rare, so the rest stays vectorised."""
    terms = np.asarray(terms, np.float64)
    c64 = np.asarray(c, np.float32).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        total = terms.sum(axis=-1) + c64
        rounded = total.astype(np.float32)
        toward = np.nextafter(rounded, np.where(total >= rounded, np.float32(np.inf), np.float32(-np.inf)))
        midpoint = (rounded.astype(np.float64) + toward.astype(np.float64)) / 2  # exact: f32 values in float64
        bound = (terms.shape[-1] + 1) * 2.0**-52 * (np.abs(terms).sum(axis=-1) + np.abs(c64))
        near = np.isfinite(total) & np.isfinite(midpoint) & (np.abs(total - midpoint) <= bound)
    if not near.any():
        return rounded
    rounded = np.array(rounded, np.float32)  # a 0-d result is writable too
    flat_terms, flat_c = terms.reshape(-1, terms.shape[-1]), c64.reshape(-1)
    out = rounded.reshape(-1)
    for i in np.flatnonzero(near.reshape(-1)):
        exact = sum((Fraction(float(t)) for t in flat_terms[i]), Fraction(float(flat_c[i])))
        out[i] = _nearest_f32(exact, out[i])
    return out.reshape(rounded.shape)


def _nearest_f32(exact: Fraction, guess: np.float32) -> np.float32:
    """The f32 nearest ``exact`` (ties to the even significand), among ``guess`` and its neighbours."""
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    finite = [x for x in candidates if np.isfinite(x)]
    best = min(finite, key=lambda x: (abs(Fraction(float(x)) - exact), int(np.float32(x).view(np.uint32)) & 1))
    return np.float32(best)


__all__ = ["BF16_STEP", "FP8_TYPES", "FP8_WGMMA_STEP", "MEASURED_ARCHES", "NUMERICS_FORMAT", "FusedDot", "OperandTypes",
           "fused_dot", "operand_types", "sm90_fp8_mma", "smallest_exponent", "sum_rounded_once", "tensor_core_dot"]
