"""The decoding-chain PTX edits: the magic-number form leaves no integer-to-float conversion and makes each product
the same rounding of the same exact value (checked here for every fp16 d and 6-bit v); the header is read once;
each edit refuses PTX it was not written for, and every edited kernel assembles without spills."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench.experiments import decode_chain_edits as sm
from passes.support.bank_conflicts import phase_wavefronts
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_ptx() -> str:
    return sm.compile_all()[0][3].ptx


def test_every_conversion_becomes_an_or_and_its_product_an_fma(goal_ptx: str) -> None:
    edited = sm.magic(goal_ptx)
    assert goal_ptx.count("cvt.rn.f32.u32") == 16 and "cvt.rn.f32.u32" not in edited
    assert edited.count(f", {sm.MAGIC};") == 16
    assert edited.count("fma.rn.f32") - goal_ptx.count("fma.rn.f32") == 16
    assert edited.count("0fCB000000;") == 2  # −2²³ · d and −2²³ · dmin, once each
    assert edited.count(sm.SIXTEENTH) == goal_ptx.count(sm.SIXTEENTH) == 4  # the odd sub-blocks' scales
    with pytest.raises(ValueError, match="goal kernel's as expected"):
        sm.magic(edited)


def test_the_sixteenths_fold_into_the_factor(goal_ptx: str) -> None:
    edited = sm.magic(goal_ptx, fold_sixteenth=True)
    assert edited.count(sm.SIXTEENTH) == 2  # d / 16 and dmin / 16 (the latter unused: no min is divided)
    assert edited.count("%qm_s0, %qm_ns0;") + edited.count("%qm_s1, %qm_ns1;") == 4


def test_the_fma_is_the_product_bit_for_bit() -> None:
    """fma(2²³ + v, d, −2²³·d) against mul(d, v) (and with d / 16, against mul(mul(d, v), 1/16)) over every finite
    fp16 d and every 6-bit v: the exact value is v·d (or v·d/16) in both, rounded once to fp32. The exact sums are
    formed in float64, where every term is exact (24 + 11 bits), then rounded to fp32 as the fma does. One
    difference: v = 0 with a negative d gives +0 where the product gives −0 (an exact zero's sign)."""
    d = np.arange(0, 1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    d = d[np.isfinite(d)].astype(np.float32)[:, None]
    v = np.arange(64, dtype=np.float32)[None, :]
    big = np.float64(2.0 ** 23)
    for factor, tail in ((d, np.float32(1.0)), (d * np.float32(1 / 16), np.float32(1 / 16))):
        fma = ((big + v) * factor.astype(np.float64) - big * factor.astype(np.float64)).astype(np.float32)
        mul = (d * v) * tail  # compiled: mul.rn(d, v), then for the odd sub-blocks' scales mul.rn(·, 1/16)
        nonzero = mul != 0
        assert np.array_equal(fma.view(np.uint32)[nonzero], mul.view(np.uint32)[nonzero])
        assert not fma[~nonzero].any() and not np.signbit(fma[~nonzero]).any()


def test_header_once_reads_the_header_once(goal_ptx: str) -> None:
    edited = sm.header_once(goal_ptx)
    assert goal_ptx.count("ld.shared.v4.b32") - edited.count("ld.shared.v4.b32") == 1
    assert len(edited.splitlines()) - len(goal_ptx.splitlines()) == 3  # one load, four moves
    with pytest.raises(ValueError, match="0 pairs of header loads"):
        sm.header_once(edited)


def test_pad_48_moves_every_decoded_scale_row(goal_ptx: str) -> None:
    edited = sm.padded_rows(goal_ptx)
    before = sorted(int(x) for x in re.findall(r"\[%r2[01]\+(\d+)\]", goal_ptx))
    after = sorted(int(x) for x in re.findall(r"\[%r2[01]\+(\d+)\]", edited))
    assert len(before) == len(after) == 68 and len(set(after)) == len(set(before))
    assert min(after) == sm.DECODED_AT and max(after) < sm.DECODED_AT + 2 * 64 * sm.PADDED_ROW_BYTES
    assert 23040 + 64 * 48 + 16 in after  # the min part's row 0, its second 16 bytes
    assert all(line not in edited for line in sm._ROW_STRIDES)  # noqa: SLF001
    _edit, _shapes, extra = sm.EDITS["pad-48"]
    own = sm.goal_kernel()[0][3].kernels[0].shared_bytes
    assert sm.DECODED_AT + 2 * 64 * sm.ROW_BYTES == own and extra == 2048
    with pytest.raises(ValueError, match="goal kernel's as expected"):
        sm.padded_rows(edited)


def test_swizzle_halves_swaps_the_halves_of_rows_with_bit_2_set(goal_ptx: str) -> None:
    edited = sm.swizzled_halves(goal_ptx)
    assert "[%r20+" not in edited and "[%r21+" not in edited
    assert edited.count("[%qsw1+") == edited.count("[%qsw2+") == 2  # the stores of each part's two halves
    assert edited.count("[%qsr1+") == edited.count("[%qsr2+") == 32
    assert "bfe.u32 \t%qsw0, %r1, 2, 1;" in edited and "bfe.u32 \t%qsr0, %r1, 4, 1;" in edited
    with pytest.raises(ValueError, match="goal kernel's as expected"):
        sm.swizzled_halves(edited)
    # the swap each reader applies is its rows' bit 2: rows g, g + 8, 32 + g, 40 + g (+ 16 per warp), g = lane / 4
    for tid in range(64):
        g, warp = tid % 32 // 4, tid // 32
        assert {(row >> 2) & 1 for row in (g, g + 8, 32 + g, 40 + g)} == {(tid >> 4) & 1}
        assert ((tid % 32 + 32 * warp) >> 2) & 1 == (tid >> 2) & 1  # the writer's row is tid


@pytest.mark.parametrize("row_bytes,wavefronts", [(32, 2), (48, 1)])
def test_a_quarter_warps_row_stores_by_row_stride(row_bytes: int, wavefronts: int) -> None:
    """The reason for ``pad-48`` and ``swizzle-halves``: eight threads each store 16 bytes of their own row; the
    store takes as many wavefronts as the most of them that fall on one 16-byte slot of the 128-byte bank row."""
    for half in (0, 16):
        assert phase_wavefronts([t * row_bytes + half for t in range(8)], 16).taken == wavefronts
        assert phase_wavefronts([t * 32 + (half ^ 16 * (t >> 2 & 1)) for t in range(8)], 16).taken == 1


@needs_ptxas
@pytest.mark.parametrize("name", sorted(sm.EDITS))
def test_every_edit_assembles_without_spills(goal_ptx: str, name: str) -> None:
    edit, *_shapes_and_bytes = sm.EDITS[name]
    assembled(edit(goal_ptx))
