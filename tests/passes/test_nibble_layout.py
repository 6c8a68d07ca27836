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
from dialects.qgpu.block_parts import Q4_0_QS, Q4K_QS, SPECS
from dialects.qdot.formats import Format
from dialects.qgpu.register_formats import HIGH_BITS, RegFormat
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


@pytest.mark.parametrize("fmt,reg,low_part", [(Format.Q6_K, RegFormat.Q6_K, "ql"), (Format.Q5_K, RegFormat.Q5_K, "qs")],
                         ids=["q6_K", "q5_K"])
def test_low_and_top_bits_read_what_numerics_packed(fmt: Format, reg: RegFormat, low_part: str) -> None:
    """Each code of a two-part format from its low nibble (``nibble_of``: q6_K's 128-value spans,
    q5_K's q4_K-like 64) and its top bits in ``qh`` (``high_bits_of``: q6_K's bit pairs, q5_K's single
    bits), over three consecutive blocks' parts as the block views lay them out."""
    count, bits = 3, HIGH_BITS[reg]
    codes = _RNG.integers(0, 16 << bits, size=(count, 256))
    ones = np.ones(count, np.float32)
    fields = (Q6KFields(d=ones, scales=np.ones((count, 16), np.int8), q=(codes - 32).astype(np.int8))
              if fmt is Format.Q6_K else
              Q5KFields(d=ones, dmin=ones, scales=np.ones((count, 8), np.uint8), mins=np.zeros((count, 8), np.uint8),
                        q=codes.astype(np.uint8)))
    raw = pack_blocks(str(fmt), fields).reshape(count, -1)
    parts = [(SPECS[(fmt, part)].first_byte, SPECS[(fmt, part)].values_per_block) for part in (low_part, "qh")]
    low, qh = (raw[:, first:first + size].reshape(-1) for first, size in parts)
    for k, want in enumerate(codes.reshape(-1)):
        byte, nibble = nibble_of(reg, k)
        top_byte, group = high_bits_of(reg, k)
        top = (int(qh[top_byte]) >> (bits * group)) & ((1 << bits) - 1)
        got = ((int(low[byte]) >> (4 * nibble)) & 0xF) | top << 4
        assert got == want, (f"{fmt} value {k}: {low_part} {byte}/{nibble}, qh {top_byte}/{group} give {got}, "
                             f"numerics packed {want}")
