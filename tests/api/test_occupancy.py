"""``compiler.occupancy``: the programs per SM the split-K grids, the runner's spread and
``bench.kernel_resources`` count with — the CUDA occupancy calculator's rule for an H200 SM."""

from __future__ import annotations

import pytest

from bench.kernel_resources import occupancy
from compiler.occupancy import CARVEOUTS_KB, carveout_kb, carveout_percent, programs_per_sm


@pytest.mark.parametrize("shared,threads,registers,expected", [
    (27136, 64, 109, (8, "registers")),       # q4_K's one-token decode: 109 → 112, 18 warps → 16: 8 (a tie)
    (24064, 64, 135, (6, "registers")),       # run 214, the driver: 135 → 136, 15 warps → 12 warps: 6, not 7
    (24064, 64, 137, (6, "registers")),       # the same for 137 (iq4_xs's one-token ggml-order kernel)
    (15360, 64, 166, (6, "registers")),       # q2_K's: 166 → 168 registers, 10752 per program
    (15360, 64, 160, (6, "registers")),       # 160 is already a multiple of 8: still 6 (10240 → 6.4)
    (15360, 64, 77, (12, "registers")),       # 77 → 80: 5120 per program
    (83968, 128, 255, (2, "registers")),      # the prefill tile: 255 → 256, 32768 per program
    (27392, 64, 114, (8, "registers")),       # a tie (8 by each) names registers, as bench tables did
    (0, 1024, 0, (2, "threads")),             # 2048 threads per SM
    (0, 32, 16, (32, "programs")),            # the per-SM program limit
    (120000, 0, 0, (1, "shared memory")),     # threads and registers not counted
    (32329, 64, 128, (6, "shared memory")),   # allocated in 128-byte units: 6 × (32384 + 1024), as the driver said
    (32257, 64, 128, (6, "shared memory")),   # the same allocation
    (32256, 64, 128, (7, "shared memory")),   # 7 × (32256 + 1024) = 232960 fits
])
def test_programs_per_sm(shared: int, threads: int, registers: int, expected: tuple[int, str]) -> None:
    assert programs_per_sm(shared, threads, registers) == expected


def test_kernel_resources_counts_the_same() -> None:
    assert occupancy(166, 2, 15360) == programs_per_sm(15360, 64, 166) == (6, "registers")


def test_bad_figures_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="programs_per_sm: got shared_bytes = -1"):
        programs_per_sm(-1)


@pytest.mark.parametrize("programs,shared,expected", [
    (8, 24064, 196),   # run 213: 8 × 25088 = 200704 B, exactly 196 KB — 60 KB of L1
    (8, 24192, 228),   # 128 bytes more: 8 programs no longer fit 196 KB — 28 KB of L1, 18 % slower (run 212)
    (6, 32329, 196),   # allocated as 32384: 6 × 33408 = 200448 B
    (7, 31488, 228),   # q5_K's / q6_K's decode kernels at 7 per SM (run 214: 5–9 % faster alone at 6 and 196 KB)
    (2, 83968, 196),   # the prefill tile: 2 × 84992 = 169984 B, past 164 KB
    (1, 0, 0),         # no shared memory
])
def test_carveout_is_the_smallest_configuration_that_holds_the_programs(programs: int, shared: int,
                                                                         expected: int) -> None:
    assert carveout_kb(programs, shared) == expected


@pytest.mark.parametrize("kb", CARVEOUTS_KB)
def test_carveout_percent_gives_back_that_configuration(kb: int) -> None:
    """The driver takes the smallest configuration at least the preferred percentage of the largest (run 213: 85 %
    gave 196 KB), so the percentage must land in (previous configuration, kb]."""
    percent = carveout_percent(kb)
    asked = percent * CARVEOUTS_KB[-1] / 100
    assert min(c for c in CARVEOUTS_KB if c >= asked) == kb


def test_carveout_percent_refuses_what_is_no_configuration() -> None:
    with pytest.raises(ValueError, match="100 KB is not one of the configurations"):
        carveout_percent(100, shared_per_sm=64 * 1024)
    with pytest.raises(ValueError, match="97 KB is not one of the configurations"):
        carveout_percent(97)
