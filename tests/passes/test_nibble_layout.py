"""The upcast's nibble mapping (``passes.support.upcasts.nibble_of``, and q6_K's and q5_K's ``high_bits_of``)
against ``compiler.numerics``.

The lowering finds the byte and nibble of every value of a q4_K / q4_0 operand from the span rule
of ``register_formats.nibble_span``; ``compiler.numerics`` reads ggml's layouts its own way
(``block_fields``). Here blocks packed by numerics from distinct random codes are read back through
``nibble_of``, byte by byte, so a wrong span, half or byte order picks a wrong code. The emulator
and GPU tests check the same end to end, slowly; this fails first and says which value.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler.numerics import Q4KFields, Q5KFields, Q6KFields, Q8Fields, pack_blocks
from dialects.qgpu.block_parts import Q4_0_QS, Q4K_QS, Q5K_QH, Q5K_QS, Q6K_QH, Q6K_QL, SPECS
from dialects.qdot.formats import Format
from dialects.qgpu.register_formats import RegFormat
from passes.support.upcasts import high_bits_of, nibble_of

_RNG = np.random.default_rng(11)


def _blocks(fmt: Format, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(qs bytes of ``count`` consecutive blocks, each value's code 0..15 in value order)."""
    if fmt is Format.Q4_K:
        codes = _RNG.integers(0, 16, size=(count, 256)).astype(np.uint8)
        ones = np.ones(count, np.float32)
        fields = Q4KFields(d=ones, dmin=ones, scales=np.ones((count, 8), np.uint8),
                           mins=np.zeros((count, 8), np.uint8), q=codes)
        first = Q4K_QS
    else:
        codes = _RNG.integers(0, 16, size=(count, 32)).astype(np.uint8)
        fields = Q8Fields(d=np.ones(count, np.float32), q=(codes.astype(np.int16) - 8).astype(np.int8))
        first = Q4_0_QS
    raw = pack_blocks(str(fmt), fields).reshape(count, -1)
    size = SPECS[(fmt, "qs")].values_per_block
    return raw[:, first:first + size].reshape(-1), codes.reshape(-1)


@pytest.mark.parametrize("fmt,reg", [(Format.Q4_K, RegFormat.Q4_K), (Format.Q4_0, RegFormat.Q4_0)],
                         ids=["q4_K", "q4_0"])
def test_nibble_of_reads_what_numerics_packed(fmt: Format, reg: RegFormat) -> None:
    qs, codes = _blocks(fmt, 3)
    for k, want in enumerate(codes):
        byte, nibble = nibble_of(reg, k)
        got = (int(qs[byte]) >> (4 * nibble)) & 0xF
        assert got == want, f"{fmt} value {k}: byte {byte} nibble {nibble} holds {got}, numerics packed {want}"


def test_q6_K_low_and_top_bits_read_what_numerics_packed() -> None:
    """Each q6_K code from its ql nibble (``nibble_of``, 128-value spans) and its qh bit pair
    (``high_bits_of``), over three consecutive blocks' parts as the block views lay them out."""
    count = 3
    codes = _RNG.integers(0, 64, size=(count, 256)).astype(np.int16)
    fields = Q6KFields(d=np.ones(count, np.float32), scales=np.ones((count, 16), np.int8),
                       q=(codes - 32).astype(np.int8))
    raw = pack_blocks("q6_K", fields).reshape(count, -1)
    ql = raw[:, Q6K_QL:Q6K_QL + SPECS[(Format.Q6_K, "ql")].values_per_block].reshape(-1)
    qh = raw[:, Q6K_QH:Q6K_QH + SPECS[(Format.Q6_K, "qh")].values_per_block].reshape(-1)
    for k, want in enumerate(codes.reshape(-1)):
        byte, nibble = nibble_of(RegFormat.Q6_K, k)
        top_byte, pair = high_bits_of(RegFormat.Q6_K, k)
        got = ((int(ql[byte]) >> (4 * nibble)) & 0xF) | (((int(qh[top_byte]) >> (2 * pair)) & 3) << 4)
        assert got == want, f"q6_K value {k}: ql {byte}/{nibble}, qh {top_byte}/{pair} give {got}, numerics packed {want}"


def test_q5_K_low_and_top_bits_read_what_numerics_packed() -> None:
    """Each q5_K code from its qs nibble (``nibble_of``, q4_K's 64-value spans) and its qh bit
    (``high_bits_of``: eight per byte, one 256-value group), over three consecutive blocks' parts."""
    count = 3
    codes = _RNG.integers(0, 32, size=(count, 256)).astype(np.uint8)
    ones = np.ones(count, np.float32)
    fields = Q5KFields(d=ones, dmin=ones, scales=np.ones((count, 8), np.uint8), mins=np.zeros((count, 8), np.uint8),
                       q=codes)
    raw = pack_blocks("q5_K", fields).reshape(count, -1)
    qs = raw[:, Q5K_QS:Q5K_QS + SPECS[(Format.Q5_K, "qs")].values_per_block].reshape(-1)
    qh = raw[:, Q5K_QH:Q5K_QH + SPECS[(Format.Q5_K, "qh")].values_per_block].reshape(-1)
    for k, want in enumerate(codes.reshape(-1)):
        byte, nibble = nibble_of(RegFormat.Q5_K, k)
        top_byte, bit = high_bits_of(RegFormat.Q5_K, k)
        got = ((int(qs[byte]) >> (4 * nibble)) & 0xF) | (((int(qh[top_byte]) >> bit) & 1) << 4)
        assert got == want, f"q5_K value {k}: qs {byte}/{nibble}, qh {top_byte}/{bit} give {got}, numerics packed {want}"
