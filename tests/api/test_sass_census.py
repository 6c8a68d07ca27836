"""``bench.sass_census.k_loop``: which loop of a kernel's SASS the census counts."""

from __future__ import annotations

from bench.sass_census import k_loop


def _ops(*spans: tuple[int, int, str]) -> list[tuple[int, str]]:
    """Instructions every 0x10 bytes over each (first, last, opcode) span."""
    return [(at, op) for first, last, op in spans for at in range(first, last + 1, 0x10)]


def test_the_k_loop_inside_a_segment_loop() -> None:
    """A stream-K kernel: its loop over tile segments holds the K loop and the epilogue's stores (run 269)."""
    ops = _ops((0x100, 0x1f0, "IADD3"), (0x200, 0x7f0, "IMMA"), (0x800, 0x8f0, "REDG"))
    assert k_loop([(0x200, 0x7f0), (0x100, 0x8f0)], ops) == (0x200, 0x7f0)


def test_the_innermost_loop_with_the_most_mma() -> None:
    """Two innermost loops: a larger one without mma (a fix-up's piece loop, say) and the K loop."""
    ops = _ops((0x100, 0x4f0, "FADD"), (0x600, 0x7f0, "HMMA"))
    assert k_loop([(0x100, 0x4f0), (0x600, 0x7f0)], ops) == (0x600, 0x7f0)


def test_without_mma_the_largest_innermost_loop() -> None:
    ops = _ops((0x100, 0x8f0, "FFMA"))
    assert k_loop([(0x100, 0x1f0), (0x300, 0x6f0), (0x100, 0x8f0)], ops) == (0x300, 0x6f0)
