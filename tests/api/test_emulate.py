"""``compiler.emulate``: a compiled kernel run on the PTX emulator from Python, as ``compiler.run``
runs it on a GPU.

The emulator's arithmetic is the H200's for sm_90 kernels (tests/gpu/test_emulator_fidelity_gpu.py
holds the GPU to it); here: the API runs the very module the PTX came from, in place on numpy
arrays, and refuses what it cannot run with a message that says why.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import compiler
from tests.gpu.fidelity_harness import cases, emulated, inputs


def test_emulate_runs_the_compiled_module_in_place() -> None:
    kernel, case = cases()[0]  # e4m3 × e2m1 through dequant-bf16, sm_90
    compiled = compiler.compile(kernel.source, arch=kernel.arch, strategy=kernel.strategy,
                                num_stages=kernel.stages)
    arrays, out = inputs(case, 5)
    got = out.copy()
    stats = compiler.emulate(compiled, *arrays, got, case.m, case.n, case.k, grid=kernel.grid)
    assert stats.ops["ptx.mma_sync"] > 0
    assert np.isfinite(got).all()  # every element of the NaN-poisoned output written
    # the same bits as the pipeline's IR emulated on its own, which the H200 reproduces (run 127)
    want = emulated(kernel, arrays, out, (case.m, case.n, case.k))
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_emulate_names_what_it_cannot_run() -> None:
    kernel, _ = cases()[0]
    compiled = compiler.compile(kernel.source, arch=kernel.arch, strategy=kernel.strategy,
                                num_stages=kernel.stages)
    with pytest.raises(ValueError, match="no kernel named 'gemm'; the module's kernels are gemm_e4m3"):
        compiler.emulate(compiled, grid=1, name="gemm")
    agx = compiler.compile(Path(__file__).resolve().parents[2] / "examples" / "agx_tile_fp16.mlir", target="agx3b")
    with pytest.raises(ValueError, match="agx3b artifact has no PTX kernel to emulate"):
        compiler.emulate(agx, grid=1)


def test_emulate_runs_only_the_ctas_asked_for() -> None:
    """``ctas=`` runs part of a grid: the tiles of those CTAs are computed exactly, the others'
    output is left as it was — what qdot-bench --ctas relies on to check a large launch's edges."""
    compiled = compiler.compile(Path(__file__).resolve().parents[2] / "examples" / "int8_gemm.mlir", arch="sm_90")
    m, n, k = 256, 128, 128  # two 128×128 tiles along M
    rng = np.random.default_rng()
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    bt = rng.integers(-128, 128, (n, k), dtype=np.int8)
    c = np.full((m, n), -7, np.int32)  # poisoned
    stats = compiler.emulate(compiled, a, bt, c, m, n, k, grid=2, ctas=[1])
    assert stats.ctas == 1
    want = a.astype(np.int64) @ bt.astype(np.int64).T
    written = (c != -7).any(axis=1)
    assert written.sum() == 128  # one tile's rows, the other tile's still poisoned
    assert (c[written] == want[written]).all()
    with pytest.raises(ValueError, match=r"CTA 2 is outside the grid of 2 \(grid \(2, 1, 1\)\)"):
        compiler.emulate(compiled, a, bt, c, m, n, k, grid=2, ctas=[2])
    with pytest.raises(TypeError, match=r"ctas= takes CTA ids \(integers from 0 to the grid's size - 1\), got '0'"):
        compiler.emulate(compiled, a, bt, c, m, n, k, grid=2, ctas="0")


def test_emulate_refuses_ownership_state_past_the_available_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulator keeps the storing CTA of every byte of an output (an int64 each); past physical memory that
    allocation would not fail where it is made but get the process killed, so it is refused with a MemoryError that
    names the array, before allocating (found through qdot-bench by the input fuzz, seed 326)."""
    from targets.ptx.emulator import memory

    compiled = compiler.compile(Path(__file__).resolve().parents[2] / "examples" / "int8_gemm.mlir", arch="sm_90")
    m, n, k = 128, 128, 128
    a = np.zeros((m, k), np.int8)
    bt = np.zeros((n, k), np.int8)
    c = np.full((m, n), -7, np.int32)
    needed = 8 * c.nbytes
    monkeypatch.setattr(memory, "available_host_bytes", lambda: needed - 1)
    with pytest.raises(MemoryError, match=rf"state of argument #2 \({c.nbytes} bytes\) would take {needed} bytes, more "
                                          rf"than this machine's available memory \({needed - 1} bytes\)"):
        compiler.emulate(compiled, a, bt, c, m, n, k, grid=1)
    monkeypatch.setattr(memory, "available_host_bytes", lambda: needed)  # exactly what it needs: taken
    compiler.emulate(compiled, a, bt, c, m, n, k, grid=1)
    assert (c == 0).all()
