"""wgmma test kernels, shared by the emulator tests and the GPU tests (no xDSL here).

Each kernel stages a byte image of shared memory built by this file with `byte_address` (the
operand layout of the PTX ISA §9.7.15.5.1.2, written out again here, not imported from the
emulator), stores it with st.shared (or cp.async), and issues wgmma whose A/B start offsets and
descriptor fields name that layout. `expected` is D as the H200 computes it: each wgmma one fused
step of `compiler.numerics.tensor_core` (measured bit for bit in run 122), s8 summed exactly into
wrapping s32 (tests/emulator/test_wgmma.py holds the emulator to it exactly;
tests/gpu/test_wgmma_forms_gpu.py holds the H200 to it exactly, on fresh operands each run).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.numerics.tensor_core import tensor_core_dot
from tests.kernel_ir import KernelText

SWIZZLE_MASK = {128: 7, 64: 3, 32: 1}
"""Chunk bits a swizzle of S bytes XORs: log2(S / 16) of them."""


@dataclass(frozen=True)
class Layout:
    swizzle: int
    lbo: int
    sbo: int

    def text(self, side: str) -> str:
        return f"desc_{side}<swizzle = {self.swizzle}, lbo = {self.lbo}, sbo = {self.sbo}>"


def byte_address(start: int, row: int, kb: int, layout: Layout) -> int:
    """Shared address of byte `kb` of row `row` of a K-major operand whose descriptor starts at `start`."""
    if layout.swizzle == 0:
        return start + (row // 8) * layout.sbo + (kb // 16) * layout.lbo + (row % 8) * 16 + kb % 16
    u = start + (row // 8) * layout.sbo + (row % 8) * layout.swizzle + kb
    return u ^ (((u >> 7) & SWIZZLE_MASK[layout.swizzle]) << 4)


EIGHT_BIT = ("e4m3", "e5m2", "s8")


def element_bytes(type_: str) -> int:
    return 1 if type_ in EIGHT_BIT else 2


def random_operand(rng: np.random.Generator, shape: tuple[int, int], type_: str) -> tuple[np.ndarray, np.ndarray]:
    """(codes, float64 values) of random bf16, f16, e4m3 / e5m2 (no NaN or infinity codes) or s8
    numbers."""
    if type_ == "s8":
        values = rng.integers(-128, 128, size=shape)
        return values.astype(np.int8).view(np.uint8), values.astype(np.float64)
    if type_ in ("e4m3", "e5m2"):  # values through compiler.numerics, the project's reference
        from compiler import numerics

        codes = rng.integers(0, 256, size=shape).astype(np.uint8)
        if type_ == "e4m3":
            codes = np.where((codes & 0x7F) == 0x7F, np.uint8(0x38), codes)  # 0x7F / 0xFF are NaN
        else:
            codes = np.where((codes & 0x7C) == 0x7C, np.uint8(0x3C), codes)  # exponent 31: inf / NaN
        return codes, numerics.decode(type_, codes)
    x = rng.standard_normal(shape)
    if type_ == "bf16":
        codes = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return codes, (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    codes = x.astype(np.float16).view(np.uint16)
    return codes, codes.view(np.float16).astype(np.float64)


def place(image: np.ndarray, used: np.ndarray, start: int, codes: np.ndarray, layout: Layout) -> None:
    """Write a [rows, K] matrix of codes (8- or 16-bit, little-endian) into `image` at its
    operand addresses."""
    rows, cols = codes.shape
    width = codes.dtype.itemsize
    for r in range(rows):
        for k in range(cols):
            for part in range(width):
                address = byte_address(start, r, width * k + part, layout)
                assert not used[address], f"layout overlaps itself at byte {address}"
                used[address] = True
                image[address] = (int(codes[r, k]) >> (8 * part)) & 0xFF


@dataclass(frozen=True)
class Spec:
    """One test kernel: shapes, where the operands live, and which protocol steps it performs."""

    n: int
    layout_a: Layout
    layout_b: Layout
    a_start: int = 0
    b_start: int = 8192
    shared_bytes: int = 16384
    groups: int = 1
    a_group_stride: int = 0
    k_steps: int = 1
    type_: str = "bf16"
    """A's type, and B's unless ``b_type`` says otherwise."""
    b_type: str | None = None
    """B's type where it differs from A's (mixed fp8: e4m3 × e5m2 or e5m2 × e4m3)."""
    fill: str = "st"  # st.shared; "pack": st.shared of four bf16x2 registers gathered by ptx.pack; "cp.async"
    proxy_fence: bool = True
    barrier: bool = True
    wgmma_fence: bool = True
    c_after_fence: bool = False
    commit: bool = True
    wait: str = "before-stores"  # "after-stores", "never"
    uniform_a: bool = True
    overwrite_pending: bool = False
    fresh: bool = False
    """The first wgmma has no C operands (D = A·B, scale-d 0); C is still loaded, and ignored."""

    @property
    def rhs_type(self) -> str:
        """B's type."""
        return self.b_type or self.type_

    @property
    def operand_types(self) -> tuple[str, str]:
        return (self.type_, self.rhs_type)


def stage(k: KernelText, spec: Spec) -> None:
    """Shared memory = the `img` argument, 16 bytes per thread per step, then fence and barrier."""
    threads = 32 * k.num_warps
    assert spec.shared_bytes % (16 * threads) == 0
    for j in range(spec.shared_bytes // (16 * threads)):
        off = k.binop("addi", k.binop("muli", k.tid, 16), 16 * threads * j)
        if spec.fill == "st":
            value = k.load("img", off, "vector<4xi32>")
            k.op(f"ptx.st_shared {off}, {value} : vector<4xi32>", results=0)
        elif spec.fill == "pack":
            words = [k.load("img", k.binop("addi", off, 4 * w), "vector<2xbf16>") for w in range(4)]
            value = k.op(f"ptx.pack {', '.join(words)} : {', '.join(['vector<2xbf16>'] * 4)} -> vector<4xi32>")
            k.op(f"ptx.st_shared {off}, {value} : vector<4xi32>", results=0)
        else:
            k.op(f"ptx.cp_async cg {off}, {k.address('img', off)}, 16", results=0)
    if spec.fill == "cp.async":
        k.op("ptx.cp_async_commit", results=0)
        k.op("ptx.cp_async_wait 0", results=0)
    if spec.proxy_fence:
        k.op("ptx.fence_proxy_async", results=0)
    if spec.barrier:
        k.op("ptx.bar_sync", results=0)


def accumulator_offsets(k: KernelText, n: int) -> list[str]:
    """Byte offset in a row-major [groups·64, n] f32 matrix of every accumulator register."""
    group = k.binop("shrui", k.warp, 2)
    warp = k.binop("andi", k.warp, 3)
    row = k.binop("addi", k.binop("addi", k.binop("muli", group, 64), k.binop("muli", warp, 16)),
                  k.binop("shrui", k.lane, 2))
    col = k.binop("muli", k.binop("andi", k.lane, 3), 2)
    base = k.binop("muli", k.binop("addi", k.binop("muli", row, n), col), 4)
    return [k.binop("addi", base, 4 * (8 * (i // 2) * n + 8 * j + i % 2)) for j in range(n // 8) for i in range(4)]


def k_per_step(spec: Spec) -> int:
    """Elements of K one wgmma reads: 32 bytes of each row."""
    return 32 // element_bytes(spec.type_)


def accumulator_type(spec: Spec) -> str:
    return "i32" if spec.type_ == "s8" else "f32"


def wgmma_text(spec: Spec, a: str, b: str, acc: list[str]) -> str:
    d = "s32" if spec.type_ == "s8" else "f32"
    types = f"{d}.{spec.type_}.{spec.rhs_type}"
    return (f"ptx.wgmma m64n{spec.n}k{k_per_step(spec)} {types} A[{a}] B[{b}] C[{', '.join(acc)}] "
            f"{spec.layout_a.text('a')} {spec.layout_b.text('b')}")


def operand_starts(k: KernelText, spec: Spec) -> tuple[str, str]:
    group = k.binop("shrui", k.warp, 2)
    a = k.binop("addi", k.binop("muli", group, spec.a_group_stride), spec.a_start)
    if not spec.uniform_a:  # threads 64.. of each warpgroup point one 8-row group further
        a = k.binop("addi", a, k.binop("muli", k.binop("shrui", k.binop("andi", k.tid, 127), 6), spec.layout_a.sbo))
    return a, k.const(spec.b_start)


def build(spec: Spec) -> KernelText:
    k = KernelText(["img", "c", "out"], num_warps=4 * spec.groups, shared_bytes=spec.shared_bytes)
    stage(k, spec)
    a, b = operand_starts(k, spec)
    offsets = accumulator_offsets(k, spec.n)
    if spec.c_after_fence:
        k.op("ptx.wgmma_fence", results=0)
    acc = [k.load("c", off, accumulator_type(spec)) for off in offsets]
    if spec.wgmma_fence and not spec.c_after_fence:
        k.op("ptx.wgmma_fence", results=0)
    for step in range(spec.k_steps):
        a_s = k.binop("addi", a, 32 * step) if step else a
        b_s = k.binop("addi", b, 32 * step) if step else b
        d = k.op(wgmma_text(spec, a_s, b_s, [] if spec.fresh and step == 0 else acc), results=spec.n // 2)
        acc = [f"{d}#{i}" for i in range(spec.n // 2)]
    if spec.commit:
        k.op("ptx.wgmma_commit", results=0)
    if spec.overwrite_pending:
        k.op(f"ptx.st_shared {k.binop('muli', k.tid, 4)}, {k.tid} : i32", results=0)
    if spec.wait == "before-stores":
        k.op("ptx.wgmma_wait 0", results=0)
    for off, value in zip(offsets, acc, strict=True):
        k.store("out", off, value, accumulator_type(spec))
    if spec.wait == "after-stores":
        k.op("ptx.wgmma_wait 0", results=0)
    return k


@dataclass(frozen=True)
class Case:
    image: np.ndarray
    a: list[np.ndarray]
    """Per warpgroup [64, k·k_steps] values."""
    b: np.ndarray
    c: np.ndarray


def make_case(spec: Spec, seed: int = 3) -> Case:
    rng = np.random.default_rng(seed)
    image = np.full(spec.shared_bytes, 0xFF, np.uint8)
    used = np.zeros(spec.shared_bytes, bool)
    kk = k_per_step(spec) * spec.k_steps
    a_values = []
    for g in range(spec.groups):
        codes, values = random_operand(rng, (64, kk), spec.type_)
        place(image, used, spec.a_start + g * spec.a_group_stride, codes, spec.layout_a)
        a_values.append(values)
    codes, b_values = random_operand(rng, (spec.n, kk), spec.rhs_type)
    place(image, used, spec.b_start, codes, spec.layout_b)
    if spec.type_ == "s8":  # near the s32 limits, so that a sum wraps
        c = rng.integers(-2**31, 2**31, size=(64 * spec.groups, spec.n)).astype(np.int32)
    else:
        c = rng.standard_normal((64 * spec.groups, spec.n)).astype(np.float32)
    return Case(image, a_values, b_values, c)


def expected(spec: Spec, case: Case) -> np.ndarray:
    """D after each k step: as the H200's tensor cores compute a wgmma (compiler.numerics.tensor_core,
    measured), or for s8 exact sums wrapping in s32."""
    out = []
    k = k_per_step(spec)
    for g in range(spec.groups):
        d = case.c[64 * g:64 * (g + 1)]
        if spec.fresh:
            d = np.zeros_like(d)
        for s in range(spec.k_steps):
            ks = slice(k * s, k * (s + 1))
            if spec.type_ == "s8":
                product = case.a[g][:, ks] @ case.b[:, ks].T
                d = (product.astype(np.int64) + d.astype(np.int64)).astype(np.uint32).view(np.int32)
            else:
                d = tensor_core_dot("wgmma", spec.operand_types, case.a[g][:, None, ks], case.b[None, :, ks], d,
                                    "sm_90a")
        out.append(d)
    return np.concatenate(out)


SW128 = Layout(128, 16, 1024)
