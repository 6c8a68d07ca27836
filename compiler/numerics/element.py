"""Small-float codes <-> float64, computed from the bit fields (not from ml_dtypes).

``decode`` and ``encode`` work for every format of ``formats.FORMATS`` that has an
``ElementCoding``: e2m1, e2m3, e3m2, e4m3 (e4m3fn), e5m2, ue8m0, ue4m3, and bf16/fp16
(16-bit codes as uint16). The field rules are PTX ISA 9.0 §5.2.3 and the OCP MX v1.0
spec; the value tables are in ``shared/reference/ptx.md`` §7. ml_dtypes is used only
by the tests, as an independent oracle.

Encoding rules (``encode``):

* Round to nearest, ties to even, in one step from the float64 input (float32,
  float16 and bfloat16 inputs convert to float64 exactly, so there is no double rounding).
* ``saturate=True`` (the default): a finite magnitude that rounds past the largest
  finite value becomes ±max finite; ±Inf becomes ±max finite in formats without Inf
  (e2m1, e2m3, e3m2, e4m3, ue4m3, ue8m0) and stays ±Inf in formats with Inf
  (e5m2, bf16, fp16). This is PTX ``cvt.rn.satfinite`` (ISA §9.7.9.21) except for Inf
  in e5m2, which ``.satfinite`` would also clamp.
* ``saturate=False``: IEEE overflow: to ±Inf where the format has Inf, to NaN in
  e4m3 (as ml_dtypes' float8_e4m3fn does: 464 -> 448, 480 -> NaN), and to ±max finite
  in formats with neither (the only representable choice).
* NaN becomes the format's NaN code, keeping the sign bit in signed formats (e4m3
  0x7F/0xFF, e5m2 0x7E/0xFE, fp16 0x7E00, bf16 0x7FC0, ue4m3 0x7F, ue8m0 0xFF). Formats
  without NaN (e2m1, e2m3, e3m2) map NaN to **+max finite** (e2m1 0x7, fp6 0x1F), as
  PTX ``cvt.rn.satfinite.{e2m1x2,e2m3x2,e3m2x2}.f32`` does. ml_dtypes differs here:
  it gives a zero code for NaN (e2m1: NaN -> 0x8).
* Negative zero and negative values that round to zero keep the sign bit (-0).
* Unsigned formats (ue8m0, ue4m3): every x <= 0, -0 and -Inf included, encodes to
  code 0, the smallest value (0 for ue4m3, 2^-127 for ue8m0): it is the nearest
  representable value, and it matches ggml's ``compute_e8m0_scale`` treating
  ``!(amax > 0)`` as code 0. ml_dtypes gives NaN for 0 and negatives in e8m0.
* ue8m0 (no mantissa): x in (2^k, 2^(k+1)) goes to the nearer power in the *linear*
  sense, and the tie 1.5 * 2^k goes **up** to 2^(k+1): round-to-nearest-even on a
  zero-bit significand (1.5 rounds to 2, since the significand 1 is odd). This is
  what ml_dtypes does for normal float32 inputs (0.75 -> 1, 3 -> 4). Positive values
  below 2^-127 go to code 0, values from 1.5 * 2^127 up saturate to code 254 (2^127).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from compiler.numerics.arrays import as_array, check_axis
from compiler.numerics.flags import require_bool
from compiler.numerics.formats import ElementCoding, NanRule, float_format


def _code_dtype(bits: int) -> type[np.unsignedinteger]:
    return np.uint8 if bits <= 8 else np.uint16


def _check_codes(name: str, bits: int, codes: ArrayLike) -> NDArray[np.int64]:
    arr = as_array(codes, f"{name} codes")
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{name} codes must be an integer array (one code per element), got dtype {arr.dtype}")
    wide = arr.astype(np.int64, copy=False)
    limit = 1 << bits
    if wide.size:
        bad = (wide < 0) | (wide >= limit)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            rule = "the MSB must be 0" if name == "ue4m3" else f"codes are {bits} bits wide"
            raise ValueError(
                f"{name} code {int(wide[index]):#x} at index {index} is out of range 0..{limit - 1:#x} ({rule})"
            )
    return wide


def decode_fields(coding: ElementCoding, codes: NDArray[np.int64]) -> NDArray[np.float64]:
    """float64 values of in-range ``codes`` under ``coding`` (no range check)."""
    m_bits = coding.mantissa_bits
    mant = codes & ((1 << m_bits) - 1)
    exp = (codes >> m_bits) & coding.max_exponent_field
    normal = exp > 0 if coding.subnormals else np.ones(codes.shape, dtype=bool)
    significand = np.where(normal, mant + (1 << m_bits), mant).astype(np.float64)
    exponent = np.where(normal, exp, 1) - coding.bias - m_bits
    value = np.ldexp(significand, exponent.astype(np.int32))
    top = exp == coding.max_exponent_field
    if coding.has_inf:
        value = np.where(top & (mant == 0), np.inf, value)
    if coding.nan is NanRule.IEEE:
        value = np.where(top & (mant != 0), np.nan, value)
    elif coding.nan is NanRule.ALL_ONES:
        value = np.where(top & (mant == (1 << m_bits) - 1), np.nan, value)
    if coding.signed:
        negative = ((codes >> (coding.exponent_bits + m_bits)) & 1).astype(bool)
        value = np.where(negative, -value, value)
    return value


def decode(fmt: str, codes: ArrayLike) -> NDArray[np.float64]:
    """Values of ``codes`` (one code per array element, unpacked) as float64.

    Codes outside the format's width (an e2m1 code above 0xF, an fp6 code above 0x3F,
    a ue4m3 code with the MSB set) raise ``ValueError``.
    """
    info = float_format(fmt)
    assert info.coding is not None
    wide = _check_codes(info.name, info.bits, codes)
    if info.bits <= 8:
        # A 2^bits table is cheaper than the field arithmetic on large arrays.
        table = decode_fields(info.coding, np.arange(1 << info.bits, dtype=np.int64))
        return table[wide]
    return decode_fields(info.coding, wide)


def _round_magnitude(coding: ElementCoding, mag: NDArray[np.float64]) -> NDArray[np.float64]:
    """Round finite non-negative ``mag`` to the format's grid, exponent unbounded above.

    The grid spacing in binade [2^E, 2^(E+1)) is 2^(E - mantissa_bits); below the
    smallest normal it stays 2^(1 - bias - mantissa_bits) when the format has
    subnormals. ``np.rint`` rounds half to even; scaling by powers of two is exact.
    """
    _, e2 = np.frexp(mag)
    exponent = e2.astype(np.int64) - 1  # floor(log2 mag) for mag > 0
    if coding.subnormals:
        exponent = np.maximum(exponent, 1 - coding.bias)
    quantum = (exponent - coding.mantissa_bits).astype(np.int32)
    return np.ldexp(np.rint(np.ldexp(mag, -quantum)), quantum)


def _fields_of(coding: ElementCoding, mag: NDArray[np.float64]) -> NDArray[np.int64]:
    """Code (without sign) of representable non-negative magnitudes ``mag``."""
    m_bits = coding.mantissa_bits
    min_normal_exp = 1 - coding.bias
    _, e2 = np.frexp(mag)
    exponent = e2.astype(np.int64) - 1
    normal = mag >= np.ldexp(1.0, min_normal_exp) if coding.subnormals else mag > 0
    exponent = np.where(normal, exponent, min_normal_exp)
    scaled = np.ldexp(mag, (m_bits - exponent).astype(np.int32))  # exact integer
    mant = scaled.astype(np.int64) - np.where(normal, 1 << m_bits, 0)
    exp_field = np.where(normal, exponent + coding.bias, 0)
    return (exp_field << m_bits) | mant


def encode(fmt: str, x: ArrayLike, *, saturate: bool = True) -> NDArray[np.unsignedinteger]:
    """Codes of ``x`` (uint8, or uint16 for bf16/fp16); rules in the module docstring."""
    saturate = require_bool("saturate", saturate)
    info = float_format(fmt)
    coding = info.coding
    assert coding is not None
    values = as_array(x, f"encode({fmt!r})'s values")
    if values.dtype.kind not in "fiuV":  # "V": ml_dtypes' bfloat16 / float8 arrays
        raise ValueError(f"encode({fmt!r}) needs a real numeric array, got dtype {values.dtype}")
    x64 = values.astype(np.float64)
    max_finite = coding.max_finite
    with np.errstate(invalid="ignore", over="ignore"):
        nan = np.isnan(x64)
        negative = np.signbit(x64)
        mag = np.abs(np.where(nan, 0.0, x64))
        infinite = np.isinf(mag)
        rounded = _round_magnitude(coding, np.where(infinite, 0.0, mag))
    overflow = (rounded > max_finite) | infinite
    rounded = np.where(overflow, max_finite, rounded)
    if not coding.subnormals:
        rounded = np.maximum(rounded, coding.min_positive)  # ue8m0 has no zero
    if not coding.signed:
        rounded = np.where(negative, coding.min_positive if not coding.subnormals else 0.0, rounded)
    codes = _fields_of(coding, rounded)
    if coding.signed:
        codes = codes | (negative.astype(np.int64) << (coding.exponent_bits + coding.mantissa_bits))
    nan_code = coding.nan_code
    inf_code = (coding.max_exponent_field << coding.mantissa_bits) if coding.has_inf else None
    sign_bit = 1 << (coding.exponent_bits + coding.mantissa_bits)
    if inf_code is not None:
        to_inf = infinite if saturate else overflow
        to_inf = to_inf & (coding.signed | ~negative)
        codes = np.where(to_inf, inf_code | (negative.astype(np.int64) * sign_bit), codes)
    elif not saturate and nan_code is not None:
        to_nan = overflow & (coding.signed | ~negative)
        codes = np.where(to_nan, nan_code | (negative.astype(np.int64) * sign_bit), codes)
    if nan_code is None:
        codes = np.where(nan, _fields_of(coding, np.float64(max_finite)), codes)
    else:
        nan_sign = negative.astype(np.int64) * sign_bit if coding.signed else 0
        codes = np.where(nan, nan_code | nan_sign, codes)
    return codes.astype(_code_dtype(info.bits))


def _check_fp4_codes(codes: ArrayLike) -> NDArray[np.uint8]:
    arr = as_array(codes, "pack_fp4's codes")
    if arr.dtype.kind not in "ui":
        raise ValueError(f"pack_fp4 needs integer e2m1 codes, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() > 0xF):
        raise ValueError("pack_fp4 needs e2m1 codes in 0..0xF (one code per element)")
    return arr.astype(np.uint8)


def pack_fp4(codes: ArrayLike, axis: int = -1) -> NDArray[np.uint8]:
    """Two e2m1 codes per byte along ``axis``: element 2i in the low nibble, 2i+1 in the high.

    This is the IR's (and Triton's) packing of fp4 operands in ``i8`` tensors.
    """
    arr = _check_fp4_codes(codes)
    if arr.ndim == 0:
        raise ValueError("pack_fp4 needs at least one dimension")
    axis = check_axis("pack_fp4", axis, arr.ndim)
    moved = np.moveaxis(arr, axis, -1)
    if moved.shape[-1] % 2:
        raise ValueError(f"pack_fp4 needs an even extent along axis {axis}, got {moved.shape[-1]}")
    packed = moved[..., 0::2] | (moved[..., 1::2] << 4)
    return np.ascontiguousarray(np.moveaxis(packed, -1, axis))


def unpack_fp4(packed: ArrayLike, axis: int = -1) -> NDArray[np.uint8]:
    """Inverse of :func:`pack_fp4`: one e2m1 code per byte, doubling ``axis``.

    Accepts uint8 or int8 (the IR carries packed fp4 in ``i8`` tensors).
    """
    arr = as_array(packed, "unpack_fp4's packed bytes")
    if arr.dtype not in (np.dtype(np.uint8), np.dtype(np.int8)):
        raise ValueError(f"unpack_fp4 needs uint8 or int8 packed bytes, got dtype {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("unpack_fp4 needs at least one dimension")
    axis = check_axis("unpack_fp4", axis, arr.ndim)
    moved = np.moveaxis(arr.view(np.uint8), axis, -1)
    out = np.empty(moved.shape[:-1] + (2 * moved.shape[-1],), dtype=np.uint8)
    out[..., 0::2] = moved & 0xF
    out[..., 1::2] = moved >> 4
    return np.ascontiguousarray(np.moveaxis(out, -1, axis))
