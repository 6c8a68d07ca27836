"""The H200's output of whole compiled kernels is the emulator's, bit for bit.

The GPU machine has no xDSL, so the emulator cannot run there: ``python -m bench.prepare``
(which runs this file on the CPU machine with ``QDOT_EMULATE_FOR_GPU=1``) emulates each kernel of
tests/gpu/fidelity_harness.py on seeded inputs and stores inputs and output beside the kernel's
PTX in the kernel cache; on the GPU this test runs the PTX on those inputs into a poisoned
output and compares every bit (a split-K kernel of more than two splits: with each order in
which its atomics may land, ``fidelity_harness.admissible``). Without the variable (a plain ``pytest`` here) it compiles the
kernel and skips, like every GPU test.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from compiler.kernel_cache import cache_dir
from tests.gpu.fidelity_harness import admissible, cases, inputs, matches_none, not_finite

CASES = cases()
SEED = 20261201


def _expected_path(key: str, index: int):  # noqa: ANN202
    """The stored inputs and output of a case: keyed by the kernel, and by what makes the inputs and the admissible
    outputs (the harness's text, the seed), which the kernel's key does not cover (tests/ is not fingerprinted)."""
    import hashlib
    from pathlib import Path

    from tests.gpu import fidelity_harness

    harness = hashlib.sha256(Path(fidelity_harness.__file__).read_bytes()).hexdigest()[:12]
    return cache_dir() / f"{key}.emulated.{harness}.{SEED + index}.npz"


@pytest.mark.gpu
@pytest.mark.parametrize("index", range(len(CASES)), ids=[kernel.label for kernel, _ in CASES])
def test_gpu_output_is_the_emulators(index: int, gpu) -> None:  # noqa: ANN001
    kernel, case = CASES[index]
    compiled = kernel.compiled()
    path = _expected_path(compiled.key, index)

    def store() -> None:  # whole or not at all: a prepare stopped half way leaves no file that looks ready
        arrays, out = inputs(case, SEED + index)
        allowed = admissible(kernel, arrays, out, (case.m, case.n, case.k))
        assert not_finite(allowed) == 0, f"{kernel.label}: the emulated output has elements nothing wrote"
        scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
        try:
            np.savez(scratch, *arrays, out=out, admissible=allowed)
            os.replace(scratch, path)
        finally:
            scratch.unlink(missing_ok=True)

    if os.environ.get("QDOT_EMULATE_FOR_GPU") and not path.exists():
        store()
    cupy = gpu()
    if not path.exists():  # a machine with both the GPU and the compiler emulates here
        try:
            store()
        except ImportError:
            pytest.fail(f"no emulated output for {kernel.label} in the kernel cache: fill it with "
                        "`python -m bench.prepare` on the CPU machine")
    from targets.ptx.runner import load

    z = np.load(path)
    arrays = [cupy.asarray(z[f"arr_{i}"]) for i in range(len(z.files) - 2)]
    out = cupy.asarray(z["out"])
    load(compiled.ptx, compiled.kernels[0]).launch(*arrays, out, case.m, case.n, case.k, grid=kernel.grid)
    got, allowed = out.get(), z["admissible"]
    differ = int(np.sum(matches_none(got, allowed)))
    assert differ == 0, f"{kernel.label}: {differ} of {got.size} output elements differ from the emulator's"
