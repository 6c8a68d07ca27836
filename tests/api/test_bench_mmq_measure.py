"""``bench.mmq``'s check-then-time step, run here with numpy standing in for CuPy and the PTX
emulator for the GPU: the weights it draws (ggml's layout, repacked for a ``tiled_weights``
kernel), the quantize kernel before the GEMM, the argument order and the float64 reference it
compares against must agree with the kernel, or the row is not ``ok``; and ``--only``'s selection."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import bench.mmq as mmq
import compiler
from bench import gpu_common
from compiler.mmq_template import MmqConfig, mmq_grid, mmq_kernel, spread_shared_bytes
from targets.ptx import runner
from targets.ptx.runner import LoadedKernel


H200 = {"multiProcessorCount": 132, "sharedMemPerMultiprocessor": 233472, "reservedSharedMemPerBlock": 1024}
"""The device properties ``LoadedKernel.resident_programs`` reads (an H200's)."""


class _NumpyAsCupy:
    """The part of CuPy ``measure`` uses before it times anything, on the CPU."""

    cuda = SimpleNamespace(get_current_stream=lambda: SimpleNamespace(synchronize=lambda: None),
                           Device=lambda: SimpleNamespace(id=0),
                           runtime=SimpleNamespace(getDeviceProperties=lambda device: H200))

    @staticmethod
    def asnumpy(array: np.ndarray) -> np.ndarray:
        return np.asarray(array)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(np, name)


class _Emulated:
    """A compiled kernel launched on the PTX emulator, with the runner's ``launch`` signature and its
    ``spread_for`` (the runner's own, on ``H200``'s properties: see the ``untimed`` fixture)."""

    shared_bytes_for = LoadedKernel.shared_bytes_for
    spread_for = LoadedKernel.spread_for
    resident_programs = LoadedKernel.resident_programs

    def __init__(self, kernel, info=None, registers: int = 0) -> None:  # noqa: ANN001
        self.kernel = kernel
        self.info = info or kernel.kernels[0]
        self.registers = registers  # the loaded function's, which the runner asks the driver for
        self.programmatic_shared: set[int | None] = set()
        self.programmatic_carveouts: set[int | None] = set()

    def launch(self, *args, grid, sync: bool = True, programmatic: bool = False,  # noqa: ANN001, ANN002
               shared_bytes: int | None = None, carveout: int | None = None) -> None:
        if programmatic:
            self.programmatic_shared.add(shared_bytes)
            self.programmatic_carveouts.add(carveout)
        compiler.emulate(self.kernel, *args, grid=grid)


@pytest.fixture
def untimed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every timing 1 µs without running anything: the check before them is what is tested."""
    monkeypatch.setattr(gpu_common, "time_graph", lambda cupy, fn: 1.0)
    monkeypatch.setattr(mmq, "_time_cold", lambda cupy, fn, flush: 1.0)
    device_shared = runner.device_shared
    monkeypatch.setattr(runner, "device_shared", lambda cupy=None: device_shared(_NumpyAsCupy()))


@pytest.mark.parametrize("label,registers,per_sm", [("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128", 0, 7),
                                                     ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt", 96, 7),
                                                     ("small_m 64 w2 splitk s2 pdl wt q8_0", 160, 6)])
def test_measure_checks_the_decode_kernels(label: str, registers: int, per_sm: int, untimed: None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The row is checked, and the split-K grid is chosen with the programs the device holds at once
    (``resident``: here 31488 B of shared memory, 7 programs per SM of an H200 — 6 where the loaded
    function's 160 registers per thread bound them, 7 where 96 do not)."""
    _, cfg, stages = next(entry for entry in mmq.selected(None) if entry[0] == label)
    pipeline = mmq._pipeline(label, stages)  # the fold's pipeline carries the stages
    kernel = compiler.compile(mmq_kernel(cfg), arch="sm_90", pipeline=pipeline) if pipeline else \
        compiler.compile(mmq_kernel(cfg), arch="sm_90", num_stages=stages)
    quantizers = {key: _Emulated(compiler.compile(source, arch="sm_90")) for key, source in mmq.QUANTIZERS.items()}
    info = SimpleNamespace(shared_bytes=31488, num_warps=cfg.num_warps)
    grids = []
    monkeypatch.setattr(mmq, "mmq_grid", lambda *args, **split: grids.append(split) or mmq_grid(*args, **split))
    m = 1 if cfg.max_m == 1 else 3
    gemm = _Emulated(kernel, info, registers)
    monkeypatch.delenv("QDOT_BENCH_SPREAD", raising=False)  # the runner's default: spread
    row = mmq.measure(_NumpyAsCupy(), gemm, quantizers, label, cfg, stages, info, m, 72, 768,
                      np.random.default_rng(3), None)
    assert row["ok"] and row["quantize_bit_exact"] and row["rel_err_checked_rows"] < 1e-5, row
    assert grids == [{"resident": 132 * per_sm}]
    assert row["us_mul_mat_no_pdl"] == 1.0  # every label here launches its GEMM programmatically: timed both ways
    # its programmatic launches capped at ⌈programs / SMs⌉ per SM: here 1, the grid being a few programs
    programs = int(np.prod(mmq_grid(cfg, m, 72, 768, resident=132 * per_sm)))
    assert gemm.programmatic_shared == {row["launch_shared_bytes"]}
    assert row["launch_shared_bytes"] == spread_shared_bytes(31488, programs, 132, 233472, 1024) > 233472 // 2 - 1024
    assert gemm.programmatic_carveouts == {row["launch_carveout"]} == {None}  # one wave: the driver's configuration


def test_measure_launches_as_compiled_when_told(untimed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``QDOT_BENCH_SPREAD=0`` a programmatic launch takes the kernel's own shared memory."""
    label = "small_m 64 w2 splitk s2 pdl wt q8_0"
    _, cfg, stages = next(entry for entry in mmq.selected(None) if entry[0] == label)
    kernel = compiler.compile(mmq_kernel(cfg), arch="sm_90", num_stages=stages)
    quantizers = {key: _Emulated(compiler.compile(source, arch="sm_90")) for key, source in mmq.QUANTIZERS.items()}
    monkeypatch.setenv("QDOT_BENCH_SPREAD", "0")
    info = SimpleNamespace(shared_bytes=31488, num_warps=cfg.num_warps)
    gemm = _Emulated(kernel, info)
    row = mmq.measure(_NumpyAsCupy(), gemm, quantizers, label, cfg, stages, info, 3, 72, 768,
                      np.random.default_rng(4), None)
    assert row["ok"] and row["launch_shared_bytes"] == 31488 and gemm.programmatic_shared == {31488}
    assert row["launch_carveout"] is None and gemm.programmatic_carveouts == {None}


def test_only_selects_by_label() -> None:
    assert mmq.selected(None) == mmq.PREFILL + mmq.DECODE + mmq.OTHER_WEIGHTS
    tiled = mmq.selected(" wt")
    assert tiled and all(cfg.tiled_weights for _, cfg, _ in tiled)
    assert {cfg.weights for _, cfg, _ in tiled} == {"q4_K", "q4_0", "q8_0", "q6_K", "q5_K", "q4_1", "q5_0", "q5_1",
                                                    "mxfp4", "q3_K", "q2_K", "iq4_nl", "iq4_xs"}
    assert all(cfg.weights == "q4_0" for _, cfg, _ in mmq.selected(" q4_0"))
    assert mmq.selected("no such kernel") == []
    assert MmqConfig(small_m=True) not in [cfg for _, cfg, _ in mmq.selected("mmq ")]


def test_help_names_the_environment(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``--help`` says which environment variables the benchmark reads, the spread option among them."""
    monkeypatch.setattr("sys.argv", ["bench.mmq", "--help"])
    with pytest.raises(SystemExit) as exit_info:
        mmq.main()
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert all(name in text for name in ("OUT", "QDOT_KERNEL_CACHE", "QDOT_BENCH_SPREAD=0", "spread_launch"))


def test_the_checked_rows_are_the_first_tile_and_the_last() -> None:
    """The check covered the first 64 rows: at M = 512 one tile of a 64-row kernel and half of a 128-row one's."""
    assert list(mmq.checked_rows(100, 64)) == list(range(100))
    rows = mmq.checked_rows(512, 128)
    assert list(rows) == list(range(128)) + list(range(384, 512))
    assert list(mmq.checked_rows(520, 64)) == list(range(64)) + list(range(512, 520))


class _Silent(_Emulated):
    """A GEMM that writes nothing: Y stays NaN-poisoned."""

    def launch(self, *args, grid, sync: bool = True, programmatic: bool = False,  # noqa: ANN001, ANN002
               shared_bytes: int | None = None, carveout: int | None = None) -> None:
        return None


def test_a_kernel_that_fails_its_check_is_not_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Failing rows were timed and tabulated like the others (with a speed-up over llama.cpp)."""
    label = "small_m 64 w2 splitk s2 pdl wt q8_0"
    _, cfg, stages = next(entry for entry in mmq.selected(None) if entry[0] == label)
    kernel = compiler.compile(mmq_kernel(cfg), arch="sm_90", num_stages=stages)
    quantizers = {key: _Emulated(compiler.compile(source, arch="sm_90")) for key, source in mmq.QUANTIZERS.items()}
    monkeypatch.setattr(gpu_common, "time_graph", lambda cupy, fn: pytest.fail("timed a failing kernel"))
    device_shared = runner.device_shared
    monkeypatch.setattr(runner, "device_shared", lambda cupy=None: device_shared(_NumpyAsCupy()))
    info = SimpleNamespace(shared_bytes=31488, num_warps=cfg.num_warps)
    row = mmq.measure(_NumpyAsCupy(), _Silent(kernel, info), quantizers, label, cfg, stages, info, 3, 72, 768,
                      np.random.default_rng(4), None)
    assert row["failed"] and not row["ok"] and "us_mul_mat" not in row


def test_a_failed_row_is_reported_as_one() -> None:
    from bench.report import table

    text = table([{"what": "qdot x", "shape": "M=512 N=4096 K=4096", "ok": False, "failed": True},
                  {"what": "qdot y", "shape": "8192x8192x8192", "us": 10.0, "tflops": 1.0, "ok": True}])
    assert text.startswith("**Failed their check** (not results): qdot x M=512 N=4096 K=4096")
    assert "| qdot y |" in text and "| qdot x |" not in text


def test_rows_name_the_gpu_and_speed_ups_need_the_anchors_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs land on H100s too; the llama.cpp anchors are an H200's."""
    monkeypatch.setattr(gpu_common, "_DEVICE", ["NVIDIA H100 80GB HBM3"])
    assert not gpu_common.on_anchor_gpu()
    monkeypatch.setattr(gpu_common, "_DEVICE", ["NVIDIA H200"])
    assert gpu_common.on_anchor_gpu()
