"""wgmma.mma_async (sm_90a): shared-memory layouts, accumulator fragments, and the async protocol.

Every kernel here (built by tests/wgmma_kernels.py, which the GPU tests share) stages a byte
image of shared memory laid out by `byte_address` (the operand layout of the PTX ISA
§9.7.15.5.1.2, written out again there, not imported from the emulator), stores it with
st.shared (or cp.async), and issues wgmma whose A/B start offsets and descriptor fields name
that layout. Bytes no operand uses
hold 0xFF, a NaN in bf16, f16 and e4m3 (in s8 a -1, which the exact comparison catches), so
an emulator reading a wrong byte produces a wrong result. C is loaded and D stored with the
accumulator map of §9.7.15.5.1.1 (register ``4j + i`` of lane l in warp w of the warpgroup:
row ``16w + l/4 + 8(i/2)``, column ``8j + 2(l%4) + i%2``), again written out here. Expected
values come from numpy in float64 with one f32 rounding per wgmma, exactly what a chain of
wgmma computes in the model; s8 operands (k32) sum exactly into s32, wrapping.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from targets.ptx.emulator import EmulationError
from tests.emulator.kernel_text import KernelText, run
from tests.tensor_core_cases import wgmma_case
from tests.wgmma_kernels import (
    SW128,
    Layout,
    Spec,
    accumulator_offsets,
    accumulator_type,
    build,
    byte_address,
    expected,
    make_case,
    operand_starts,
    stage,
    wgmma_text,
)


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


def emulate_spec(spec: Spec, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    case = make_case(spec, seed)
    out = np.full_like(case.c, -1) if spec.type_ == "s8" else np.full_like(case.c, np.nan)
    run(build(spec), [case.image, case.c, out])
    return out, expected(spec, case)


@pytest.mark.parametrize("type_", ["bf16", "e4m3", "e5m2"])
@pytest.mark.parametrize("dists", [("spread", "big"), ("low", "zero"), ("wide", "tiny")])
def test_distribution_cases_run_as_expected(type_: str, dists: tuple[str, str]) -> None:
    """The operand images tests/gpu builds from tests/tensor_core_cases.py's distributions, run
    by the emulator: D is the model's, bit for bit (the GPU test compares the H200 with it)."""
    spec = Spec(64, SW128, SW128, type_=type_, b_start=8192, shared_bytes=16384)
    case = wgmma_case(spec, np.random.default_rng(5), *dists)
    out = np.full_like(case.c, np.nan)
    run(build(spec), [case.image, case.c, out])
    np.testing.assert_array_equal(out, expected(spec, case))




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
    Spec(64, SW128, SW128, type_="s8", k_steps=2, b_start=8192, shared_bytes=16384, fresh=True),
    Spec(64, SW128, SW128, type_="e4m3", b_start=8192, shared_bytes=16384, fresh=True),
    Spec(64, SW128, Layout(64, 16, 512), type_="e5m2", k_steps=2, b_start=8192, shared_bytes=16384),
    Spec(64, SW128, SW128, type_="e4m3", b_type="e5m2", b_start=8192, shared_bytes=16384),
    Spec(64, SW128, SW128, type_="e5m2", b_type="e4m3", b_start=8192, shared_bytes=16384),
], ids=["n8-sw128", "n128-sw128-pack", "n256-sw128", "n64-sw64", "n64-f16-sw64-sw32-cp.async", "n32-no-swizzle",
        "n32-no-swizzle-x-sw128", "n16-sw32-x-no-swizzle", "n64-two-warpgroups", "n128-k64-chain",
        "n64-e4m3-k32", "n32-e4m3-no-swizzle-x-sw128", "n64-e4m3-k64-chain", "n64-s8-sw128-x-sw64", "n128-s8-k128-chain-wraps", "n64-s8-fresh-then-chained", "n64-e4m3-fresh", "n64-e5m2-sw128-x-sw64-k64-chain",
        "n64-e4m3-x-e5m2", "n64-e5m2-x-e4m3"])
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
