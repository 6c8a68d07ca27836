"""Operands and kernels for measuring floating-point mma.sync / wgmma (no xDSL here).

Shared by tests/gpu/test_tensor_core_gpu.py, which holds the H200 to
``compiler.numerics.tensor_core`` bit for bit on fresh operands, and
bench/experiments/tensor_core_probe.py, which collected the data the model was fitted to. The
operand distributions are chosen so that the parts of the arithmetic show: values near 1
(nothing to align), exponents spread over ±8 and ±24 (alignment inside one instruction), the
bottom of each format's range with subnormals (their exponent), and C far above, far below or
equal to zero.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from compiler.numerics.tensor_core import FP8_TYPES
from tests.kernel_ir import KernelText
from tests.wgmma_kernels import SW128, Case, Spec, byte_address, element_bytes, k_per_step


class MmaForm(NamedTuple):
    shape: str
    a_type: str
    b_type: str
    k: int

    @property
    def types(self) -> str:
        """The PTX type suffix of the instruction (D, A, B, C)."""
        return f"f32.{self.a_type}.{self.b_type}.f32"

    @property
    def operand_types(self) -> tuple[str, str]:
        return (self.a_type, self.b_type)


MMA_FORMS = {
    "mma_bf16": MmaForm("m16n8k16", "bf16", "bf16", 16),
    "mma_f16": MmaForm("m16n8k16", "f16", "f16", 16),
    "mma_e4m3": MmaForm("m16n8k32", "e4m3", "e4m3", 32),
    "mma_e5m2": MmaForm("m16n8k32", "e5m2", "e5m2", 32),
    "mma_e4m3_e5m2": MmaForm("m16n8k32", "e4m3", "e5m2", 32),
    "mma_e5m2_e4m3": MmaForm("m16n8k32", "e5m2", "e4m3", 32),
}
"""The floating-point mma.sync forms measured, by name: ``mma_<A type>[_<B type>]``."""
WGMMA_FORMS = {f"wgmma_{name}": Spec(64, SW128, SW128, type_=a, b_type=None if b == a else b, b_start=8192,
                                    shared_bytes=16384)
               for name, a, b in (("bf16", "bf16", "bf16"), ("f16", "f16", "f16"), ("e4m3", "e4m3", "e4m3"),
                                  ("e5m2", "e5m2", "e5m2"), ("e4m3_e5m2", "e4m3", "e5m2"),
                                  ("e5m2_e4m3", "e5m2", "e4m3"))}
"""The floating-point wgmma forms measured (one m64n64k16 / k32 step of tests/wgmma_kernels.py's
kernels, both operands 128-byte swizzled), by name: ``wgmma_<A type>[_<B type>]``."""
OPERANDS = ("near1", "spread", "wide", "low", "subnormal-top")
"""|x| in [1/2, 2); exponents over ±8 (fp8: the format's range); over ±24 (fp8: every finite
code); the bottom of the range, subnormals included (bf16: A there and B at the top, so that the
products stay in f32's range); and a subnormal that sets the alignment: at k = 0 a subnormal A
times a B near the top of the range, the largest product of the row, over products of the other
k 2^2 to 2^12 below it (A in [2^-4, 2^1), B in [2^-6, 2^-1)) — where a subnormal's exponent
decides which of their bits are kept."""
ACCUMULATORS = ("normal", "big", "tiny", "zero", "spread")
"""C: N(0, 1); N(0, 1) · 2^12; N(0, 1) · 2^-12; +0; ± (1 + U) · 2^U(-20, 20)."""

def _fp8_codes(rng: np.random.Generator, shape: tuple[int, ...], type_: str, dist: str) -> np.ndarray:
    from compiler.numerics.formats import format_info

    coding = format_info(type_).coding
    assert coding is not None
    mant, bias = coding.mantissa_bits, coding.bias
    top = coding.max_exponent_field  # the all-ones exponent: e5m2 inf / NaN, e4m3 NaN at mantissa 7
    sign = rng.integers(0, 2, size=shape) << (coding.bits - 1)
    frac = rng.integers(0, 1 << mant, size=shape)
    low, high = {"near1": (bias - 1, bias + 1), "spread": (max(bias - 8, 0), min(bias + 8, top)),
                 "wide": (0, top), "low": (0, 3)}[dist]
    if type_ == "e4m3" and dist == "wide":
        high = top + 1  # e4m3 uses exponent 15 too, all but its NaN code
    exp = rng.integers(low, high, size=shape)
    codes = (sign | (exp << mant) | frac).astype(np.uint8)
    if type_ == "e4m3":
        codes = np.where((codes & 0x7F) == 0x7F, np.uint8(0x7E) | (codes & 0x80), codes)
    return codes


def _values(rng: np.random.Generator, shape: tuple[int, ...], low: int, high: int) -> np.ndarray:
    sign = np.where(rng.integers(0, 2, size=shape) == 1, -1.0, 1.0)
    return sign * (1.0 + rng.random(shape)) * np.exp2(rng.integers(low, high + 1, size=shape))


def operand(rng: np.random.Generator, shape: tuple[int, ...], type_: str, dist: str,
            side: str = "A") -> tuple[np.ndarray, np.ndarray]:
    """(codes, float64 values) of a ``type_`` operand drawn from ``dist`` (``OPERANDS``)."""
    from compiler import numerics

    if dist == "subnormal-top":
        return _subnormal_top(rng, shape, type_, side)
    if type_ in FP8_TYPES:
        codes = _fp8_codes(rng, shape, type_, dist)
        return codes, numerics.decode(type_, codes)
    if dist == "near1":
        x = _values(rng, shape, -1, -1) * 2.0 ** rng.integers(0, 2, size=shape)
    elif dist == "low":
        if type_ == "f16":
            x = _values(rng, shape, -25, -13)
        else:
            x = _values(rng, shape, -134, -121) if side == "A" else _values(rng, shape, 110, 124)
    else:
        span = {"spread": 8, "wide": 24}[dist]
        x = _values(rng, shape, -span, span)
    if type_ == "bf16":
        codes = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return codes, (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    codes = np.clip(x, -60000.0, 60000.0).astype(np.float16).view(np.uint16)
    return codes, codes.view(np.float16).astype(np.float64)


def _subnormal_top(rng: np.random.Generator, shape: tuple[int, ...], type_: str,
                   side: str) -> tuple[np.ndarray, np.ndarray]:
    """``subnormal-top`` (``OPERANDS``): k = 0 a subnormal (A) or a value of the largest finite
    exponent (B); the other k moderate."""
    from compiler import numerics
    from compiler.numerics.tensor_core import NUMERICS_FORMAT

    fmt = NUMERICS_FORMAT[type_]
    coding = numerics.formats.format_info(fmt).coding
    assert coding is not None
    x = _values(rng, shape, -4, 0) if side == "A" else _values(rng, shape, -6, -2)
    codes = numerics.encode(fmt, x)
    rows = shape[:-1]
    sign = rng.integers(0, 2, size=rows) << (coding.bits - 1)
    if side == "A":  # exponent field 0, a nonzero mantissa
        edge = sign | rng.integers(1, 1 << coding.mantissa_bits, size=rows)
    else:
        top_e, top_m = coding.max_finite_fields()
        edge = sign | (top_e << coding.mantissa_bits) | rng.integers(0, top_m + 1, size=rows)
    codes[..., 0] = edge.astype(codes.dtype)
    return codes, numerics.decode(fmt, codes)


def accumulator(rng: np.random.Generator, shape: tuple[int, ...], dist: str) -> np.ndarray:
    """C drawn from ``dist`` (``ACCUMULATORS``), f32."""
    if dist == "zero":
        return np.zeros(shape, np.float32)
    if dist == "spread":
        return _values(rng, shape, -20, 20).astype(np.float32)
    scale = {"normal": 1.0, "big": 2.0 ** 12, "tiny": 2.0 ** -12}[dist]
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# mma.sync: one warp (CTA) per case, lane T's registers as 16 consecutive bytes of A, 8 of B and
# 16 of C, packed here with the fragment layouts of the PTX ISA §9.7.14.5.8 (g = T >> 2, t = T & 3)


def mma_kernel(form: MmaForm) -> KernelText:
    k = KernelText(["a", "b", "c", "out"], name="tensor_core_mma")
    a_regs = [k.load("a", k.binop("addi", k.per_thread(16), 4 * r)) for r in range(4)]
    b_regs = [k.load("b", k.binop("addi", k.per_thread(8), 4 * r)) for r in range(2)]
    c_regs = [k.load("c", k.binop("addi", k.per_thread(16), 4 * r), "f32") for r in range(4)]
    d = k.op(f"ptx.mma_sync {form.shape} {form.types} A[{', '.join(a_regs)}] B[{', '.join(b_regs)}] "
             f"C[{', '.join(c_regs)}]", results=4)
    for i in range(4):
        k.store("out", k.binop("addi", k.per_thread(16), 4 * i), f"{d}#{i}", "f32")
    return k


def _fragment_index(side: str, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """[lane, register, slot] → (row of A or column of B, k)."""
    lane = np.arange(32)[:, None, None]
    g, t = lane >> 2, lane & 3
    regs = 4 if side == "A" else 2
    r = np.arange(regs)[None, :, None]
    s = np.arange(32 // bits)[None, None, :]
    if side == "A":
        row = g + 8 * (r & 1)
        k = (2 * t + s + 8 * (r >> 1)) if bits == 16 else (4 * t + s + 16 * (r >> 1))
    else:
        row = g + 0 * r
        k = (2 * t + 8 * r + s) if bits == 16 else (4 * t + s + 16 * r)
    shape = (32, regs, 32 // bits)
    return np.broadcast_to(row, shape), np.broadcast_to(k, shape)


def pack(codes: np.ndarray, side: str) -> np.ndarray:
    """Codes [cases, 16, k] of A or [cases, 8, k] of B^T → registers [cases, 32 lanes, regs] uint32."""
    bits = 8 * codes.dtype.itemsize
    rows, ks = _fragment_index(side, bits)
    picked = codes[:, rows, ks].astype(np.uint32)
    shifts = (bits * np.arange(picked.shape[-1])).astype(np.uint32)
    return np.ascontiguousarray(np.bitwise_or.reduce(picked << shifts, axis=-1).astype(np.uint32))


def c_index() -> tuple[np.ndarray, np.ndarray]:
    """[lane, register] → (row, column) of a C / D element."""
    lane = np.arange(32)[:, None]
    i = np.arange(4)[None, :]
    return (lane >> 2) + 8 * (i >> 1), 2 * (lane & 3) + (i & 1)


def mma_inputs(rng: np.random.Generator, name: str, cases: int, op_dist: str, acc_dist: str) -> dict[str, np.ndarray]:
    """Operands of ``cases`` mma.sync of form ``name``: values (a [cases, 16, k], b as B^T [cases, 8, k],
    c [cases, 16, 8]) and the registers the kernel loads (a_regs, b_regs, c_regs)."""
    form = MMA_FORMS[name]
    a_codes, a = operand(rng, (cases, 16, form.k), form.a_type, op_dist, "A")
    b_codes, b = operand(rng, (cases, 8, form.k), form.b_type, op_dist, "B")
    c = accumulator(rng, (cases, 16, 8), acc_dist)
    rows, cols = c_index()
    return {"a": a, "b": b, "c": c, "a_regs": pack(a_codes, "A"), "b_regs": pack(b_codes, "B"),
            "c_regs": np.ascontiguousarray(c[:, rows, cols])}


def unpack_d(d_regs: np.ndarray) -> np.ndarray:
    """D registers [cases, 32, 4] → [cases, 16, 8]."""
    rows, cols = c_index()
    d = np.full((d_regs.shape[0], 16, 8), np.nan, np.float32)
    d[:, rows, cols] = d_regs
    return d


# ---------------------------------------------------------------------------------------------
# wgmma: tests/wgmma_kernels.py's kernels (one wgmma per launch) on these distributions


def wgmma_case(spec: Spec, rng: np.random.Generator, op_dist: str, acc_dist: str) -> Case:
    """A ``tests.wgmma_kernels.Case`` of one k step of ``spec`` (one warpgroup) with operands from
    ``op_dist`` and C from ``acc_dist``."""
    k, width = k_per_step(spec), element_bytes(spec.type_)
    image = np.zeros(spec.shared_bytes, np.uint8)
    values = []
    for side, type_, start, rows, layout in (("A", spec.type_, spec.a_start, 64, spec.layout_a),
                                             ("B", spec.rhs_type, spec.b_start, spec.n, spec.layout_b)):
        codes, vals = operand(rng, (rows, k), type_, op_dist, side)
        where = np.array([[byte_address(start, r, kb, layout) for kb in range(k * width)] for r in range(rows)])
        image[where] = np.ascontiguousarray(codes).view(np.uint8).reshape(rows, k * width)
        values.append(vals)
    return Case(image, [values[0]], values[1], accumulator(rng, (64, spec.n), acc_dist))
