"""ldmatrix: which lane supplies which row and which bytes each lane receives (ptx.md §2.3–§2.5).

Every test stores random rows in shared memory, lets each lane supply the address of a
row chosen by a random permutation (so a lane/row mix-up cannot cancel out), and checks
every byte of every register of every lane against the ISA's description, written out
here element by element.
"""

from __future__ import annotations

import numpy as np
import pytest

from targets.ptx.emulator import EmulationError
from tests.emulator.kernel_text import KernelText, run

ROWS = 32


def _launch(form: str, registers: int, rows: np.ndarray, order: np.ndarray, data_bytes: int = 16,
            offset_bias: int = 0) -> np.ndarray:
    """Registers [32 lanes, registers, 4 bytes] of ``ptx.ldmatrix <form>``; lane l supplies row order[l]."""
    k = KernelText(["src", "rows", "out"], shared_bytes=ROWS * 16 + 16)
    # each lane writes the data bytes of one row (the padding of sub-byte rows stays unwritten)
    row_off = k.binop("muli", k.lane, 16)
    vector = {16: "vector<4xi32>", 12: None, 8: "vector<2xi32>"}[data_bytes]
    if vector is None:
        for word in range(3):
            off = k.binop("addi", row_off, 4 * word)
            k.op(f"ptx.st_shared {off}, {k.load('src', off)} : i32", results=0)
    else:
        k.op(f"ptx.st_shared {row_off}, {k.load('src', row_off, vector)} : {vector}", results=0)
    k.op("ptx.bar_sync", results=0)
    supplied = k.load("rows", k.binop("muli", k.lane, 4))
    address = k.binop("addi", k.binop("muli", supplied, 16), offset_bias)
    regs = k.op(f"ptx.ldmatrix {form} {address}", results=registers)
    for r in range(registers):
        name = f"{regs}#{r}" if registers > 1 else regs
        k.store("out", k.binop("muli", k.binop("addi", k.binop("muli", k.lane, registers), r), 4), name)
    out = np.zeros((32, registers), dtype=np.uint32)
    run(k, [rows.reshape(-1).copy(), order.astype(np.int32), out])
    return out.view(np.uint8).reshape(32, registers, 4)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_m8n8_b16(num: int, trans: bool, rng: np.random.Generator) -> None:
    rows = rng.integers(0, 256, size=(ROWS, 16), dtype=np.uint8)
    order = rng.permutation(ROWS)
    got = _launch(f"m8n8 x{num}{' trans' if trans else ''} b16", num, rows, order)
    half = rows.view(np.uint16)  # [row, 8 halves]
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(num):
            if not trans:  # {lo: R_{8i+g}.h[2t], hi: R_{8i+g}.h[2t+1]}
                expected = [half[order[8 * i + g], 2 * t], half[order[8 * i + g], 2 * t + 1]]
            else:  # {lo: R_{8i+2t}.h[g], hi: R_{8i+2t+1}.h[g]}
                expected = [half[order[8 * i + 2 * t], g], half[order[8 * i + 2 * t + 1], g]]
            assert got[lane, i].view(np.uint16).tolist() == [int(x) for x in expected], (lane, i)


def test_m8n8_examples_verified_on_hardware() -> None:
    """ptx.md §2.3: with element (row, col) stored at row `row`, b16 column `col`:
    lane 5 .x4 reg 1 = (row 9, cols 2, 3); .x4.trans reg 1 = (rows 10, 11, col 1)."""
    rows = np.array([[r * 16 + c for c in range(8)] for r in range(ROWS)], dtype=np.uint16).view(np.uint8)
    order = np.arange(ROWS)
    plain = _launch("m8n8 x4 b16", 4, rows, order)[5, 1].view(np.uint16)
    trans = _launch("m8n8 x4 trans b16", 4, rows, order)[5, 1].view(np.uint16)
    assert [(x >> 4, x & 15) for x in plain.tolist()] == [(9, 2), (9, 3)]
    assert [(x >> 4, x & 15) for x in trans.tolist()] == [(10, 1), (11, 1)]


def test_m16n16_x2_trans_b8_inverse_map(rng: np.random.Generator) -> None:
    """ptx.md §2.4 inverse: stored row R, byte column c -> lane 4(c&7) + ((R&15)>>2),
    register 2(R>>4) + (c>>3), byte R&3."""
    rows = rng.integers(0, 256, size=(ROWS, 16), dtype=np.uint8)
    order = rng.permutation(ROWS)
    got = _launch("m16n16 x2 trans b8", 4, rows, order)
    for r in range(32):
        for c in range(16):
            lane, reg, byte = 4 * (c & 7) + ((r & 15) >> 2), 2 * (r >> 4) + (c >> 3), r & 3
            assert got[lane, reg, byte] == rows[order[r], c], (r, c)


def test_m16n16_x1_trans_b8(rng: np.random.Generator) -> None:
    """reg j, byte i of lane T = R_{4t+i}.b[g + 8j] (16 supplying lanes)."""
    rows = rng.integers(0, 256, size=(ROWS, 16), dtype=np.uint8)
    order = rng.permutation(ROWS)
    got = _launch("m16n16 x1 trans b8", 2, rows, order)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for j in range(2):
            assert got[lane, j].tolist() == [rows[order[4 * t + i], g + 8 * j] for i in range(4)]


def _nibbles(row: np.ndarray) -> list[int]:
    """Value v of a b4x16_p64 row: nibble v&1 of byte v>>1."""
    return [(int(row[v >> 1]) >> (4 * (v & 1))) & 0xF for v in range(16)]


def _six_bit(row: np.ndarray) -> list[int]:
    """Value v of a b6x16_p32 row: bits [6v+5:6v] of bytes 0..11, little-endian."""
    word = int.from_bytes(bytes(row[:12].tolist()), "little")
    return [(word >> (6 * v)) & 0x3F for v in range(16)]


@pytest.mark.parametrize("num", [1, 2, 4])
def test_m8n16_b4x16_p64(num: int, rng: np.random.Generator) -> None:
    """reg i byte b of lane T = value 4t+b of row R_{8i+g} as 0000xxxx; the 8 padding bytes are
    never written, which must not count as a read of unwritten memory."""
    rows = rng.integers(0, 256, size=(ROWS, 16), dtype=np.uint8)
    order = rng.permutation(ROWS)
    got = _launch(f"m8n16 x{num} b8x16.b4x16_p64", num, rows, order, data_bytes=8)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(num):
            values = _nibbles(rows[order[8 * i + g]])
            assert got[lane, i].tolist() == values[4 * t:4 * t + 4], (lane, i)


def test_m8n16_b6x16_p32(rng: np.random.Generator) -> None:
    rows = rng.integers(0, 256, size=(ROWS, 16), dtype=np.uint8)
    order = rng.permutation(ROWS)
    got = _launch("m8n16 x4 b8x16.b6x16_p32", 4, rows, order, data_bytes=12)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(4):
            assert got[lane, i].tolist() == _six_bit(rows[order[8 * i + g]])[4 * t:4 * t + 4], (lane, i)


def test_m16n16_x1_trans_b4x16_p64(rng: np.random.Generator) -> None:
    """Widened rows delivered with the .m16n16 .trans .b8 mapping (ptx.md §2.5, last paragraph)."""
    rows = rng.integers(0, 256, size=(ROWS, 16), dtype=np.uint8)
    order = rng.permutation(ROWS)
    got = _launch("m16n16 x1 trans b8x16.b4x16_p64", 2, rows, order, data_bytes=8)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for j in range(2):
            assert got[lane, j].tolist() == [_nibbles(rows[order[4 * t + i]])[g + 8 * j] for i in range(4)]


def test_unaligned_row_address_is_an_error() -> None:
    rows = np.zeros((ROWS, 16), dtype=np.uint8)
    with pytest.raises(EmulationError, match="16-byte aligned"):
        _launch("m8n8 x4 b16", 4, rows, np.arange(ROWS), offset_bias=8)


def test_row_past_shared_memory_is_an_error() -> None:
    rows = np.zeros((ROWS, 16), dtype=np.uint8)
    order = np.arange(ROWS)
    order[3] = ROWS + 1  # one row beyond the 528 bytes of shared memory
    with pytest.raises(EmulationError, match="out of range"):
        _launch("m8n8 x4 b16", 4, rows, order)
