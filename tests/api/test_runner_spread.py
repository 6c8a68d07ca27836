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


def _kernel(shared_bytes: int) -> LoadedKernel:
    info = SimpleNamespace(name="k", shared_bytes=shared_bytes, waits_previous_grid=True)
    return LoadedKernel(info, function=None, block=(64, 1, 1))


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
