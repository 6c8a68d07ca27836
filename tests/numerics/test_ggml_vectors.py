"""Bit-exactness against vectors produced by ggml's own code (not by compiler.numerics).

``data/ggml_cpu_ref.txt`` holds the bytes that ggml's C functions
``quantize_row_q8_0_ref``, ``quantize_row_q8_1_ref``, ``quantize_row_q4_K_ref`` and
``quantize_row_q4_0_ref`` wrote for the inputs of ``INPUT_CASES`` (ggml commit d99724f2,
``src/ggml-quants.c`` compiled with ``gcc -O2 -ffp-contract=off`` on x86-64), and the
SHA-256 of the float32 bytes that its ``dequantize_row_q4_K`` and ``dequantize_row_q4_0``
returned for them. q4_K and q4_0 cover ``VALUES_PER_CASE`` values per case, q8_0/q8_1 the
first ``Q8_VALUES``. The inputs come from ``numpy.random.RandomState``, whose streams numpy
keeps stable across versions.

``data/ggml_cpu_q4_0_edges.txt`` holds crafted float32 inputs and the q4_0 bytes (and
dequantized SHA-256) that the same ggml build produced for them: exact and one-ulp rounding
ties, non-power-of-two and fp16-subnormal scales, and sign ties, which no case of
``INPUT_CASES`` reaches.

``data/ggml_cpu_q6_K.txt`` holds what ggml's ``quantize_row_q6_K_ref`` and ``dequantize_row_q6_K``
(same commit, gcc 12.2 -O2 -ffp-contract=off, x86-64) produced for every case of ``INPUT_CASES`` and
for crafted edge inputs (zero blocks, scales at and below ggml's 1e-15 threshold, fp16-subnormal d).
``data/ggml_cpu_q5_K.txt`` likewise holds ``quantize_row_q5_K_ref`` and ``dequantize_row_q5_K``'s output
(same commit and build) for every case and for 20 crafted edge super-blocks, named in its header
(zero, constant and few-level blocks, fp16-subnormal and underflowing d and dmin, scales next to
``63 / max_scale``'s overflow, sub-blocks whose 6-bit scale rounds to 0).
``data/ggml_cpu_q2_K.txt`` and ``data/ggml_cpu_q3_K.txt`` hold what ``quantize_row_q2_K_ref`` /
``quantize_row_q3_K_ref`` and ``dequantize_row_q2_K`` / ``dequantize_row_q3_K`` produced (same commit and
build) for every case and for 22 crafted edge super-blocks each, named in each header (zero, constant and
few-level blocks, fp16-subnormal and underflowing d and dmin, 4- and 6-bit scales that round to 0 or tie,
q3_K's 1e-15 threshold and its sign tie between scales, sums in float32 subnormals, d near fp16's largest).
``data/ggml_cpu_iq4_nl.txt`` and ``data/ggml_cpu_iq4_xs.txt`` hold what ``quantize_iq4_nl`` (quant_weights NULL,
``quantize`` method ``"chunk"``) / ``quantize_row_iq4_xs_ref`` and ``dequantize_row_iq4_nl`` / ``_iq4_xs`` produced
(same commit and build) for every case and for 32 crafted blocks / 22 crafted super-blocks, named in each header
(zero, constant and few-level blocks, amax at and one ulp below 1e-15, exact ties between kvalues and one ulp
either side, fp16-subnormal, flushed and overflowing d, sums in float32 subnormals, sub-block scales that round
to 0 or clamp). ``data/ggml_cpu_iq4_nl_ref.txt`` holds ``quantize_row_iq4_nl_ref``'s bytes (method ``"ref"``)
for the same inputs, less case zero_blocks (its leading blocks below 1e-15 take their codes from uninitialized
memory in C); its edge blocks, one call, show such blocks keeping the codes of the row's block before them.
``data/ggml_cpu_q4_1.txt``, ``data/ggml_cpu_q5_0.txt`` and ``data/ggml_cpu_q5_1.txt`` hold what
``quantize_row_q4_1_ref`` / ``_q5_0_ref`` / ``_q5_1_ref`` and the matching ``dequantize_row_*`` produced
(same commit and build) for every case and for about 20 crafted 32-value edge blocks each, named in each
header (signed-zero and constant blocks, rounding ties and one ulp either side, codes that x / d or the
fp16 d would change, fp16-subnormal, flushed and overflowing d and m, 1/d overflowing to Inf).
``data/ggml_cpu_mxfp4.txt`` holds what ``quantize_row_mxfp4_ref`` and ``dequantize_row_mxfp4`` produced (same
commit and build, glibc 2.36's ``log2f``) for every case and for 70 crafted edge blocks named in its header
(zero and signed-zero blocks, ties between kvalues and one ulp either side at normal and subnormal d, amax
at and 1-3 ulps below powers of two, where ``log2f`` rounds up or not, the largest floats, and amax below
2^-125, where the ``uint8_t`` exponent wraps).

``data/cuda_q8_1.txt`` holds inputs and the blocks that llama.cpp's CUDA kernels
``quantize_q8_1`` and ``quantize_mmq_q8_1<DS4>`` (their arithmetic transcribed from
ggml-cuda/quantize.cu, built with nvcc 13.0 for sm_90 without ``-use_fast_math``)
wrote on an NVIDIA H200.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from compiler.numerics import (
    IQ4NL_KVALUES,
    IQ4XSFields,
    Q2KFields,
    Q3KFields,
    Q5KFields,
    Q8Fields,
    Q41Fields,
    Q51Fields,
    block_fields,
    dequantize,
    format_info,
    quantize,
)

DATA = Path(__file__).parent / "data"


def _normal(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.standard_normal(n)


def _sparse(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.standard_normal(n) * (rs.random_sample(n) < 0.1)


def _constant_runs(rs: np.random.RandomState, n: int) -> np.ndarray:
    return np.repeat(rs.standard_normal(n // 32), 32)


def _halves(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.randint(-254, 255, n) * 0.5


def _positive(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.uniform(0.0, 1.0, n)


def _negative(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.uniform(-3.0, -1.0, n)


def _heavy_tailed(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.standard_t(2, n)


def _small_weights(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.standard_normal(n) * 0.02


def _small_ints(rs: np.random.RandomState, n: int) -> np.ndarray:
    return rs.randint(-8, 8, n).astype(np.float64)


def _with_zero_blocks(rs: np.random.RandomState, n: int) -> np.ndarray:
    x = rs.standard_normal(n)
    x[: n // 2] = 0.0
    return x


INPUT_CASES: dict[str, Callable[[np.random.RandomState, int], np.ndarray]] = {
    "normal": _normal,
    "sparse": _sparse,
    "constant_runs": _constant_runs,
    "halves": _halves,
    "positive": _positive,
    "negative": _negative,
    "heavy_tailed": _heavy_tailed,
    "small_weights": _small_weights,
    "small_ints": _small_ints,
    "zero_blocks": _with_zero_blocks,
}
VALUES_PER_CASE = 8 * 256
Q8_VALUES = 8 * 32


def case_input(name: str) -> np.ndarray:
    """float32 input of one case: seed = the case's position in INPUT_CASES."""
    seed = list(INPUT_CASES).index(name)
    return INPUT_CASES[name](np.random.RandomState(seed), VALUES_PER_CASE).astype(np.float32)


def _read_sections(path: Path) -> dict[tuple[str, str], bytes]:
    """``[case kind]`` headers followed by hex lines; '#' lines are comments."""
    sections: dict[tuple[str, str], list[str]] = {}
    key: tuple[str, str] | None = None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            case, kind = line.strip("[]").split()
            key = (case, kind)
            sections[key] = []
        else:
            assert key is not None
            sections[key].append(line)
    return {k: bytes.fromhex("".join(v)) for k, v in sections.items()}


@functools.cache
def cpu_ref() -> dict[tuple[str, str], bytes]:
    return _read_sections(DATA / "ggml_cpu_ref.txt")


@functools.cache
def q4_0_edges() -> dict[tuple[str, str], bytes]:
    return _read_sections(DATA / "ggml_cpu_q4_0_edges.txt")


@functools.cache
def format_vectors(fmt: str) -> dict[tuple[str, str], bytes]:
    """``data/ggml_cpu_<fmt>.txt``: every case and the crafted edges of one format."""
    return _read_sections(DATA / f"ggml_cpu_{fmt}.txt")


@functools.cache
def cuda() -> dict[tuple[str, str], bytes]:
    return _read_sections(DATA / "cuda_q8_1.txt")


def test_vector_files_cover_every_case() -> None:
    kinds = {"q8_0", "q8_1", "q4_K", "q4_K_dequant_sha256", "q4_0", "q4_0_dequant_sha256"}
    assert {(c, k) for c in INPUT_CASES for k in kinds} == set(cpu_ref())
    assert set(q4_0_edges()) == {("edges", k) for k in ("input", "q4_0", "q4_0_dequant_sha256")}
    assert {k for _, k in cuda()} == {"input", "q8_1", "q8_1_mmq"}
    for fmt in VECTOR_FORMATS:
        per_case = {(c, k) for c in INPUT_CASES for k in (fmt, f"{fmt}_dequant_sha256")}
        assert set(format_vectors(fmt)) == per_case | {("edges", k) for k in ("input", fmt, f"{fmt}_dequant_sha256")}


VECTOR_FORMATS = ("q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "q5_K", "q6_K", "mxfp4", "iq4_nl", "iq4_xs")
"""The formats with a vector file of their own, ``data/ggml_cpu_<fmt>.txt``."""


def _format_case(fmt: str, case: str) -> tuple[np.ndarray, bytes, bytes]:
    """(input, ggml's ``fmt`` bytes, SHA-256 of ggml's dequantization of them) of one case."""
    vectors = format_vectors(fmt)
    x = (np.frombuffer(vectors[(case, "input")], dtype="<f4").astype(np.float32) if case == "edges"
         else case_input(case))
    return x, vectors[(case, fmt)], vectors[(case, f"{fmt}_dequant_sha256")]


@pytest.mark.parametrize("case", [*INPUT_CASES, "edges"])
@pytest.mark.parametrize("fmt", VECTOR_FORMATS)
def test_format_vectors_match_ggml_c(fmt: str, case: str) -> None:
    x, want_bytes, want_sha = _format_case(fmt, case)
    info = format_info(fmt)
    size = info.block_bytes
    assert size is not None
    want = np.frombuffer(want_bytes, dtype=np.uint8)
    assert want.size == x.size // info.block_values * size > 0
    got = quantize(fmt, x)
    differing = np.nonzero(np.any(got.reshape(-1, size) != want.reshape(-1, size), axis=1))[0]
    assert differing.size == 0, f"{fmt} blocks {differing.tolist()} differ from ggml for case {case}"
    assert hashlib.sha256(dequantize(fmt, want).astype("<f4").tobytes()).digest() == want_sha


def test_q5_K_edge_vectors_reach_their_edges() -> None:
    """The crafted q5_K blocks of the vector file do reach the paths their header names (read from
    ggml's bytes, not from ours)."""
    x, raw, _ = _format_case("q5_K", "edges")
    assert x.size == 20 * 256
    f = block_fields("q5_K", np.frombuffer(raw, dtype=np.uint8))
    assert isinstance(f, Q5KFields)
    assert not np.frombuffer(raw, dtype=np.uint8)[:176].any()  # block 0: all zero bytes
    subnormal = (f.d > 0) & (f.d < 2.0**-14)
    assert subnormal.any() and ((f.dmin > 0) & (f.dmin < 2.0**-14)).any()
    # d underflowed to 0 while dmin did not: step 1's codes stay (they are not all 0)
    kept = (f.d == 0) & (f.dmin > 0) & f.q.any(axis=-1)
    assert kept.any()
    # a sub-block whose 6-bit scale rounded to 0 beside one that did not (d != 0): codes of step 1
    assert ((f.d > 0) & (f.scales == 0).any(axis=-1) & (f.scales > 0).any(axis=-1)).any()
    assert (f.dmin > 2.0**15).any() and (f.q == 31).any() and (f.q == 0).any()


def test_q2_K_edge_vectors_reach_their_edges() -> None:
    """The crafted q2_K blocks reach the paths their header names (read from ggml's bytes, not ours)."""
    x, raw, _ = _format_case("q2_K", "edges")
    blocks = np.frombuffer(raw, dtype=np.uint8)
    f = block_fields("q2_K", blocks)
    assert isinstance(f, Q2KFields) and x.size == 22 * 256 == 256 * f.d.size
    assert not blocks[:84].any()  # block 0: all zero bytes
    # constant 2.5: the min clamped to 0, every code 3; constant -1.75: max == min, d = 0, every min 15
    assert (f.q[1] == 3).all() and f.dmin[1] == 0 and (f.scales[1] == 15).all()
    assert f.d[2] == 0 and (f.mins[2] == 15).all() and not f.q[2].any()
    assert ((f.d > 0) & (f.d < 2.0**-14)).any() and ((f.dmin > 0) & (f.dmin < 2.0**-14)).any()
    # d underflowed to 0 in fp16 (with and without dmin): step 1's codes stay (they are not all 0)
    assert f.d[13] == 0 and f.dmin[13] > 0 and f.q[13].any()
    assert f.d[14] == f.dmin[14] == 0 and f.q[14].any()
    # the loud sub-block: every other 4-bit scale 0, their codes those of step 1
    assert (f.scales[16] == 0).sum() == 15 and f.q[16].reshape(16, 16)[f.scales[16] == 0].any()
    # 15 * scale / max_scale = k + 0.5: nearest_int rounds the ties to even
    assert f.scales[19].tolist() == [0, 2, 2, 4, 4, 6, 6, 8, 9, 10, 10, 12, 12, 14, 14, 15]
    assert f.dmin[18] > 2.0**15 and f.d[18] > 2.0**14


def test_q3_K_edge_vectors_reach_their_edges() -> None:
    """The crafted q3_K blocks reach the paths their header names (read from ggml's bytes, not ours)."""
    x, raw, _ = _format_case("q3_K", "edges")
    blocks = np.frombuffer(raw, dtype=np.uint8)
    f = block_fields("q3_K", blocks)
    assert isinstance(f, Q3KFields) and x.size == 22 * 256 == 256 * f.d.size
    assert not blocks[:110].any()  # block 0: all zero bytes (L 0, not the centre 4; d = +0)
    # sub-blocks below 1e-15: scale code 32 (0) and L 0 (q = -4) beside scaled ones
    below = f.scales[6] == 0
    assert below.sum() == 11 and (f.q[6].reshape(16, 16)[below] == -4).all()
    # amax = float(1e-15) is not below the threshold: step 1's codes stay; one ulp below: L 0
    assert f.scales[7, 0] == f.scales[7, 1] == 0
    assert f.q[7, :16].tolist() == [-4, 2, -1, 3] * 4 and (f.q[7, 16:32] == -4).all()
    assert f.d[8] == 0 and (f.q[8] != -4).any()  # d underflowed: step 1's codes
    assert (f.d[9] != 0) and abs(f.d[9]) < 2.0**-14
    # equal |scale|, opposite signs: the first sets d (code 0, -32), the second clamps to 31
    assert f.scales[10, 2] == -32 and f.scales[10, 9] == 31
    assert (f.scales[13] == 0).sum() == 15 and (f.q[13].reshape(16, 16)[f.scales[13] == 0] != -4).any()
    assert abs(f.d[16]) > 2.0**15


@functools.cache
def iq4_nl_ref() -> dict[tuple[str, str], bytes]:
    """``data/ggml_cpu_iq4_nl_ref.txt``: ``quantize_row_iq4_nl_ref``'s bytes (every case but zero_blocks)."""
    return _read_sections(DATA / "ggml_cpu_iq4_nl_ref.txt")


REF_CASES = [c for c in INPUT_CASES if c != "zero_blocks"]
"""zero_blocks starts with blocks below 1e-15, whose ``quantize_row_iq4_nl_ref`` codes are uninitialized in C."""


def test_iq4_nl_ref_file_covers_every_defined_case() -> None:
    kinds = ("iq4_nl", "iq4_nl_dequant_sha256")
    assert set(iq4_nl_ref()) == {(c, k) for c in REF_CASES for k in kinds} | {("edges", k) for k in ("input", *kinds)}


@pytest.mark.parametrize("case", [*REF_CASES, "edges"])
def test_iq4_nl_ref_vectors_match_ggml_c(case: str) -> None:
    """``quantize("iq4_nl", x, method="ref")`` is ``quantize_row_iq4_nl_ref`` on x as one row."""
    vectors = iq4_nl_ref()
    x = np.frombuffer(vectors[("edges", "input")], "<f4").astype(np.float32) if case == "edges" else case_input(case)
    want = np.frombuffer(vectors[(case, "iq4_nl")], dtype=np.uint8)
    got = quantize("iq4_nl", x, method="ref")
    differing = np.nonzero(np.any(got.reshape(-1, 18) != want.reshape(-1, 18), axis=1))[0]
    assert differing.size == 0, f"iq4_nl ref blocks {differing.tolist()} differ from ggml for case {case}"
    assert hashlib.sha256(dequantize("iq4_nl", want).astype("<f4").tobytes()).digest() == vectors[
        (case, "iq4_nl_dequant_sha256")]
    if case != "edges":
        assert not np.array_equal(got, quantize("iq4_nl", x))  # the search of "chunk" is another quantizer


KV_IQ4 = np.array(IQ4NL_KVALUES, dtype=np.int8)


def test_iq4_nl_edge_vectors_reach_their_edges() -> None:
    """The crafted iq4_nl blocks reach the paths the headers name, in ggml's bytes: "chunk"
    (``quantize_iq4_nl``) requantizes a block below 1e-15 to code 8, "ref" keeps the row's earlier codes."""
    x, raw, _ = _format_case("iq4_nl", "edges")
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 18)
    ref_raw = np.frombuffer(iq4_nl_ref()[("edges", "iq4_nl")], dtype=np.uint8)
    f, r = block_fields("iq4_nl", blocks.reshape(-1)), block_fields("iq4_nl", ref_raw)
    assert isinstance(f, Q8Fields) and isinstance(r, Q8Fields) and x.size == 32 * 32 == 32 * f.d.size
    # below 1e-15 (zeros, signed zeros, 9e-16, one ulp under float(1e-15)) and blocks 28-29: d = +0, code 8
    for i in (1, 2, 3, 4, 28, 29):
        assert blocks[i].tobytes() == bytes(2) + bytes([0x88] * 16)
        assert (r.d[i] == 0) and not np.signbit(r.d[i])
    np.testing.assert_array_equal(r.q[1:5], np.broadcast_to(r.q[0], (4, 32)))  # ref: block 0's codes
    np.testing.assert_array_equal(r.q[28:30], np.broadcast_to(r.q[27], (2, 32)))
    assert (dequantize("iq4_nl", ref_raw).reshape(-1, 32)[1] == 0).all()  # -0 where block 0's kvalue < 0
    assert np.signbit(dequantize("iq4_nl", ref_raw).reshape(-1, 32)[1]).any()
    # amax exactly float(1e-15) is not below the threshold: d flushes to 0 in fp16, the codes do not
    assert f.d[5] == 0 and (f.q[5] != 1).any()
    # ref, d = 1 at step 2: each midpoint between kvalues goes up; one ulp below it down, one above it up
    assert r.q[11, 1:16].tolist() == KV_IQ4[1:].tolist()
    assert r.q[12, 1:16].tolist() == KV_IQ4[:15].tolist() and r.q[12, 16:31].tolist() == KV_IQ4[1:].tolist()
    # the kvalues themselves: both quantizers fit d = 1 exactly (d = 1/4 for them / 4)
    for q in (f, r):
        assert q.d[13] == 1 and q.q[13].tolist() == KV_IQ4.tolist() + KV_IQ4[::-1].tolist() and q.d[14] == 0.25
    assert 0 < abs(f.d[16]) < 2.0**-14 and f.d[17] == 0 and (f.q[17] != 1).any()  # subnormal, flushed
    assert 2.0**15 < abs(f.d[19]) < np.inf and np.isinf(f.d[20]) and np.isinf(r.d[20])
    # ref maps max to kvalue -127 (d = max / -127 at step 2), so its d has max's opposite sign; chunk's either
    values = x.reshape(-1, 32)
    peak = values[np.arange(32), np.argmax(np.abs(values), axis=1)]
    scaled = r.d != 0
    assert (np.sign(r.d[scaled]) == -np.sign(peak[scaled])).all() and (np.sign(f.d) == np.sign(peak)).any()


def test_iq4_xs_edge_vectors_reach_their_edges() -> None:
    """The crafted iq4_xs super-blocks reach the paths the header names (read from ggml's bytes, not ours)."""
    x, raw, _ = _format_case("iq4_xs", "edges")
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 136)
    f = block_fields("iq4_xs", blocks.reshape(-1))
    assert isinstance(f, IQ4XSFields) and x.size == 22 * 256 == 256 * f.d.size
    # all zero: d = -max_scale/32 = -0, every scale code 32 (scales_h 0xAAAA), every code 8
    assert blocks[0].tobytes() == bytes([0x00, 0x80, 0xAA, 0xAA]) + bytes(4) + bytes([0x88] * 128)
    # the sub-block of largest |scale| sets d: its code is 0 (scale -32) in every super-block but the zero one
    assert ((f.scales == -32).any(axis=-1) == (np.arange(22) != 0)).all()
    # zero sub-blocks and those whose scale rounds to 0: scale code 32, every code 8
    for i, zero in ((3, [0, 1, 3, 4, 5, 6, 7]), (6, [0, 1, 2, 3, 4, 5, 7]), (15, [0, 1, 2, 3, 4])):
        assert (f.scales[i, zero] == 0).all() and (f.q[i].reshape(8, 32)[zero] == 1).all()
    assert 0 < abs(f.d[7]) < 2.0**-14 and f.d[8] == 0 and (f.q[8] != 1).any()  # subnormal; flushed, codes kept
    assert 2.0**15 < abs(f.d[10]) < np.inf and np.isinf(f.d[11])
    # opposite signs, near-equal magnitudes: -32 for the larger, +32 clamped to 31 for the other
    assert f.scales[21, 5] == -32 and f.scales[21, 2] == 31


@pytest.mark.parametrize("fmt", ["q4_1", "q5_1"])
def test_q4_1_q5_1_edge_vectors_reach_their_edges(fmt: str) -> None:
    """The crafted blocks do reach the paths their headers name (read from ggml's bytes, not from ours)."""
    x, raw, _ = _format_case(fmt, "edges")
    f = block_fields(fmt, np.frombuffer(raw, dtype=np.uint8))
    assert isinstance(f, Q41Fields | Q51Fields) and x.size == 32 * f.d.size
    top = (1 << format_info(fmt).bits) - 1
    assert ((f.m == 0) & np.signbit(f.m)).any() and ((f.m == 0) & ~np.signbit(f.m) & (f.d == 0)).any()
    assert ((f.d > 0) & (f.d < 2.0**-14)).any() and ((f.m > 0) & (f.m < 2.0**-14)).any()
    assert ((f.d == 0) & f.q.any(axis=-1)).any()  # d flushed to 0 in fp16, codes of the float32 d kept
    assert (f.m == -np.inf).any() and (f.d > 2.0**15).any() and (f.q == top).any()
    # the tie block (d = 1, min 0): k + 0.5 rounds up, where rounding half to even would not
    ties = x.reshape(-1, 32)[7]
    assert f.d[7] == 1 and f.m[7] == 0
    np.testing.assert_array_equal(f.q[7], np.floor(ties + 0.5))
    assert (f.q[7] != np.rint(ties)).any()


def test_q5_0_edge_vectors_reach_their_edges() -> None:
    """As for q4_1 and q5_1: the q5_0 edge blocks reach what the header names, in ggml's bytes."""
    x, raw, _ = _format_case("q5_0", "edges")
    f = block_fields("q5_0", np.frombuffer(raw, dtype=np.uint8))
    assert isinstance(f, Q8Fields) and x.size == 32 * f.d.size
    blocks = x.reshape(-1, 32)
    assert ((f.d == 0) & np.signbit(f.d) & ~blocks.any(axis=-1)).any()  # a zero block: max stays +0, d = -0
    assert ((f.d == 0) & (f.q != -16).any(axis=-1)).any()  # d flushed to 0 in fp16, codes kept
    assert ((np.abs(f.d) > 0) & (np.abs(f.d) < 2.0**-14)).any() and (np.abs(f.d) > 2.0**15).any()
    # code 31 reached only through MIN(31, ...): the value of opposite sign and the peak's magnitude
    clamped = (f.q == 15) & (np.abs(blocks) == np.abs(blocks).max(axis=-1, keepdims=True))
    assert clamped.any()
    # the tie block (d = 1): x * id + 16.5f truncated rounds k + 0.5 up
    assert f.d[2] == 1
    np.testing.assert_array_equal(f.q[2], np.floor(blocks[2] + 0.5))
    assert (f.q[2] != np.rint(blocks[2])).any()


def test_mxfp4_edge_vectors_reach_their_edges() -> None:
    """The crafted mxfp4 blocks reach what the header names, read from ggml's bytes (not ours)."""
    x, raw, _ = _format_case("mxfp4", "edges")
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 17)
    inputs = x.reshape(-1, 32)
    assert len(blocks) == len(inputs) == 70
    e = blocks[:, 0].astype(int)
    codes = np.concatenate([blocks[:, 1:] & 0xF, blocks[:, 1:] >> 4], axis=-1)
    kv = np.array([0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12])[codes]
    every_file = np.concatenate([np.frombuffer(format_vectors("mxfp4")[(c, "mxfp4")], np.uint8) for c in INPUT_CASES])
    every = np.concatenate([every_file.reshape(-1, 17), blocks])[:, 1:]
    assert not ((every & 0xF) == 8).any() and not ((every >> 4) == 8).any()  # ggml never writes code 8 (-0)
    assert not blocks[:2].any()  # zero and signed-zero blocks: e = 0, every code 0
    # ties (d = 1, 2^20, 2^-20, subnormal 2^-128): the smaller magnitude; one ulp away: the larger
    for i, scale in ((2, 1.0), (5, 2.0**20), (8, 2.0**-128), (11, 2.0**-127), (12, 2.0**-126), (13, 2.0**124)):
        assert e[i] == round(np.log2(scale)) + 128
        assert kv[i, 1:15].tolist() == [0, 1, 2, 3, 4, 6, 8, 0, -1, -2, -3, -4, -6, -8]
    for i in (4, 7, 10):
        assert kv[i, 1:15].tolist() == [1, 2, 3, 4, 6, 8, 12, -1, -2, -3, -4, -6, -8, -12]
    # log2f rounds amax a few ulps below 2^k up to k (edges 15-62: amax = |first value|)
    amax = np.abs(inputs).max(axis=1).astype(np.float64)
    exact_floor = np.floor(np.log2(np.where(amax > 0, amax, 1)))
    rounded_up = np.nonzero((amax > 0) & (e != (exact_floor.astype(int) + 125) % 256))[0]
    assert set(rounded_up.tolist()) >= {24, 28, 29, 32, 33, 34, 36, 40, 44, 48, 49, 52, 56, 59, 61, 63, 65, 66}
    assert not {20, 25, 30, 45, 50, 60, 62, 64} & set(rounded_up.tolist())
    assert (e[rounded_up] == (exact_floor[rounded_up].astype(int) + 126) % 256).all()
    # the largest floats: e = 253, 8 * 2^125 overflows, FLT_MAX takes code 5 (6 * 2^125)
    assert e[63] == e[65] == 253 and (codes[65] % 8 == 5).all() and e[64] == 252
    # amax < 2^-125: the exponent wraps (x86's int32 conversion of a negative float, low byte), codes 0
    assert e[[55, 62, 67, 68, 69]].tolist() == [255, 255, 232, 251, 255] and e[61] == 0
    assert not codes[[55, 56, 57, 58, 62, 67, 68, 69]].any()


@pytest.mark.parametrize("case", list(INPUT_CASES))
@pytest.mark.parametrize("fmt", ["q8_0", "q8_1", "q4_K", "q4_0"])
def test_quantize_ref_matches_ggml_c(case: str, fmt: str) -> None:
    x = case_input(case)
    got = quantize(fmt, x if fmt in ("q4_K", "q4_0") else x[:Q8_VALUES], method="ref")
    want = np.frombuffer(cpu_ref()[(case, fmt)], dtype=np.uint8)
    block = {"q8_0": 34, "q8_1": 36, "q4_K": 144, "q4_0": 18}[fmt]
    differing = np.nonzero(np.any(got.reshape(-1, block) != want.reshape(-1, block), axis=1))[0]
    assert differing.size == 0, f"{fmt} blocks {differing.tolist()} differ from ggml for case {case}"


@pytest.mark.parametrize("case", list(INPUT_CASES))
@pytest.mark.parametrize("fmt", ["q4_K", "q4_0"])
def test_dequantize_matches_ggml_c(case: str, fmt: str) -> None:
    raw = np.frombuffer(cpu_ref()[(case, fmt)], dtype=np.uint8)
    got = dequantize(fmt, raw).astype("<f4").tobytes()
    assert hashlib.sha256(got).digest() == cpu_ref()[(case, f"{fmt}_dequant_sha256")]


def test_q4_0_edge_blocks_match_ggml_c() -> None:
    x = np.frombuffer(q4_0_edges()[("edges", "input")], dtype="<f4").astype(np.float32)
    want = np.frombuffer(q4_0_edges()[("edges", "q4_0")], dtype=np.uint8)
    got = quantize("q4_0", x, method="ref")
    differing = np.nonzero(np.any(got.reshape(-1, 18) != want.reshape(-1, 18), axis=1))[0]
    assert differing.size == 0, f"q4_0 edge blocks {differing.tolist()} differ from ggml"
    deq = dequantize("q4_0", want).astype("<f4").tobytes()
    assert hashlib.sha256(deq).digest() == q4_0_edges()[("edges", "q4_0_dequant_sha256")]


def _cuda_input() -> np.ndarray:
    return np.frombuffer(cuda()[("all", "input")], dtype="<f4").astype(np.float32)


def test_q8_1_cuda_matches_h200() -> None:
    got = quantize("q8_1", _cuda_input(), method="cuda")
    want = np.frombuffer(cuda()[("all", "q8_1")], dtype=np.uint8)
    differing = np.nonzero(np.any(got.reshape(-1, 36) != want.reshape(-1, 36), axis=1))[0]
    assert differing.size == 0, f"q8_1 blocks {differing.tolist()} differ from the H200"


def test_q8_1_mmq_cuda_mmq_matches_h200() -> None:
    got = quantize("q8_1_mmq", _cuda_input(), method="cuda_mmq")
    want = np.frombuffer(cuda()[("all", "q8_1_mmq")], dtype=np.uint8)
    differing = np.nonzero(np.any(got.reshape(-1, 144) != want.reshape(-1, 144), axis=1))[0]
    assert differing.size == 0, f"q8_1_mmq blocks {differing.tolist()} differ from the H200"


def test_mmq_kernel_arithmetic_differs_from_q8_1_kernel() -> None:
    """llama.cpp's two q8_1 kernels round differently: the methods must not be aliases."""
    x = _cuda_input()
    assert not np.array_equal(quantize("q8_1_mmq", x, method="cuda"), quantize("q8_1_mmq", x, method="cuda_mmq"))
