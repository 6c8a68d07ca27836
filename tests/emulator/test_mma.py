"""mma.sync: fragments, containers, block scales and rounding against numpy products.

The arithmetic of the bf16 / f16 / e4m3 / e5m2 → f32 forms is the H200's
(``compiler.numerics.tensor_core``, tested against the hardware's own results in
tests/numerics/test_tensor_core.py); here ``measured`` applies it per element, so these tests
check the fragments, and the kind:: / block-scaled forms keep the exact sum rounded once.

Fragments are loaded straight from global memory with the word addresses of ptx.md
§3.1 / §3.4 / §3.6 (A row-major with 32-byte rows: register r of lane T is the word at
byte ``32(g + 8(r&1)) + 4t + 16(r>>1)``; B stored transposed, 32-byte rows: register j
is the word at ``32g + 4t + 16j``; C element i at row ``g + 8(i>>1)``, column
``2t + (i&1)``), or, in the last tests, through the ldmatrix recipes that were run on
an H200 (§3.5). The expected D is computed here with numpy from the decoded values.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler import numerics
from compiler.diagnostics import QdotError
from compiler.numerics.tensor_core import tensor_core_dot
from targets.ptx.emulator import EmulationError, LaunchOptions
from tests.emulator.kernel_text import KernelText, fill_shared, run


def _word_offsets(k: KernelText, operand: str, registers: int) -> list[str]:
    g = k.binop("shrui", k.lane, 2)
    t4 = k.binop("muli", k.binop("andi", k.lane, 3), 4)
    offsets = []
    for r in range(registers):
        if operand == "A":
            const = 256 * (r & 1) + 16 * (r >> 1)
        else:
            const = 16 * r
        offsets.append(k.binop("addi", k.binop("addi", k.binop("muli", g, 32), t4), const))
    return offsets


def _c_offsets(k: KernelText, elem_bytes: int) -> list[str]:
    g = k.binop("shrui", k.lane, 2)
    t = k.binop("andi", k.lane, 3)
    out = []
    for i in range(4):
        row = k.binop("addi", g, 8 * (i >> 1))
        col = k.binop("addi", k.binop("muli", t, 2), i & 1)
        out.append(k.binop("muli", k.binop("addi", k.binop("muli", row, 8), col), elem_bytes))
    return out


def launch_mma(types: str, a: np.ndarray, b_t: np.ndarray, c: np.ndarray, *, shape: str = "m16n8k32",
               kind: str = "", scale_vec: str = "", scales: tuple[np.ndarray, int, int, np.ndarray, int, int]
               | None = None, satfinite: bool = False, arch: str = "sm_90",
               runtime_selectors: bool = False) -> np.ndarray:
    """D of one mma over [16, 32 bytes] A and [8, 32 bytes] B^T (bytes as stored), C [16, 8]. ``runtime_selectors``:
    the byte-id / thread-id selectors computed (an ``addi`` of 0), which the verifier cannot read and the emulator
    checks where they run."""
    k = KernelText(["a", "b", "c", "sa", "sb", "out"])
    a_regs = [k.load("a", off) for off in _word_offsets(k, "A", 4)]
    b_regs = [k.load("b", off) for off in _word_offsets(k, "B", 2)]
    acc = "i32" if c.dtype == np.int32 else "f32"
    c_regs = [k.load("c", off, acc) for off in _c_offsets(k, 4)]
    prefix = " ".join(x for x in (shape, kind, scale_vec, "satfinite" if satfinite else "") if x)
    text = f"ptx.mma_sync {prefix} {types} A[{', '.join(a_regs)}] B[{', '.join(b_regs)}] C[{', '.join(c_regs)}]"
    sa_data = sb_data = np.zeros(32, dtype=np.uint32)
    if scales is not None:
        sa_data, byte_a, thread_a, sb_data, byte_b, thread_b = scales
        lane4 = k.binop("muli", k.lane, 4)
        sel = [k.const(v, "i16") for v in (byte_a, thread_a, byte_b, thread_b)]
        if runtime_selectors:
            sel = [k.binop("addi", v, k.const(0, "i16"), "i16") for v in sel]
        text += (f" scale_a[{k.load('sa', lane4)}, {sel[0]}, {sel[1]}]"
                 f" scale_b[{k.load('sb', lane4)}, {sel[2]}, {sel[3]}]")
    d = k.op(text, results=4)
    for i, off in enumerate(_c_offsets(k, 4)):
        k.store("out", off, f"{d}#{i}", acc)
    out = np.zeros((16, 8), dtype=c.dtype)
    run(k, [np.ascontiguousarray(a), np.ascontiguousarray(b_t), np.ascontiguousarray(c), sa_data, sb_data, out],
        options=LaunchOptions(arch=arch))
    return out


def reference(a: np.ndarray, b_t: np.ndarray, c: np.ndarray, sa: np.ndarray | None = None,
              sb: np.ndarray | None = None) -> np.ndarray:
    """f32(A·B + C) from values, A [16, K], B^T [8, K], with per-chunk scales [16, X] / [8, X]."""
    if sa is not None and sb is not None:
        chunk = a.shape[1] // sa.shape[1]
        a = a * np.repeat(sa, chunk, axis=1)
        b_t = b_t * np.repeat(sb, chunk, axis=1)
    return (a.astype(np.float64) @ b_t.T.astype(np.float64) + c).astype(np.float32)


def measured(operand_type: str, a: np.ndarray, b_t: np.ndarray, c: np.ndarray) -> np.ndarray:
    """D as an H200 computes it, element by element from A [16, K] and B^T [8, K] values."""
    return tensor_core_dot("mma", operand_type, a[:, None, :], b_t[None, :, :], c)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(11)


def _e4m3(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return numerics.encode("e4m3", rng.standard_normal(shape) * 3)


def test_s8_with_accumulator_wraps_and_satfinite_clamps(rng: np.random.Generator) -> None:
    a = rng.integers(-128, 128, size=(16, 32), dtype=np.int8)
    b_t = rng.integers(-128, 128, size=(8, 32), dtype=np.int8)
    exact = a.astype(np.int64) @ b_t.T.astype(np.int64)
    c = np.full((16, 8), 2**31 - 1 - 20000, dtype=np.int64)  # the larger sums overflow int32
    c32 = c.astype(np.int32)
    wrapped = launch_mma("s32.s8.s8.s32", a.view(np.uint8), b_t.view(np.uint8), c32)
    assert np.array_equal(wrapped.astype(np.int64), ((exact + c + 2**31) % 2**32) - 2**31)
    clamped = launch_mma("s32.s8.s8.s32", a.view(np.uint8), b_t.view(np.uint8), c32, satfinite=True)
    assert np.array_equal(clamped.astype(np.int64), np.clip(exact + c, -2**31, 2**31 - 1))
    assert (exact + c > 2**31 - 1).any()  # the case is not vacuous


def test_e4m3_plain(rng: np.random.Generator) -> None:
    a, b_t = _e4m3(rng, (16, 32)), _e4m3(rng, (8, 32))
    c = rng.standard_normal((16, 8)).astype(np.float32)
    got = launch_mma("f32.e4m3.e4m3.f32", a, b_t, c)
    assert np.array_equal(got, measured("e4m3", numerics.decode("e4m3", a), numerics.decode("e4m3", b_t), c))
    elsewhere = launch_mma("f32.e4m3.e4m3.f32", a, b_t, c, arch="sm_89")  # not measured: one rounding
    assert np.array_equal(elsewhere, reference(numerics.decode("e4m3", a), numerics.decode("e4m3", b_t), c))


def test_f8f6f4_e4m3_x_e2m1_container(rng: np.random.Generator) -> None:
    a = _e4m3(rng, (16, 32))
    b_codes = rng.integers(0, 16, size=(8, 32), dtype=np.uint8)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    got = launch_mma("f32.e4m3.e2m1.f32", a, b_codes << 2, c, kind="kind::f8f6f4")  # e2m1 in bits [5:2]
    assert np.array_equal(got, reference(numerics.decode("e4m3", a), numerics.decode("e2m1", b_codes), c))


def test_f8f6f4_fp6_containers(rng: np.random.Generator) -> None:
    a = rng.integers(0, 64, size=(16, 32), dtype=np.uint8)  # e2m3 in bits [5:0]
    b_t = rng.integers(0, 64, size=(8, 32), dtype=np.uint8)  # e3m2
    c = np.zeros((16, 8), dtype=np.float32)
    got = launch_mma("f32.e2m3.e3m2.f32", a, b_t, c, kind="kind::f8f6f4")
    assert np.array_equal(got, reference(numerics.decode("e2m3", a), numerics.decode("e3m2", b_t), c))


@pytest.mark.parametrize("bad", [0x01, 0x40, 0x80])
def test_f8f6f4_padding_bits_are_an_error(bad: int) -> None:
    b = np.zeros((8, 32), dtype=np.uint8)
    b[3, 5] = 0x08 | bad
    with pytest.raises(EmulationError, match=r"B element \(5, 3\).*keeps bits outside 0x3c zero"):
        launch_mma("f32.e4m3.e2m1.f32", np.zeros((16, 32), np.uint8), b, np.zeros((16, 8), np.float32),
                   kind="kind::f8f6f4")


def _scale_registers(rng: np.random.Generator, side: str, scales: np.ndarray, byte_id: int,
                     thread_id: int) -> np.ndarray:
    """Per-lane scale registers per ptx.md §4.3; lanes that supply nothing hold random garbage."""
    regs = rng.integers(0, 2**32, size=32, dtype=np.uint64).astype(np.uint32)
    for lane in range(32):
        g = lane >> 2
        if side == "A" and (lane & 3) >> 1 == thread_id:
            row = g + 8 * (lane & 1)  # even lane: row g, odd lane: row g + 8
        elif side == "B" and lane & 3 == thread_id:
            row = g
        else:
            continue
        word = int(regs[lane])
        for j, code in enumerate(scales[row]):
            shift = 8 * (byte_id + j)
            word = (word & ~(0xFF << shift)) | (int(code) << shift)
        regs[lane] = word
    return regs


@pytest.mark.parametrize("byte_a,thread_a,byte_b,thread_b", [(0, 0, 0, 0), (3, 1, 2, 3), (1, 0, 3, 2)])
def test_mxf8f6f4_block_scale_selectors(byte_a: int, thread_a: int, byte_b: int, thread_b: int,
                                        rng: np.random.Generator) -> None:
    a = _e4m3(rng, (16, 32))
    b_codes = rng.integers(0, 16, size=(8, 32), dtype=np.uint8)
    sa = rng.integers(120, 135, size=(16, 1), dtype=np.uint8)
    sb = rng.integers(120, 135, size=(8, 1), dtype=np.uint8)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    scales = (_scale_registers(rng, "A", sa, byte_a, thread_a), byte_a, thread_a,
              _scale_registers(rng, "B", sb, byte_b, thread_b), byte_b, thread_b)
    got = launch_mma("f32.e4m3.e2m1.f32.ue8m0", a, b_codes << 2, c, kind="kind::mxf8f6f4",
                     scale_vec="scale_vec::1X", scales=scales)
    expected = reference(numerics.decode("e4m3", a), numerics.decode("e2m1", b_codes), c,
                         numerics.decode("ue8m0", sa), numerics.decode("ue8m0", sb))
    assert np.array_equal(got, expected)


def _fp4_values(packed: np.ndarray) -> np.ndarray:
    """[rows, 32 bytes] packed e2m1 (element 2b in the low nibble of byte b) -> [rows, 64] values."""
    return numerics.decode("e2m1", numerics.unpack_fp4(packed))


@pytest.mark.parametrize("byte_a,byte_b", [(0, 0), (2, 0), (2, 2)])
def test_mxf4_packed_k64_two_scales(byte_a: int, byte_b: int, rng: np.random.Generator) -> None:
    a = rng.integers(0, 256, size=(16, 32), dtype=np.uint8)
    b_t = rng.integers(0, 256, size=(8, 32), dtype=np.uint8)
    sa = rng.integers(120, 135, size=(16, 2), dtype=np.uint8)
    sb = rng.integers(120, 135, size=(8, 2), dtype=np.uint8)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    scales = (_scale_registers(rng, "A", sa, byte_a, 1), byte_a, 1, _scale_registers(rng, "B", sb, byte_b, 2),
              byte_b, 2)
    got = launch_mma("f32.e2m1.e2m1.f32.ue8m0", a, b_t, c, shape="m16n8k64", kind="kind::mxf4",
                     scale_vec="scale_vec::2X", scales=scales)
    expected = reference(_fp4_values(a), _fp4_values(b_t), c, numerics.decode("ue8m0", sa),
                         numerics.decode("ue8m0", sb))
    assert np.array_equal(got, expected)


def test_mxf4nvf4_four_ue4m3_scales(rng: np.random.Generator) -> None:
    a = rng.integers(0, 256, size=(16, 32), dtype=np.uint8)
    b_t = rng.integers(0, 256, size=(8, 32), dtype=np.uint8)
    sa = rng.integers(0x28, 0x48, size=(16, 4), dtype=np.uint8)
    sb = rng.integers(0x28, 0x48, size=(8, 4), dtype=np.uint8)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    scales = (_scale_registers(rng, "A", sa, 0, 0), 0, 0, _scale_registers(rng, "B", sb, 0, 1), 0, 1)
    got = launch_mma("f32.e2m1.e2m1.f32.ue4m3", a, b_t, c, shape="m16n8k64", kind="kind::mxf4nvf4",
                     scale_vec="scale_vec::4X", scales=scales)
    expected = reference(_fp4_values(a), _fp4_values(b_t), c, numerics.decode("ue4m3", sa),
                         numerics.decode("ue4m3", sb))
    assert np.array_equal(got, expected)


def test_illegal_byte_id_is_an_error(rng: np.random.Generator) -> None:
    """A constant selector out of range is the verifier's refusal; a computed one, the emulator's where it runs."""
    z = np.zeros((16, 32), np.uint8)
    scales = (np.zeros(32, np.uint32), 1, 0, np.zeros(32, np.uint32), 0, 0)
    with pytest.raises(QdotError, match=r"scale_a byte-id must be 0 or 2 for scale_vec::2X, got 1"):
        launch_mma("f32.e2m1.e2m1.f32.ue8m0", z, z[:8], np.zeros((16, 8), np.float32), shape="m16n8k64",
                   kind="kind::mxf4", scale_vec="scale_vec::2X", scales=scales)
    with pytest.raises(EmulationError, match=r"byte-id-a 1 is out of range for scale_vec::2X"):
        launch_mma("f32.e2m1.e2m1.f32.ue8m0", z, z[:8], np.zeros((16, 8), np.float32), shape="m16n8k64",
                   kind="kind::mxf4", scale_vec="scale_vec::2X", scales=scales, runtime_selectors=True)


def test_bf16_m16n8k16(rng: np.random.Generator) -> None:
    a = numerics.encode("bf16", rng.standard_normal((16, 16)))
    b_t = numerics.encode("bf16", rng.standard_normal((8, 16)))
    c = rng.standard_normal((16, 8)).astype(np.float32)
    got = launch_mma("f32.bf16.bf16.f32", a.view(np.uint8), b_t.view(np.uint8), c, shape="m16n8k16")
    assert np.array_equal(got, measured("bf16", numerics.decode("bf16", a), numerics.decode("bf16", b_t), c))


def test_terms_below_the_alignment_are_dropped() -> None:
    """1·1 + 15 products of 2^-26: the H200 aligns every term to the largest exponent sum (0) and
    keeps 25 fraction bits, so the small products truncate to nothing and D is exactly 1; the
    exact sum rounded once (another arch's model) keeps them."""
    one, tiny = numerics.encode("bf16", np.array([1.0, 2.0**-13]))
    a = np.zeros((16, 16), np.uint16)
    b_t = np.zeros((8, 16), np.uint16)
    a[:, 0], b_t[:, 0] = one, one
    a[:, 1:], b_t[:, 1:] = tiny, tiny  # 15 products of 2^-26
    c = np.zeros((16, 8), np.float32)
    h200 = launch_mma("f32.bf16.bf16.f32", a.view(np.uint8), b_t.view(np.uint8), c, shape="m16n8k16")
    assert (h200 == np.float32(1.0)).all()
    once = launch_mma("f32.bf16.bf16.f32", a.view(np.uint8), b_t.view(np.uint8), c, shape="m16n8k16",
                      arch="sm_80")
    assert (once == np.float32(1.0 + 15 * 2.0**-26)).all()


def test_ldmatrix_then_s8_mma_multiplies(rng: np.random.Generator) -> None:
    """§3.5 recipe: A (16x32, 32-byte rows) by .x4 with lane address A + 32(l&15) + 16(l>>4);
    B^T (8x32) by .x2 with B + 32(l&7) + 16((l>>3)&1); then mma.m16n8k32 s8 = A·B."""
    a = rng.integers(-128, 128, size=(16, 32), dtype=np.int8)
    b_t = rng.integers(-128, 128, size=(8, 32), dtype=np.int8)
    k = KernelText(["src", "out"], shared_bytes=1024)
    fill_shared(k, "src", 1024)
    lane = k.lane
    a_addr = k.binop("addi", k.binop("muli", k.binop("andi", lane, 15), 32),
                     k.binop("muli", k.binop("shrui", lane, 4), 16))
    b_row = k.binop("muli", k.binop("andi", lane, 7), 32)
    b_half = k.binop("muli", k.binop("andi", k.binop("shrui", lane, 3), 1), 16)
    b_addr = k.binop("addi", k.binop("addi", b_row, b_half), 512)
    ra = k.op(f"ptx.ldmatrix m8n8 x4 b16 {a_addr}", results=4)
    rb = k.op(f"ptx.ldmatrix m8n8 x2 b16 {b_addr}", results=2)
    zero = k.const(0)
    d = k.op(f"ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[{ra}#0, {ra}#1, {ra}#2, {ra}#3] B[{rb}#0, {rb}#1] "
             f"C[{zero}, {zero}, {zero}, {zero}]", results=4)
    for i, off in enumerate(_c_offsets(k, 4)):
        k.store("out", off, f"{d}#{i}")
    src = np.zeros(1024, np.uint8)
    src[:512] = a.view(np.uint8).reshape(-1)
    src[512:768] = b_t.view(np.uint8).reshape(-1)
    out = np.zeros((16, 8), np.int32)
    run(k, [src, out])
    assert np.array_equal(out, a.astype(np.int64) @ b_t.T.astype(np.int64))


def test_ldmatrix_trans_then_bf16_mma_multiplies(rng: np.random.Generator) -> None:
    """§3.5 recipe: bf16 A by .x4 (A + 32(l&15) + 16(l>>4)); B stored K x N row-major (16 rows of
    8 bf16) by .x2.trans with B + 16(l&15); then mma.m16n8k16 bf16 = A·B."""
    a = numerics.encode("bf16", rng.standard_normal((16, 16)))
    b = numerics.encode("bf16", rng.standard_normal((16, 8)))
    k = KernelText(["src", "out"], shared_bytes=1024)
    fill_shared(k, "src", 1024)
    lane = k.lane
    a_addr = k.binop("addi", k.binop("muli", k.binop("andi", lane, 15), 32),
                     k.binop("muli", k.binop("shrui", lane, 4), 16))
    b_addr = k.binop("addi", k.binop("muli", k.binop("andi", lane, 15), 16), 512)
    ra = k.op(f"ptx.ldmatrix m8n8 x4 b16 {a_addr}", results=4)
    rb = k.op(f"ptx.ldmatrix m8n8 x2 trans b16 {b_addr}", results=2)
    zero = k.const(0.0, "f32")
    d = k.op(f"ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[{ra}#0, {ra}#1, {ra}#2, {ra}#3] B[{rb}#0, {rb}#1] "
             f"C[{zero}, {zero}, {zero}, {zero}]", results=4)
    for i, off in enumerate(_c_offsets(k, 4)):
        k.store("out", off, f"{d}#{i}", "f32")
    src = np.zeros(1024, np.uint8)
    src[:512] = a.view(np.uint8).reshape(-1)
    src[512:768] = b.view(np.uint8).reshape(-1)
    out = np.zeros((16, 8), np.float32)
    run(k, [src, out])
    want = measured("bf16", numerics.decode("bf16", a), numerics.decode("bf16", b).T, np.zeros((16, 8), np.float32))
    assert np.array_equal(out, want)


@pytest.mark.parametrize("name", ["mma_bf16", "mma_f16", "mma_e4m3", "mma_e5m2", "mma_e4m3_e5m2", "mma_e5m2_e4m3"])
@pytest.mark.parametrize("dists", [("spread", "big"), ("low", "zero"), ("wide", "tiny")])
def test_distribution_cases_run_as_expected(name: str, dists: tuple[str, str]) -> None:
    """The kernel and packed registers tests/gpu runs on the H200 (tests/tensor_core_cases.py),
    run by the emulator: D is the model's, bit for bit, so what the GPU test compares is the
    arithmetic alone."""
    from tests.tensor_core_cases import MMA_FORMS, mma_inputs, mma_kernel, unpack_d

    form = MMA_FORMS[name]
    case = mma_inputs(np.random.default_rng(7), name, 2, *dists)
    d = np.zeros_like(case["c_regs"])
    run(mma_kernel(form), [case["a_regs"], case["b_regs"], case["c_regs"], d], grid=2)
    want = tensor_core_dot("mma", form.operand_types, case["a"][:, :, None, :], case["b"][:, None, :, :], case["c"])
    np.testing.assert_array_equal(unpack_d(d), want)
