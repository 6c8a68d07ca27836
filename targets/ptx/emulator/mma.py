"""``mma.sync`` as the PTX ISA defines it, independent of qdot's layout functions.

Sources: PTX ISA 9.0 §9.7.14.5.8–.14 and §9.7.14.3, as summarised in
shared/reference/ptx.md §3 (fragments) and §4 (block scaling). Lane ``T``,
``g = T >> 2``, ``t = T & 3``:

* A, 16-bit (m16n8k16): reg r half h -> row ``g + 8(r&1)``, k ``2t + h + 8(r>>1)``.
* A, 8-bit containers (m16n8k32): reg r byte s -> row ``g + 8(r&1)``, k ``4t + s + 16(r>>1)``;
  (m16n8k16): reg r byte s -> row ``g + 8r``, k ``4t + s``.
* A, packed 4-bit (m16n8k64): reg r nibble s -> row ``g + 8(r&1)``, k ``8t + s + 32(r>>1)``.
* B, 16-bit: reg r half h -> k ``2t + 8r + h``; 8-bit: k ``4t + s + 16r``; 4-bit: k ``8t + s + 32r``;
  column ``g`` always.
* C/D: reg i -> row ``g + 8(i>>1)``, column ``2t + (i&1)`` (f16: register i>>1, half i&1).

Containers (§3.3): e4m3/e5m2/s8/u8 use the whole byte; under kind::f8f6f4 /
kind::mxf8f6f4 an e3m2/e2m3 value sits in bits [5:0] and an e2m1 value in bits [5:2],
the other bits must be zero (a set padding bit is reported: the hardware's behaviour
is not defined there, so a kernel must not depend on it).

Block scaling (§4.3): thread-id-a picks lanes ``4g + 2·tid_a`` (row g) and
``4g + 2·tid_a + 1`` (row g + 8); thread-id-b picks lane ``4g + tid_b`` for column g;
byte-id picks the first scale byte, and the X scale bytes of a register are the
K-chunks in order. The scale for K-chunk j multiplies ``K/X`` consecutive k.

Arithmetic: integer results are exact (int64, wrapping to s32 or saturating). A bf16, f16,
e4m3 or e5m2 mma with f32 C and D follows the H200's tensor cores bit for bit when the launch's
arch is sm_90 / sm_90a (``compiler.numerics.tensor_core``: a fused sum that aligns the terms
and truncates them, rounding toward zero; the fp8 forms as the two f16 HMMA ptxas makes of
them there); every other float form — f16 results, the kind:: and block-scaled forms of
sm_120, other arches — is the exact sum rounded once to f32 (``numerics.tensor_core.sum_rounded_once``),
or for f16 results the float64 sum rounded to f16, a model that can differ from the hardware in
the last bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler import numerics
from compiler.numerics.tensor_core import sum_rounded_once, tensor_core_dot
from dialects.ptx.attrs import MmaKind, MmaShape, MmaType, ScaleType, ScaleVec
from dialects.ptx.mma import MmaSignature
from targets.ptx.emulator.errors import EmulationError

T = MmaType
_K = {MmaShape.M16N8K16: 16, MmaShape.M16N8K32: 32, MmaShape.M16N8K64: 64}


@dataclass(frozen=True)
class Fragment:
    """Where every slot of every register of every lane goes: [regs, 32, slots] rows and cols."""

    bits: int
    rows: np.ndarray
    cols: np.ndarray


def element_bits(sig: MmaSignature, type_: MmaType) -> int:
    if type_ in (T.BF16, T.F16):
        return 16
    if sig.shape is MmaShape.M16N8K64:
        return 4
    return 8


def a_position(bits: int, k: int, reg: int, lane: int, slot: int) -> tuple[int, int]:
    g, t = lane >> 2, lane & 3
    if bits == 16:
        return g + 8 * (reg & 1), 2 * t + slot + 8 * (reg >> 1)
    if bits == 8 and k == 16:
        return g + 8 * reg, 4 * t + slot
    if bits == 8:
        return g + 8 * (reg & 1), 4 * t + slot + 16 * (reg >> 1)
    return g + 8 * (reg & 1), 8 * t + slot + 32 * (reg >> 1)


def b_position(bits: int, k: int, reg: int, lane: int, slot: int) -> tuple[int, int]:
    g, t = lane >> 2, lane & 3
    if bits == 16:
        return 2 * t + 8 * reg + slot, g
    if bits == 8:
        return 4 * t + slot + 16 * reg, g
    return 8 * t + slot + 32 * reg, g


def c_position(reg: int, lane: int) -> tuple[int, int]:
    g, t = lane >> 2, lane & 3
    return g + 8 * (reg >> 1), 2 * t + (reg & 1)


def fragment(operand: str, bits: int, k: int) -> Fragment:
    """The A ([16, k]) or B ([k, 8]) fragment map for elements of `bits` bits."""
    slots = 32 // bits
    regs = (16 * k * bits // 32) // 32 if operand == "A" else (k * 8 * bits // 32) // 32
    position = a_position if operand == "A" else b_position
    rows = np.zeros((regs, 32, slots), dtype=np.int64)
    cols = np.zeros((regs, 32, slots), dtype=np.int64)
    for reg in range(regs):
        for lane in range(32):
            for slot in range(slots):
                rows[reg, lane, slot], cols[reg, lane, slot] = position(bits, k, reg, lane, slot)
    return Fragment(bits, rows, cols)


def _slots(regs: np.ndarray, bits: int) -> np.ndarray:
    """[regs, warps, 32] uint32 -> [regs, warps, 32, 32/bits] slot codes, lowest bits first."""
    shifts = np.arange(0, 32, bits, dtype=np.uint32)
    return (regs[..., None] >> shifts) & np.uint32((1 << bits) - 1)


def _assemble(regs: np.ndarray, frag: Fragment, shape: tuple[int, int]) -> np.ndarray:
    """Codes of the whole [warps, *shape] matrix from the lanes' registers."""
    codes = _slots(regs, frag.bits)  # [regs, warps, 32, slots]
    warps = regs.shape[1]
    out = np.zeros((warps, *shape), dtype=np.uint32)
    out[:, frag.rows, frag.cols] = codes.swapaxes(0, 1)
    return out


def _container(kind: MmaKind | None, type_: MmaType) -> tuple[int, int]:
    """(shift, mask of the value bits) of an element inside its 8-bit slot."""
    if kind in (MmaKind.F8F6F4, MmaKind.MXF8F6F4):
        if type_ is T.E2M1:
            return 2, 0xF
        if type_ in (T.E2M3, T.E3M2):
            return 0, 0x3F
    return 0, 0xFF


def _values(codes: np.ndarray, sig: MmaSignature, type_: MmaType, bits: int, side: str) -> np.ndarray:
    """float64 (int64 for integers) values of element codes of `type_`."""
    if type_ in (T.S8, T.U8, T.S4, T.U4):
        signed = type_ in (T.S8, T.S4)
        wide = codes.astype(np.int64)
        if signed:
            wide = np.where(wide >= 1 << (bits - 1), wide - (1 << bits), wide)
        return wide
    if type_ is T.BF16:
        return (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if type_ is T.F16:
        return codes.astype(np.uint16).view(np.float16).astype(np.float64)
    if bits == 4:
        return numerics.decode("e2m1", codes)
    shift, mask = _container(sig.kind, type_)
    padding = codes & ~np.uint32(mask << shift) & np.uint32(0xFF)
    if padding.any():
        w, i, j = (int(x) for x in np.argwhere(padding)[0])
        raise EmulationError(f"{side} element ({i}, {j}) of warp {w} is {int(codes[w, i, j]):#04x}: a {type_} "
                             f"container under kind::{sig.kind} keeps bits outside {mask << shift:#04x} zero")
    return numerics.decode(type_.value, (codes >> np.uint32(shift)) & np.uint32(mask))


def _uniform(values: np.ndarray, what: str) -> np.ndarray:
    """[warps, 32] selector -> [warps] (it must be the same in every lane of a warp)."""
    if (values != values[:, :1]).any():
        w = int(np.flatnonzero((values != values[:, :1]).any(axis=1))[0])
        raise EmulationError(f"{what} differs between the lanes of warp {w}: {sorted(set(values[w].tolist()))}")
    return values[:, 0].astype(np.int64)


def _scale_values(data: np.ndarray, byte_id: np.ndarray, thread_id: np.ndarray, sig: MmaSignature,
                  side: str) -> np.ndarray:
    """[warps, 16 rows] (A) or [warps, 8 columns] (B) x chunks: decoded scale factors."""
    chunks = {ScaleVec.X1: 1, ScaleVec.X2: 2, ScaleVec.X4: 4}[sig.scale_vec]
    byte = _uniform(byte_id, f"byte-id-{side.lower()}")
    thread = _uniform(thread_id, f"thread-id-{side.lower()}")
    legal_bytes = {1: (0, 1, 2, 3), 2: (0, 2), 4: (0,)}[chunks]
    legal_threads = (0, 1) if side == "A" else (0, 1, 2, 3)
    for name, got, legal in (("byte-id", byte, legal_bytes), ("thread-id", thread, legal_threads)):
        bad = ~np.isin(got, legal)
        if bad.any():
            raise EmulationError(f"{name}-{side.lower()} {int(got[bad][0])} is out of range for "
                                 f"scale_vec::{sig.scale_vec} (legal: {list(legal)})")
    if side == "A":
        m = np.arange(16)
        lanes = 4 * (m & 7)[None, :] + 2 * thread[:, None] + (m >> 3)[None, :]
    else:
        n = np.arange(8)
        lanes = 4 * n[None, :] + thread[:, None]
    regs = np.take_along_axis(data, lanes, axis=1)  # [warps, rows]
    shifts = 8 * (byte[:, None, None] + np.arange(chunks)[None, None, :])
    codes = (regs[..., None].astype(np.int64) >> shifts) & 0xFF
    if sig.scale_type is ScaleType.UE4M3:
        if (codes & 0x80).any():
            raise EmulationError(f"scale-{side.lower()} ue4m3 byte {int(codes[(codes & 0x80) != 0][0]):#04x} "
                                 f"has its MSB set (ue4m3 is 7 bits)")
        return numerics.decode("ue4m3", codes)
    return numerics.decode("ue8m0", codes)


@dataclass(frozen=True)
class MmaPlan:
    """An mma signature with its fragment maps, built once per op."""

    sig: MmaSignature
    a: Fragment
    b: Fragment
    k: int
    c_rows: np.ndarray
    """[4 registers, 32 lanes] row of each C/D element (c_cols: its column)."""
    c_cols: np.ndarray

    @staticmethod
    def build(sig: MmaSignature) -> MmaPlan:
        k = _K[sig.shape]
        cpos = np.array([[c_position(i, lane) for lane in range(32)] for i in range(4)])
        return MmaPlan(sig, fragment("A", element_bits(sig, sig.a_type), k),
                       fragment("B", element_bits(sig, sig.b_type), k), k, cpos[..., 0], cpos[..., 1])


_TENSOR_CORE_TYPES = frozenset({T.BF16, T.F16, T.E4M3, T.E5M2})
"""Operand types whose f32 mma follows ``compiler.numerics.tensor_core`` (no kind::, no block
scale; which pairs it has measured, it decides)."""


def mma(plan: MmaPlan, a: np.ndarray, b: np.ndarray, c: np.ndarray,
        scale_a: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
        scale_b: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, arch: str = "sm_90") -> np.ndarray:
    """D of every warp.

    a, b: [regs, warps, 32] uint32. c: [regs, warps, 32] uint32 (s32), float32 (f32) or
    [regs, warps, 32, 2] float16 (f16x2). scale_*: (data uint32, byte-id, thread-id), each
    [warps, 32]. Returns D in the layout of C. ``arch``: whose tensor-core arithmetic a float
    mma follows (the module docstring).
    """
    sig, k = plan.sig, plan.k
    warps = a.shape[1]
    av = _values(_assemble(a, plan.a, (16, k)), sig, sig.a_type, plan.a.bits, "A")
    bv = _values(_assemble(b, plan.b, (k, 8)), sig, sig.b_type, plan.b.bits, "B")
    if scale_a is not None and scale_b is not None:
        sa = _scale_values(*scale_a, sig, "A")  # [warps, 16, chunks]
        sb = _scale_values(*scale_b, sig, "B")  # [warps, 8, chunks]
        chunk = k // sa.shape[2]
        kk = np.arange(k) // chunk
        av = av * sa[:, :, kk]
        bv = bv * sb[:, :, kk].swapaxes(1, 2)
    rows, cols = plan.c_rows, plan.c_cols
    if sig.d_type is T.S32:
        acc = np.einsum("wmk,wkn->wmn", av, bv)
        cm = np.zeros((warps, 16, 8), dtype=np.int64)
        cm[:, rows, cols] = c.view(np.int32).astype(np.int64).swapaxes(0, 1)
        d = acc + cm
        if sig.satfinite:
            d = np.clip(d, -(1 << 31), (1 << 31) - 1)
        out = (d & 0xFFFFFFFF).astype(np.uint32)
        return out[:, rows, cols].swapaxes(0, 1)
    measured = (scale_a is None and sig.kind is None and sig.a_type in _TENSOR_CORE_TYPES
                and sig.b_type in _TENSOR_CORE_TYPES and sig.c_type is T.F32 and sig.d_type is T.F32)
    if measured:  # per element: its row of A, its column of B, its C
        row_a = av[:, rows, :].astype(np.float64)  # [warps, 4, 32, k]
        col_b = bv.swapaxes(1, 2)[:, cols, :].astype(np.float64)
        d = tensor_core_dot("mma", (sig.a_type.value, sig.b_type.value), row_a, col_b,
                            c.astype(np.float32).swapaxes(0, 1), arch)
        return d.swapaxes(0, 1).astype(np.float32)
    if sig.d_type is T.F32 and sig.c_type is T.F32:  # per element, the exact sum rounded once (not twice)
        with np.errstate(invalid="ignore", over="ignore"):
            terms = av[:, rows, :].astype(np.float64) * bv.swapaxes(1, 2)[:, cols, :].astype(np.float64)
        return sum_rounded_once(terms, c.astype(np.float32).swapaxes(0, 1)).swapaxes(0, 1).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        acc = np.matmul(av.astype(np.float64), bv.astype(np.float64))
        cm = np.zeros((warps, 16, 8), dtype=np.float64)
        cvals = c.transpose(0, 3, 1, 2).reshape(4, warps, 32) if sig.c_type is T.F16 else c
        cm[:, rows, cols] = cvals.astype(np.float64).swapaxes(0, 1)
        d = acc + cm
        picked = d[:, rows, cols].swapaxes(0, 1)  # [4, warps, 32]
        if sig.d_type is T.F16:
            return picked.astype(np.float16).reshape(2, 2, warps, 32).transpose(0, 2, 3, 1)
        return picked.astype(np.float32)
