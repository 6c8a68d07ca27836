"""The decode kernels read each weight byte from global memory once, whatever M is (seed 000, §12).

The M ≤ 8 (and widened) kernels keep M as a register loop over the token columns, never a grid
dimension; their grid test (``test_small_m_grid_does_not_depend_on_m``) shows the grid does not grow with
M, which does not by itself show that no program reads a weight twice. Here the emulator counts, per byte
of W, the global loads and cp.async copies that read it over a whole launch: a decode kernel over W
repacked by ``tile_weights`` (the goal rows' kernels) reads every byte exactly once at every M it takes,
and the prefill grid, whose token tiles each read all of W, is seen reading it once per token tile — so
the count can tell. It found each K split's program reading one tile more than its share: its copy
ahead in the last iteration took its own last tile again (W declared in bounds: qdot-pipeline's
``_ahead_in_loop``) or the next split's first (ggml's order) — at the goal row, 5 tiles of W for each
program's 4 K steps — until qdot-pipeline tested the loop's end for tiles declared in bounds. W in
ggml's order, whose copies test their bounds, still reads the next split's first tile (the test would
cost those kernels registers: qdot-pipeline's ``_copy_group``) — the same bytes at every M.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from compiler.mmq_template import MmqConfig, mmq_grid
from targets.ptx.emulator import emulate
from targets.ptx.emulator.memory import GlobalMemory
from tests.emulator.lowering import lower_mmq
from tests.gpu.mmq_harness import MmqCase, check, kernel_weights, make_inputs, poisoned_output, reference


@contextmanager
def counting_reads(array: np.ndarray) -> Iterator[np.ndarray]:
    """Counts of how many times each byte of ``array`` is read by the emulated launches in the block: by how
    many executions of a load or cp.async, in any CTA (the threads of one execution reading the same byte count
    once, as a warp's request for it does)."""
    counts = np.zeros(array.nbytes, dtype=np.int64)
    load = GlobalMemory.load

    def counted(self: GlobalMemory, addresses: np.ndarray, size: int, threads: np.ndarray, what: str = "global load",
                align: int | None = None) -> np.ndarray:
        data = load(self, addresses, size, threads, what, align)
        index, offset = self._locate(addresses, size, threads, what, 1, gated=False)
        mine = [i for i, a in enumerate(self.arrays) if a is array]
        for buf in mine:  # a byte several threads of one instruction read is fetched once
            sel = index == buf
            counts[np.unique(offset[sel, None] + np.arange(size))] += 1
        return data

    GlobalMemory.load = counted  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        GlobalMemory.load = load  # type: ignore[method-assign]


def _reads_of_w(case: MmqCase) -> np.ndarray:
    data = make_inputs(case, np.random.default_rng(11))
    w = kernel_weights(case.cfg, data["w"])
    y = poisoned_output(case)
    module = lower_mmq(case.cfg, num_stages=2)
    with counting_reads(w) as counts:
        emulate(module, case.cfg.name, [data["x"], w, y, case.m, case.n, case.k],
                mmq_grid(case.cfg, case.m, case.n, case.k))
    ok, err = check(y, reference(case, data))
    assert ok, f"{case.id}: relative error {err:.3e}"
    return counts


DECODE = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True)
ONE_TOKEN = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1)
WIDE = MmqConfig(small_m=True, block_n=32, num_warps=2, max_m=32, k_blocks=2)


def _repacked(cfg: MmqConfig) -> MmqConfig:
    return MmqConfig(**{**cfg.__dict__, "tiled_weights": True})


@pytest.mark.slow
@pytest.mark.parametrize("case", [
    MmqCase(_repacked(DECODE), m=1, n=48, k=1280),  # 2 K splits of 3 and 2 super-blocks
    MmqCase(_repacked(DECODE), m=8, n=48, k=1280),
    MmqCase(_repacked(ONE_TOKEN), m=1, n=64, k=2048),  # 4 K splits of 2 super-blocks: the goal kernel's form
    MmqCase(WIDE, m=17, n=64, k=1024),  # no K split: ggml's order reads each byte once too
], ids=lambda c: c.id)
def test_decode_kernel_reads_each_weight_byte_once(case: MmqCase) -> None:
    counts = _reads_of_w(case)
    assert counts.min() == counts.max() == 1, np.bincount(counts)


@pytest.mark.slow
@pytest.mark.parametrize("cfg", [DECODE, ONE_TOKEN], ids=lambda c: c.name)
def test_ggml_order_split_reads_the_next_splits_first_block_again_whatever_m(cfg: MmqConfig) -> None:
    """W in ggml's order: every byte once, but for the first super-block of each K split after the first,
    which the split before it copies ahead and does not use — the same bytes at M = 1 and at the kernel's
    largest M (the weights-once invariant is about M, which this does not break)."""
    n, k = 64, 2048
    first = None
    for m in (1, cfg.max_m):
        counts = _reads_of_w(MmqCase(cfg, m=m, n=n, k=k)).reshape(n, k // 256, 144)
        splits = mmq_grid(cfg, m, n, k)[1]
        per = -(-(k // 256) // splits)
        again = [s * per for s in range(1, splits) if s * per < k // 256]
        assert again, "the case must split K"
        expected = np.ones_like(counts)
        expected[:, again, :] = 2
        assert np.array_equal(counts, expected), np.bincount(counts.reshape(-1))
        first = counts if first is None else first
        assert np.array_equal(counts, first)


@pytest.mark.slow
def test_prefill_grid_reads_w_once_per_token_tile() -> None:
    """The contrast: 40 tokens on 32-token tiles make two tiles, each reading all of W."""
    counts = _reads_of_w(MmqCase(MmqConfig(block_m=32, block_n=64, num_warps=4), m=40, n=64, k=512))
    assert counts.min() == counts.max() == 2, np.bincount(counts)


@pytest.mark.slow
def test_unguarded_kernel_reads_each_splits_last_tile_again() -> None:
    """``MmqConfig(guard_copies=False)``: the kernel's ``qdot.unguarded_copies`` reaches qdot-pipeline through the
    default pipeline, so each split's copy ahead in its last iteration takes the split's own last tile again (the
    form before the guard, ``_ahead_in_loop``) — read twice, the result the same."""
    cfg = MmqConfig(**{**_repacked(ONE_TOKEN).__dict__, "guard_copies": False})
    n, k = 64, 2048
    counts = _reads_of_w(MmqCase(cfg, m=1, n=n, k=k)).reshape(k // 256, -1)  # one 64-row tile per K step
    splits = mmq_grid(cfg, 1, n, k)[1]
    per = -(-(k // 256) // splits)
    last = [min((s + 1) * per, k // 256) - 1 for s in range(splits) if s * per < k // 256]
    assert len(last) > 1, "the case must split K"
    expected = np.ones_like(counts)
    expected[last, :] = 2
    assert np.array_equal(counts, expected), np.bincount(counts.reshape(-1))
