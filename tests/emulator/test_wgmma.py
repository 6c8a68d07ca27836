"""wgmma.mma_async (sm_90a): shared-memory layouts, accumulator fragments, and the async protocol.

Every kernel here stages a byte image of shared memory built by this file with
`byte_address` (the operand layout of the PTX ISA §9.7.15.5.1.2, written out again here,
not imported from the emulator), stores it with st.shared (or cp.async), and issues wgmma
whose A/B start offsets and descriptor fields name that layout. Bytes no operand uses
hold 0xFF, a NaN in bf16, f16 and e4m3 (in s8 a -1, which the exact comparison catches), so
an emulator reading a wrong byte produces a wrong result. C is loaded and D stored with the
accumulator map of §9.7.15.5.1.1 (register ``4j + i`` of lane l in warp w of the warpgroup:
row ``16w + l/4 + 8(i/2)``, column ``8j + 2(l%4) + i%2``), again written out here. Expected
values come from numpy in float64 with one f32 rounding per wgmma, exactly what a chain of
wgmma computes in the model; s8 operands (k32) sum exactly into s32, wrapping.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from targets.ptx.emulator import EmulationError
from tests.emulator.kernel_text import KernelText, run

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


def test_layout_formula_matches_the_published_swizzles() -> None:
    """The formula above is CUTLASS's Swizzle<3,4,3> / <2,4,3> / <1,4,3> on the K-major atoms."""
    sw128 = Layout(128, 16, 1024)
    assert [byte_address(0, r, 0, sw128) for r in range(8)] == [128 * r + 16 * r for r in range(8)]
    assert byte_address(0, 9, 32, sw128) == 1024 + 128 + (2 ^ 1) * 16
    sw64 = Layout(64, 16, 512)
    assert [byte_address(0, r, 0, sw64) // 16 % 4 for r in range(8)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [byte_address(0, r, 16, Layout(32, 16, 256)) % 32 for r in range(8)] == [16] * 4 + [0] * 4
    plain = Layout(0, 1024, 128)
    assert byte_address(0, 9, 17, plain) == 128 + 1024 + 16 + 1


EIGHT_BIT = ("e4m3", "s8")


def element_bytes(type_: str) -> int:
    return 1 if type_ in EIGHT_BIT else 2


def random_operand(rng: np.random.Generator, shape: tuple[int, int], type_: str) -> tuple[np.ndarray, np.ndarray]:
    """(codes, float64 values) of random bf16, f16, e4m3 (no NaN codes) or s8 numbers."""
    if type_ == "s8":
        values = rng.integers(-128, 128, size=shape)
        return values.astype(np.int8).view(np.uint8), values.astype(np.float64)
    if type_ == "e4m3":
        import ml_dtypes

        codes = rng.integers(0, 256, size=shape).astype(np.uint8)
        codes = np.where((codes & 0x7F) == 0x7F, np.uint8(0x38), codes)  # 0x7F / 0xFF are NaN
        return codes, codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
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
    fill: str = "st"  # st.shared; "pack": st.shared of four bf16x2 registers gathered by ptx.pack; "cp.async"
    proxy_fence: bool = True
    barrier: bool = True
    wgmma_fence: bool = True
    c_after_fence: bool = False
    commit: bool = True
    wait: str = "before-stores"  # "after-stores", "never"
    uniform_a: bool = True
    overwrite_pending: bool = False


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
    t = spec.type_
    d = "s32" if t == "s8" else "f32"
    return (f"ptx.wgmma m64n{spec.n}k{k_per_step(spec)} {d}.{t}.{t} A[{a}] B[{b}] C[{', '.join(acc)}] "
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
        d = k.op(wgmma_text(spec, a_s, b_s, acc), results=spec.n // 2)
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
    codes, b_values = random_operand(rng, (spec.n, kk), spec.type_)
    place(image, used, spec.b_start, codes, spec.layout_b)
    if spec.type_ == "s8":  # near the s32 limits, so that a sum wraps
        c = rng.integers(-2**31, 2**31, size=(64 * spec.groups, spec.n)).astype(np.int32)
    else:
        c = rng.standard_normal((64 * spec.groups, spec.n)).astype(np.float32)
    return Case(image, a_values, b_values, c)


def expected(spec: Spec, case: Case) -> np.ndarray:
    """D after each k step: f32 rounding once per wgmma, or for s8 exact sums wrapping in s32."""
    out = []
    k = k_per_step(spec)
    for g in range(spec.groups):
        d = case.c[64 * g:64 * (g + 1)]
        for s in range(spec.k_steps):
            ks = slice(k * s, k * (s + 1))
            product = case.a[g][:, ks] @ case.b[:, ks].T
            if spec.type_ == "s8":
                d = (product.astype(np.int64) + d.astype(np.int64)).astype(np.uint32).view(np.int32)
            else:
                d = (product + d.astype(np.float64)).astype(np.float32)
        out.append(d)
    return np.concatenate(out)


def emulate_spec(spec: Spec, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    case = make_case(spec, seed)
    out = np.full_like(case.c, -1) if spec.type_ == "s8" else np.full_like(case.c, np.nan)
    run(build(spec), [case.image, case.c, out])
    return out, expected(spec, case)


SW128 = Layout(128, 16, 1024)


@pytest.mark.parametrize("spec", [
    Spec(8, SW128, SW128),
    Spec(128, SW128, SW128, shared_bytes=8192 + 16384, b_start=8192, fill="pack"),
    Spec(256, SW128, SW128, shared_bytes=8192 + 32768, b_start=8192),
    Spec(64, Layout(64, 16, 512), Layout(64, 16, 512), b_start=4096, shared_bytes=8192),
    Spec(64, Layout(64, 16, 512), Layout(32, 16, 256), b_start=4096, shared_bytes=8192, type_="f16", fill="cp.async"),
    Spec(32, Layout(0, 1024, 128), Layout(0, 512, 128), b_start=2048, shared_bytes=4096),
    Spec(32, Layout(0, 1024, 128), SW128, b_start=4096, shared_bytes=8192),
    Spec(16, Layout(32, 16, 256), Layout(0, 256, 128), b_start=2048, shared_bytes=4096),
    Spec(64, SW128, SW128, groups=2, a_group_stride=8192, b_start=16384, shared_bytes=24576),
    Spec(128, SW128, SW128, k_steps=4, b_start=8192, shared_bytes=8192 + 16384),
    Spec(64, SW128, SW128, type_="e4m3", b_start=8192, shared_bytes=16384),
    Spec(32, Layout(0, 1024, 128), SW128, type_="e4m3", b_start=4096, shared_bytes=8192),
    Spec(64, SW128, SW128, type_="e4m3", k_steps=2, b_start=8192, shared_bytes=16384),
    Spec(64, SW128, Layout(64, 16, 512), type_="s8", b_start=8192, shared_bytes=16384),
    Spec(128, SW128, SW128, type_="s8", k_steps=4, b_start=8192, shared_bytes=8192 + 16384),
], ids=["n8-sw128", "n128-sw128-pack", "n256-sw128", "n64-sw64", "n64-f16-sw64-sw32-cp.async", "n32-no-swizzle",
        "n32-no-swizzle-x-sw128", "n16-sw32-x-no-swizzle", "n64-two-warpgroups", "n128-k64-chain",
        "n64-e4m3-k32", "n32-e4m3-no-swizzle-x-sw128", "n64-e4m3-k64-chain", "n64-s8-sw128-x-sw64", "n128-s8-k128-chain-wraps"])
def test_wgmma_matches_numpy(spec: Spec) -> None:
    """(A permutation of K common to A and B leaves A·B unchanged, on the GPU too; the cases that
    mix layouts are the ones that would notice two modes disagreeing about K order.)"""
    got, want = emulate_spec(spec)
    assert np.array_equal(got, want)
    assert not np.isnan(got).any()


def test_pack_gathers_registers_in_order() -> None:
    """ptx.pack (how a register tile is staged for st.shared) puts part j in word j."""
    k = KernelText(["src", "out"])
    base = k.binop("muli", k.tid, 16)
    parts = [k.load("src", k.binop("addi", base, 4 * w), "vector<2xbf16>") for w in range(4)]
    packed = k.op(f"ptx.pack {', '.join(parts)} : {', '.join(['vector<2xbf16>'] * 4)} -> vector<4xi32>")
    k.store("out", base, packed, "vector<4xi32>")
    src = np.random.default_rng(1).integers(0, 2**32, size=(32, 4), dtype=np.uint32)
    out = np.zeros_like(src)
    run(k, [src, out])
    assert np.array_equal(out, src)


def test_swapped_lbo_and_sbo_read_other_bytes() -> None:
    """The no-swizzle case depends on which offset is which: swapping them reads padding (NaN)."""
    spec = Spec(32, Layout(0, 1024, 128), Layout(0, 512, 128), b_start=2048, shared_bytes=10240)
    case = make_case(spec)
    out = np.zeros_like(case.c)
    run(build(Spec(32, Layout(0, 128, 1024), Layout(0, 512, 128), b_start=2048, shared_bytes=10240)),
        [case.image, case.c, out])
    assert np.isnan(out[24:]).all() and not np.isnan(out[:8]).any()  # rows 24.. land in the padding


def loop_kernel(spec: Spec, read_in_flight: bool = False, fence_in_loop: bool = True) -> KernelText:
    """The k-loop as a cf loop: one wgmma per iteration, committed, `wait 1` keeping it in flight
    across the back edge (the accumulators travel as block arguments), `wait 0` after the loop.
    Without `fence_in_loop` the only wgmma.fence comes before C is loaded."""
    k = KernelText(["img", "c", "out"], num_warps=4, shared_bytes=spec.shared_bytes)
    stage(k, spec)
    a, b = operand_starts(k, spec)
    offsets = accumulator_offsets(k, spec.n)
    if not fence_in_loop:
        k.op("ptx.wgmma_fence", results=0)
    acc = [k.load("c", off, accumulator_type(spec)) for off in offsets]
    regs = spec.n // 2
    f32s = ", ".join(["f32"] * regs)
    k.lines.append(f"cf.br ^loop({k.const(0)}, {', '.join(acc)} : i32, {f32s})")
    k.lines.append(f"^loop(%i: i32, {', '.join(f'%acc{r}: f32' for r in range(regs))}):")
    carried = [f"%acc{r}" for r in range(regs)]
    if read_in_flight:
        k.op("arith.addf %acc0, %acc0 : f32")
    step = k.binop("muli", "%i", 32)
    if fence_in_loop:
        k.op("ptx.wgmma_fence", results=0)
    d = k.op(wgmma_text(spec, k.binop("addi", a, step), k.binop("addi", b, step), carried), results=regs)
    k.op("ptx.wgmma_commit", results=0)
    k.op("ptx.wgmma_wait 1", results=0)
    nxt = k.binop("addi", "%i", 1)
    more = k.op(f"arith.cmpi slt, {nxt}, {k.const(spec.k_steps)} : i32")
    results = ", ".join(f"{d}#{r}" for r in range(regs))
    k.lines.append(f"cf.cond_br {more}, ^loop({nxt}, {results} : i32, {f32s}), ^done({results} : {f32s})")
    k.lines.append(f"^done({', '.join(f'%res{r}: f32' for r in range(regs))}):")
    k.op("ptx.wgmma_wait 0", results=0)
    for r, off in enumerate(offsets):
        k.store("out", off, f"%res{r}", "f32")
    return k


LOOP = Spec(16, SW128, SW128, k_steps=4, b_start=8192, shared_bytes=16384)


def test_loop_keeps_one_group_in_flight_across_the_back_edge() -> None:
    case = make_case(LOOP, seed=5)
    out = np.full_like(case.c, np.nan)
    stats = run(loop_kernel(LOOP), [case.image, case.c, out])
    assert np.array_equal(out, expected(LOOP, case))
    assert stats.ops["ptx.wgmma"] == 4


def test_reading_a_loop_carried_accumulator_in_flight_is_an_error() -> None:
    case = make_case(LOOP)
    with pytest.raises(EmulationError, match=r"arith.addf.*\n.*operand #0 of warpgroup 0 \(threads 0-127\) is a "
                                             r"result of wgmma #0, whose group no ptx.wgmma_wait has retired"):
        run(loop_kernel(LOOP, read_in_flight=True), [case.image, case.c, np.zeros_like(case.c)])


def test_accumulator_written_after_the_fence_through_a_block_argument_is_an_error() -> None:
    case = make_case(LOOP)
    with pytest.raises(EmulationError, match=r"ptx.wgmma .*\n.*CTA 0: C operand #2 of warpgroup 0 \(threads 0-127\) "
                                             r"was written by an instruction after the last ptx.wgmma_fence"):
        run(loop_kernel(LOOP, fence_in_loop=False), [case.image, case.c, np.zeros_like(case.c)])


def expect_error(spec: Spec, message: str) -> None:
    case = make_case(spec)
    with pytest.raises(EmulationError, match=message):
        run(build(spec), [case.image, case.c, np.zeros_like(case.c)])


BASE = Spec(8, SW128, SW128)


def test_missing_fence_proxy_async_is_an_error() -> None:
    expect_error(replace(BASE, proxy_fence=False),
                 r"ptx.wgmma .*\n.*CTA 0: wgmma of warpgroup 0 \(threads 0-127\) reads shared byte 0, whose write by "
                 r"thread 0 no fence.proxy.async has made visible")


def test_cp_async_data_needs_fence_proxy_async_too() -> None:
    expect_error(replace(BASE, fill="cp.async", proxy_fence=False), "missing ptx.fence_proxy_async")


def test_missing_barrier_is_a_race() -> None:
    expect_error(replace(BASE, barrier=False),
                 r"reads shared byte 0 that thread 0 wrote after the last bar.sync \(missing barrier")


def test_missing_wgmma_fence_is_an_error() -> None:
    expect_error(replace(BASE, wgmma_fence=False),
                 r"warpgroup 0 \(threads 0-127\) issues a wgmma without a ptx.wgmma_fence since the kernel start")


def test_accumulator_written_after_the_fence_is_an_error() -> None:
    expect_error(replace(BASE, c_after_fence=True),
                 r"C operand #2 of warpgroup 0 \(threads 0-127\) was written by an instruction after the last "
                 r"ptx.wgmma_fence")


def test_reading_the_result_before_wait_is_an_error() -> None:
    expect_error(replace(BASE, wait="after-stores"),
                 r"ptx.st_global .*\n.*operand #1 .* is a result of wgmma #0, whose group no ptx.wgmma_wait has "
                 r"retired")


def test_wait_does_not_retire_an_uncommitted_wgmma() -> None:
    expect_error(replace(BASE, commit=False), r"result of wgmma #0, whose group no ptx.wgmma_wait")


def test_overwriting_operands_while_pending_is_an_error() -> None:
    expect_error(replace(BASE, overwrite_pending=True),
                 r"st.shared by thread 0 writes shared byte 0, which a wgmma of warpgroup 0 \(threads 0-127\) reads "
                 r"and no ptx.wgmma_wait has retired yet")


def test_pending_at_exit_is_an_error() -> None:
    k = build(replace(BASE, wait="never"))
    k.lines = [line for line in k.lines if "st_global" not in line]  # stores would read the pending results
    case = make_case(BASE)
    with pytest.raises(EmulationError, match=r"func.return\n.*the kernel ends with 1 wgmma in 1 committed group"):
        run(k, [case.image, case.c, np.zeros_like(case.c)])


def test_non_uniform_address_is_an_error() -> None:
    expect_error(replace(BASE, uniform_a=False, shared_bytes=16384),
                 r"A offset must be the same in every thread of warpgroup 0 \(threads 0-127\): thread 0 has 0, "
                 r"thread 64 has 1024")


def test_swizzled_start_off_the_pattern_is_an_error() -> None:
    expect_error(replace(BASE, a_start=128, b_start=12288),
                 r"A of warpgroup 0 .* starts at shared byte 128, row 1 of a 128-byte swizzle pattern")


def test_another_warpgroup_overwriting_after_wait_needs_a_barrier() -> None:
    """After `wait 0` the operands count as read by their warpgroup at the wait: all 256 threads
    overwriting A0 (4 bytes each) without a bar.sync lets warpgroup 1 change bytes warpgroup 0's
    wgmma read; with the bar.sync it is fine."""
    spec = Spec(64, SW128, SW128, groups=2, a_group_stride=8192, b_start=16384, shared_bytes=24576)
    case = make_case(spec)

    def overwrite(barrier: bool) -> KernelText:
        k = build(spec)
        if barrier:
            k.op("ptx.bar_sync", results=0)
        for j in range(8):
            k.op(f"ptx.st_shared {k.binop('addi', k.binop('muli', k.tid, 4), 1024 * j)}, {k.tid} : i32", results=0)
        return k

    out = np.zeros_like(case.c)
    run(overwrite(barrier=True), [case.image, case.c, out])
    assert np.array_equal(out, expected(spec, case))
    with pytest.raises(EmulationError, match=r"st.shared by thread 1\d\d overwrites shared byte \d+ that a wgmma of "
                                             r"warpgroup 0 \(threads 0-127\) read, retired after the last bar.sync"):
        run(overwrite(barrier=False), [case.image, case.c, np.zeros_like(case.c)])


def test_incomplete_warpgroup_is_an_error() -> None:
    k = KernelText(["out"], num_warps=2, shared_bytes=4096)
    zero = k.const(0.0, "f32")
    k.op("ptx.wgmma_fence", results=0)
    k.op(wgmma_text(BASE, k.const(0), k.const(2048), [zero] * 4), results=4)
    with pytest.raises(EmulationError, match="wgmma needs whole warpgroups of 4 warps; the CTA has 2 warps"):
        run(k, [np.zeros(4, np.float32)])
