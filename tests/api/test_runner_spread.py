"""The runner's default dynamic shared memory: the kernel's own, except for a programmatic launch of a
one-wave grid, which is padded so that no SM takes more than ⌈programs / SMs⌉ of its programs (run 200:
never slower at the four decode shapes, up to 18 % faster). Here on an H200's properties, no GPU needed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from targets.ptx import runner
from targets.ptx.runner import LoadedKernel

H200 = (132, 233472, 1024)  # SMs, shared memory per SM, reserved per program


@pytest.fixture
def on_an_h200(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "device_shared", lambda cupy=None: H200)


def _kernel(shared_bytes: int, registers: int = 0) -> LoadedKernel:
    """A decode kernel's launch record (2 warps); ``registers`` per thread as the driver reports them
    (``num_regs`` of the loaded function; 0: it says nothing, so only shared memory counts)."""
    info = SimpleNamespace(name="k", shared_bytes=shared_bytes, waits_previous_grid=True, num_warps=2)
    return LoadedKernel(info, function=SimpleNamespace(num_regs=registers), block=(64, 1, 1))


def test_a_plain_launch_takes_the_kernels_own_shared_memory(on_an_h200: None) -> None:
    assert _kernel(23040).shared_bytes_for((512, 2, 1), programmatic=False) == 23040


def test_a_programmatic_one_wave_grid_is_capped_at_its_share_per_sm(on_an_h200: None) -> None:
    # q4_0's one-token decode at N = 32768, K = 8192: 1024 programs, 9 fit an SM at 23040 B, 8 at 24960 B
    assert _kernel(23040).shared_bytes_for((512, 2, 1), programmatic=True) == 24960
    assert 233472 // (24960 + 1024) == 8 < 233472 // (24960 - 128 + 1024)
    # 4096 x 14336: 896 programs, at most 7 per SM; a bare int grid counts the same
    assert _kernel(23040).shared_bytes_for(896, programmatic=True) == 28288
    assert 233472 // (28288 + 1024) == 7


def test_a_grid_already_capped_or_of_two_waves_keeps_its_shared_memory(on_an_h200: None) -> None:
    assert _kernel(27136).shared_bytes_for((512, 2, 1), programmatic=True) == 27136  # q4_K's: 8 per SM already
    assert _kernel(31488).shared_bytes_for((512, 3, 1), programmatic=True) == 31488  # 1536 programs: two waves


def test_registers_that_cap_already_leave_shared_memory_as_it_is(on_an_h200: None) -> None:
    # q2_K's ggml-order one-token decode (15360 B, 166 registers): 6 per SM by registers where shared memory
    # would allow 14; at 4096 x 14336 a grid of 792 programs is already capped at 6, padding it to 32 KB (the
    # size run 199 found slow) would change nothing
    assert _kernel(15360, registers=166).shared_bytes_for(792, programmatic=True) == 15360
    assert _kernel(15360).shared_bytes_for(792, programmatic=True) == 32384  # what shared memory alone would ask
    # registers that allow more than the cap: padded as before (8 per SM allowed, 4 wanted)
    assert _kernel(15360, registers=128).shared_bytes_for(528, programmatic=True) == 45696


def test_resident_programs_counts_the_loaded_functions_registers(on_an_h200: None) -> None:
    assert _kernel(15360, registers=166).resident_programs() == 132 * 6
    assert _kernel(15360, registers=80).resident_programs() == 132 * 12
    assert _kernel(15360).resident_programs() == 132 * 14  # the driver said nothing: shared memory alone
    assert _kernel(15360, registers=80).resident_programs(shared_bytes=40000) == 132 * 5


def test_a_carveout_is_set_only_on_a_programmatic_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    # cuLaunchKernelEx takes the attribute; CuPy's launch has none, so a plain launch would drop it silently
    monkeypatch.setattr(runner, "require_cupy", lambda: None)
    with pytest.raises(ValueError, match="carve-out is set per launch only with programmatic=True"):
        _kernel(23040).launch(grid=1, carveout=85)


@pytest.mark.parametrize("carveout", [-1, 101, 85.5, "85", True])
def test_a_carveout_outside_0_to_100_percent_is_refused_before_the_driver(carveout: object) -> None:
    from targets.ptx.programmatic_launch import launch_programmatic

    with pytest.raises(ValueError, match=rf"carve-out is a percentage \(an integer 0-100\), got {carveout!r}"):
        launch_programmatic(0, (1, 1, 1), (64, 1, 1), 0, 0, [], [], "k", carveout=carveout)


def test_a_grid_of_more_than_one_wave_runs_a_program_per_sm_fewer_for_more_l1(on_an_h200: None) -> None:
    # q5_K's decode kernel (31488 B): 7 per SM need the 228 KB configuration, 6 fit 196 KB (60 KB of L1); at
    # N = 32768, K = 8192 its 512 x 3 programs take two waves either way (run 220: up to 7.6 % faster so)
    kernel = _kernel(31488)
    assert kernel.spread_for((512, 3, 1), programmatic=True) == (31488, 85)
    assert kernel.spread_for((512, 3, 1), programmatic=False) == (31488, None)
    # q4_K's (27136 B, 8 per SM at 228 KB, 7 at 196 KB): 1024 programs are one wave, spread as before
    assert _kernel(27136).spread_for((512, 2, 1), programmatic=True) == (27136, None)
    # q8_0's 39424 B: 5 per SM at 228 KB, 4 at 164 KB (71 % of 228)
    assert _kernel(39424).spread_for(1000, programmatic=True) == (39424, 71)
    # an SM already in a smaller configuration keeps its programs: mxfp4's one-token kernel, 6 per SM by its
    # 135 registers, 24064 B in 164 KB (92 KB of L1) — 5 per SM under 132 KB were 10 % slower (run 220)
    assert _kernel(24064, registers=135).spread_for((512, 3, 1), programmatic=True) == (24064, None)
    assert _kernel(15360, registers=166).spread_for(1000, programmatic=True) == (15360, None)  # q2_K's: 100 KB


def test_local_bytes_are_the_loaded_functions() -> None:
    """The local memory per thread the driver's compile of the kernel reports (``local_size_bytes``: spilled
    registers show there), 0 where the function does not say — what the benchmarks log beside the registers."""
    info = SimpleNamespace(name="k", shared_bytes=0, waits_previous_grid=False, num_warps=2)
    spilled = LoadedKernel(info, function=SimpleNamespace(num_regs=80, local_size_bytes=8), block=(64, 1, 1))
    assert (spilled.registers, spilled.local_bytes) == (80, 8)
    assert _kernel(0, registers=80).local_bytes == 0
