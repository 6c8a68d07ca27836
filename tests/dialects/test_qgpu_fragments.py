"""#qgpu.mma and #qgpu.dot_op against the PTX ISA fragment tables, lane by lane and register by register.

The reference functions below are the ISA formulas as reference/ptx.md writes
them (§3.1 m16n8k32 A/B/C for 8-bit containers, §3.6 m16n8k16 bf16, §3.3 the
kind::f8f6f4 e2m1 container = the 8-bit byte positions with k counted in fp4
values), typed in independently of dialects/qgpu/layouts.py. Tensors with
several warps and repetitions are checked by composing the tile reference with
the register/warp order the layout documents.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float8E4M3FNType, Float32Type, IntegerType, TensorType

from dialects.qgpu.encodings import DotOperandEncodingAttr, MmaEncodingAttr
from dialects.qgpu.layouts import DotOperandLayout, MmaLayout, distributed_layout

I8 = IntegerType(8)
I32 = IntegerType(32)
F32 = Float32Type()
BF16 = BFloat16Type()
E4M3 = Float8E4M3FNType()

# ---- PTX ISA 9.0 fragment formulas (reference/ptx.md), per lane (g = lane >> 2, t = lane & 3) ----


def ptx_a8(lane: int, reg: int, byte: int) -> tuple[int, int]:
    """m16n8k32 A (8-bit): a_i with i = 4·reg + byte; row g + 8((i>>2)&1), col 4t + (i&3) + 16(i>>3)."""
    g, t, i = lane >> 2, lane & 3, 4 * reg + byte
    return g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)


def ptx_b8(lane: int, reg: int, byte: int) -> tuple[int, int]:
    """m16n8k32 B (8-bit): b_i, i = 4·reg + byte; k = 4t + (i&3) + 16(i>>2), n = g."""
    g, t, i = lane >> 2, lane & 3, 4 * reg + byte
    return 4 * t + (i & 3) + 16 * (i >> 2), g


def ptx_c(lane: int, reg: int) -> tuple[int, int]:
    """C/D: c_i at row g + 8(i>>1), col 2t + (i&1)."""
    g, t = lane >> 2, lane & 3
    return g + 8 * (reg >> 1), 2 * t + (reg & 1)


def ptx_a16(lane: int, reg: int, half: int) -> tuple[int, int]:
    """m16n8k16 A (bf16): a_i, i = 2·reg + half; row g + 8((i>>1)&1), k = 2t + (i&1) + 8(i>>2)."""
    g, t, i = lane >> 2, lane & 3, 2 * reg + half
    return g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)


def ptx_b16(lane: int, reg: int, half: int) -> tuple[int, int]:
    """m16n8k16 B (bf16): register j = {lo: k = 2t + 8j, hi: k = 2t + 8j + 1}, n = g."""
    g, t = lane >> 2, lane & 3
    return 2 * t + 8 * reg + half, g


def tensor(elem, shape, enc):
    return TensorType(elem, shape, enc)


def mma(wm: int, wn: int) -> MmaEncodingAttr:
    return MmaEncodingAttr([wm, wn])


WARPS = [(1, 1), (2, 2), (4, 1), (1, 4), (2, 4)]

# ---------------------------------------------------------------- single tile, one warp


@pytest.mark.parametrize("elem", [F32, I32])
def test_accumulator_tile_is_the_c_fragment(elem) -> None:
    layout = distributed_layout(tensor(elem, [16, 8], mma(1, 1)))
    assert isinstance(layout, MmaLayout) and layout.regs_per_thread == 4
    for lane, reg in itertools.product(range(32), range(4)):
        assert layout.coords(0, lane, reg, 0) == ptx_c(lane, reg)
        for byte in (1, 2, 3):
            assert layout.coords(0, lane, reg, byte) is None


@pytest.mark.parametrize("elem", [I8, E4M3])
def test_a_tile_8bit_is_the_m16n8k32_fragment(elem) -> None:
    layout = distributed_layout(tensor(elem, [16, 32], DotOperandEncodingAttr(0, mma(1, 1), 4)))
    assert layout.regs_per_thread == 4
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        assert layout.coords(0, lane, reg, byte) == ptx_a8(lane, reg, byte), (lane, reg, byte)


@pytest.mark.parametrize("elem", [I8, E4M3])
def test_b_tile_8bit_is_the_m16n8k32_fragment(elem) -> None:
    layout = distributed_layout(tensor(elem, [32, 8], DotOperandEncodingAttr(1, mma(1, 1), 4)))
    assert layout.regs_per_thread == 2
    for lane, reg, byte in itertools.product(range(32), range(2), range(4)):
        assert layout.coords(0, lane, reg, byte) == ptx_b8(lane, reg, byte), (lane, reg, byte)


def test_a_tile_bf16_is_the_m16n8k16_fragment() -> None:
    layout = distributed_layout(tensor(BF16, [16, 16], DotOperandEncodingAttr(0, mma(1, 1), 2)))
    assert layout.regs_per_thread == 4
    for lane, reg in itertools.product(range(32), range(4)):
        assert layout.coords(0, lane, reg, 0) == ptx_a16(lane, reg, 0)
        assert layout.coords(0, lane, reg, 2) == ptx_a16(lane, reg, 1)
        assert layout.coords(0, lane, reg, 1) is None and layout.coords(0, lane, reg, 3) is None


def test_b_tile_bf16_is_the_m16n8k16_fragment() -> None:
    layout = distributed_layout(tensor(BF16, [16, 8], DotOperandEncodingAttr(1, mma(1, 1), 2)))
    for lane, reg in itertools.product(range(32), range(2)):
        assert layout.coords(0, lane, reg, 0) == ptx_b16(lane, reg, 0)
        assert layout.coords(0, lane, reg, 2) == ptx_b16(lane, reg, 1)


def test_fp4_unpacked_a_is_the_f8f6f4_e2m1_container() -> None:
    """kind::f8f6f4 e2m1: one fp4 per byte at the 8-bit positions, k in fp4 values (ptx.md §3.1, §3.3)."""
    layout = distributed_layout(tensor(I8, [16, 16], DotOperandEncodingAttr(0, mma(1, 1), 2, True)))
    assert layout.regs_per_thread == 4
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        row, k = ptx_a8(lane, reg, byte)
        assert layout.coords(0, lane, reg, byte) == (row, k // 2, k % 2), (lane, reg, byte)


def test_fp4_unpacked_b_is_the_f8f6f4_e2m1_container() -> None:
    layout = distributed_layout(tensor(I8, [16, 8], DotOperandEncodingAttr(1, mma(1, 1), 2, True)))
    assert layout.regs_per_thread == 2
    for lane, reg, byte in itertools.product(range(32), range(2), range(4)):
        k, n = ptx_b8(lane, reg, byte)
        assert layout.coords(0, lane, reg, byte) == (k // 2, n, k % 2)


def test_packed_fp4_bytes_follow_the_8bit_layout() -> None:
    """kind::mxf4 m16n8k64: packed e2m1 bytes sit exactly where 8-bit values do (ptx.md §3.4)."""
    layout = distributed_layout(tensor(I8, [16, 32], DotOperandEncodingAttr(0, mma(1, 1), 4)))
    for lane, reg, byte in itertools.product(range(32), range(4), range(4)):
        row, k_byte = ptx_a8(lane, reg, byte)
        g, t = lane >> 2, lane & 3
        # §3.4 in values: a_i in nibble i & 7 of register i >> 3, k = 8t + (i & 7) + 32(i >> 4)
        for nibble in range(2):
            i = 8 * reg + 2 * byte + nibble
            assert (row, 2 * k_byte + nibble) == (g + 8 * ((i >> 3) & 1), 8 * t + (i & 7) + 32 * (i >> 4))
        assert layout.coords(0, lane, reg, byte) == (row, k_byte)


# ---------------------------------------------------------------- whole tensors: warps and repetitions


@pytest.mark.parametrize("wm, wn", WARPS)
@pytest.mark.parametrize("rep_m, rep_n", [(1, 1), (2, 3), (3, 2)])
def test_accumulator_with_warps_and_repetitions(wm: int, wn: int, rep_m: int, rep_n: int) -> None:
    m, n = 16 * wm * rep_m, 8 * wn * rep_n
    layout = distributed_layout(tensor(F32, [m, n], mma(wm, wn)))
    assert layout.num_warps == wm * wn and layout.regs_per_thread == 4 * rep_m * rep_n
    seen = np.zeros((m, n), dtype=int)
    for warp, lane, rm, rn, i in itertools.product(range(wm * wn), range(32), range(rep_m), range(rep_n), range(4)):
        row, col = ptx_c(lane, i)
        expected = ((warp % wm) * 16 + rm * 16 * wm + row, (warp // wm) * 8 + rn * 8 * wn + col)
        reg = (rm * rep_n + rn) * 4 + i
        assert layout.coords(warp, lane, reg, 0) == expected
        seen[expected] += 1
    assert (seen == 1).all()


@pytest.mark.parametrize("wm, wn", WARPS)
@pytest.mark.parametrize("elem, k_tile, a_ref, b_ref, k_width",
                         [(I8, 32, ptx_a8, ptx_b8, 4), (E4M3, 32, ptx_a8, ptx_b8, 4), (BF16, 16, ptx_a16, ptx_b16, 2)])
def test_operands_with_warps_and_repetitions(wm, wn, elem, k_tile, a_ref, b_ref, k_width) -> None:
    rep_m, rep_n, rep_k = 2, 3, 2
    m, n, k = 16 * wm * rep_m, 8 * wn * rep_n, k_tile * rep_k
    a = distributed_layout(tensor(elem, [m, k], DotOperandEncodingAttr(0, mma(wm, wn), k_width)))
    b = distributed_layout(tensor(elem, [k, n], DotOperandEncodingAttr(1, mma(wm, wn), k_width)))
    step = 2 if elem == BF16 else 1
    for warp, lane in itertools.product(range(wm * wn), range(32)):
        wm_i, wn_i = warp % wm, warp // wm
        for rm, rk, r in itertools.product(range(rep_m), range(rep_k), range(4)):
            for byte in range(0, 4, step):
                row, kk = a_ref(lane, r, byte // step)
                expected = (wm_i * 16 + rm * 16 * wm + row, rk * k_tile + kk)
                assert a.coords(warp, lane, (rm * rep_k + rk) * 4 + r, byte) == expected
        for rn, rk, r in itertools.product(range(rep_n), range(rep_k), range(2)):
            for byte in range(0, 4, step):
                kk, col = b_ref(lane, r, byte // step)
                expected = (rk * k_tile + kk, wn_i * 8 + rn * 8 * wn + col)
                assert b.coords(warp, lane, (rn * rep_k + rk) * 2 + r, byte) == expected


@pytest.mark.parametrize("wm, wn", WARPS)
def test_a_is_replicated_over_warp_columns_and_b_over_warp_rows(wm: int, wn: int) -> None:
    a = distributed_layout(tensor(I8, [16 * wm, 32], DotOperandEncodingAttr(0, mma(wm, wn), 4)))
    b = distributed_layout(tensor(I8, [32, 8 * wn], DotOperandEncodingAttr(1, mma(wm, wn), 4)))
    for row, col in itertools.product(range(16 * wm), range(32)):
        owners = a.owners((row, col))
        assert len(owners) == wn and {o.warp % wm for o in owners} == {(row // 16) % wm}
    for row, col in itertools.product(range(32), range(8 * wn)):
        owners = b.owners((row, col))
        assert len(owners) == wm and {o.warp // wm for o in owners} == {(col // 8) % wn}


# ---------------------------------------------------------------- kWidth arrangements (the brief's formulas)


def k_of(k_width: int, kpr: int, k_tile: int, rk: int, t: int, c: int, j: int) -> int:
    """The documented K arrangements, written out for the test (layouts.py module docstring)."""
    if k_width == kpr:
        return rk * k_tile + kpr * t + c * k_tile // 2 + j
    if k_width == 2 * kpr:
        return rk * k_tile + 2 * kpr * t + c * kpr + j
    assert k_width == 4 * kpr
    s = rk % 2
    return (rk // 2) * 2 * k_tile + 4 * kpr * t + 2 * kpr * s + c * kpr + j


@pytest.mark.parametrize("elem, kpr, k_tile", [(I8, 4, 32), (BF16, 2, 16)])
@pytest.mark.parametrize("factor", [1, 2, 4])
def test_k_width_arrangements(elem, kpr: int, k_tile: int, factor: int) -> None:
    k_width = kpr * factor
    rep_k = 4
    k = k_tile * rep_k
    a = distributed_layout(tensor(elem, [32, k], DotOperandEncodingAttr(0, mma(2, 1), k_width)))
    b = distributed_layout(tensor(elem, [k, 16], DotOperandEncodingAttr(1, mma(1, 2), k_width)))
    step = 4 // kpr
    for lane, rk, r, byte in itertools.product(range(32), range(rep_k), range(4), range(0, 4, step)):
        g, t, j = lane >> 2, lane & 3, byte // step
        expected = (g + 8 * (r & 1), k_of(k_width, kpr, k_tile, rk, t, r >> 1, j))
        assert a.coords(0, lane, rk * 4 + r, byte) == expected
        if r < 2:
            assert b.coords(0, lane, rk * 2 + r, byte) == (k_of(k_width, kpr, k_tile, rk, t, r, j), g)


@pytest.mark.parametrize("elem, kpr", [(I8, 4), (BF16, 2)])
@pytest.mark.parametrize("factor", [1, 2, 4])
def test_thread_holds_k_with_chunk_index_equal_to_t(elem, kpr: int, factor: int) -> None:
    """Whatever the arrangement, lane t holds exactly the k with (k // kWidth) % 4 == t (why upcasts stay in-thread)."""
    k_width = kpr * factor
    layout = distributed_layout(tensor(elem, [16, 128], DotOperandEncodingAttr(0, mma(1, 1), k_width)))
    for lane in range(32):
        ks = {c[1] for _, _, c in layout.thread_coords(0, lane)}
        assert ks == {k for k in range(128) if (k // k_width) % 4 == lane & 3}


@pytest.mark.parametrize("factor", [1, 2, 4])
@pytest.mark.parametrize("elem, k_tile", [(I8, 32), (BF16, 16)])
def test_a_and_b_permute_k_alike(factor: int, elem, k_tile: int) -> None:
    """Each instruction pairs A and B values of the same logical k: the dot product is unchanged."""
    kpr = 32 // (8 if elem == I8 else 16)
    k = 4 * k_tile
    a = distributed_layout(tensor(elem, [16, k], DotOperandEncodingAttr(0, mma(1, 1), kpr * factor)))
    b = distributed_layout(tensor(elem, [k, 8], DotOperandEncodingAttr(1, mma(1, 1), kpr * factor)))
    assert isinstance(a, DotOperandLayout) and isinstance(b, DotOperandLayout)
    covered: list[int] = []
    for rk in range(a.rep_k):
        assert a.instruction_k(rk) == b.instruction_k(rk)
        covered += [logical for _, logical in a.instruction_k(rk)]
    assert sorted(covered) == list(range(k))


def simulate(a_vals: np.ndarray, b_vals: np.ndarray, a_layout, b_layout, c_layout, k_tile: int,
             a_ref, b_ref, per_reg: int) -> np.ndarray:
    """Run mma.sync on register contents as the ISA defines it, and read D back through the C layout."""
    m, n = c_layout.shape
    d = np.zeros((m, n), dtype=np.int64)
    step = 4 // per_reg
    for warp in range(c_layout.num_warps):
        for rm, rn, rk in itertools.product(range(a_layout.rep_mn), range(b_layout.rep_mn), range(a_layout.rep_k)):
            a_tile = np.zeros((16, k_tile), dtype=np.int64)
            b_tile = np.zeros((k_tile, 8), dtype=np.int64)
            for lane in range(32):
                for i, reg in enumerate(a_layout.tile_registers(rm, rk)):
                    for byte in range(0, 4, step):
                        a_tile[a_ref(lane, i, byte // step)] = a_vals[a_layout.coords(warp, lane, reg, byte)]
                for i, reg in enumerate(b_layout.tile_registers(rn, rk)):
                    for byte in range(0, 4, step):
                        b_tile[b_ref(lane, i, byte // step)] = b_vals[b_layout.coords(warp, lane, reg, byte)]
            d_tile = a_tile @ b_tile
            for lane in range(32):
                for i, reg in enumerate(c_layout.tile_registers(rm, rn)):
                    d[c_layout.coords(warp, lane, reg, 0)] += d_tile[ptx_c(lane, i)]
    return d


@pytest.mark.parametrize("factor", [1, 2, 4])
@pytest.mark.parametrize("wm, wn", [(1, 1), (2, 2), (1, 2)])
def test_simulated_mma_computes_a_times_b(factor: int, wm: int, wn: int) -> None:
    """Registers filled by the layouts, multiplied with the ISA's fragment semantics, give A·B."""
    rng = np.random.default_rng(7)
    m, n, k = 32 * wm, 16 * wn, 128
    enc = mma(wm, wn)
    a_layout = distributed_layout(tensor(I8, [m, k], DotOperandEncodingAttr(0, enc, 4 * factor)))
    b_layout = distributed_layout(tensor(I8, [k, n], DotOperandEncodingAttr(1, enc, 4 * factor)))
    c_layout = distributed_layout(tensor(I32, [m, n], enc))
    a_vals = rng.integers(-128, 128, size=(m, k))
    b_vals = rng.integers(-128, 128, size=(k, n))
    d = simulate(a_vals, b_vals, a_layout, b_layout, c_layout, 32, ptx_a8, ptx_b8, 4)
    assert (d == a_vals @ b_vals).all()


def test_simulated_bf16_mma_computes_a_times_b() -> None:
    rng = np.random.default_rng(8)
    enc = mma(2, 1)
    a_layout = distributed_layout(tensor(BF16, [32, 64], DotOperandEncodingAttr(0, enc, 4)))
    b_layout = distributed_layout(tensor(BF16, [64, 16], DotOperandEncodingAttr(1, enc, 4)))
    c_layout = distributed_layout(tensor(F32, [32, 16], enc))
    a_vals = rng.integers(-8, 8, size=(32, 64))
    b_vals = rng.integers(-8, 8, size=(64, 16))
    d = simulate(a_vals, b_vals, a_layout, b_layout, c_layout, 16, ptx_a16, ptx_b16, 2)
    assert (d == a_vals @ b_vals).all()


@pytest.mark.parametrize("k_width", [2, 4, 8])
def test_simulated_fp4_unpacked_times_e4m3(k_width: int) -> None:
    """fp4Unpacked B (kWidth in packed bytes) against an 8-bit A with kWidth in values = 2·kWidth."""
    rng = np.random.default_rng(9)
    enc = mma(1, 2)
    k = 128
    a_layout = distributed_layout(tensor(E4M3, [16, k], DotOperandEncodingAttr(0, enc, 2 * k_width)))
    b_layout = distributed_layout(tensor(I8, [k // 2, 16], DotOperandEncodingAttr(1, enc, k_width, True)))
    c_layout = distributed_layout(tensor(F32, [16, 16], enc))
    a_vals = rng.integers(-7, 8, size=(16, k))
    b_codes = rng.integers(-6, 7, size=(k, 16))          # one fp4 value per logical k
    b_packed = np.zeros((k // 2, 16, 2), dtype=np.int64)  # (packed row, column, nibble)
    b_packed[:, :, 0], b_packed[:, :, 1] = b_codes[0::2], b_codes[1::2]
    d = simulate(a_vals, b_packed, a_layout, b_layout, c_layout, 32, ptx_a8, ptx_b8, 4)
    assert (d == a_vals @ b_codes).all()
