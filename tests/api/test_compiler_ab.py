"""The compiler A/B helper: ``--save-new`` writes this tree's PTX and kernel info by label; the GPU step times that
PTX beside the cache's kernels of the same labels, and refuses a kernel whose launch (its ``KernelInfo``) differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.experiments import compiler_ab

LABEL = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"


@pytest.fixture()
def no_gpu_needed(monkeypatch: pytest.MonkeyPatch) -> list:
    import bench.experiments.ptx_variants as ptx_variants
    import bench.gpu_common as gpu_common

    calls: list = []
    monkeypatch.setattr(gpu_common, "gpu_or_exit", lambda command: None)
    monkeypatch.setattr(ptx_variants, "run_ab", lambda *args, **kwargs: calls.append((args, kwargs)))
    return calls


def test_the_saved_ptx_is_timed_beside_the_cached_kernel(tmp_path: Path, no_gpu_needed: list) -> None:
    saved = tmp_path / "new.json"
    compiler_ab.main(["--label", LABEL, "--save-new", str(saved)])
    assert list(json.loads(saved.read_text())) == [LABEL]
    compiler_ab.main(["--label", LABEL, "--new", str(saved), "--reps", "3"])
    (compiled, edited, shapes, experiment, variant, _quantizers), kwargs = no_gpu_needed[0]
    assert [row[0] for row in compiled] == [LABEL] and edited == {LABEL: compiled[0][3].ptx}
    assert shapes[True] == compiler_ab.DECODE_SHAPES and (experiment, variant, kwargs) == (
        "compiler_ab", "new", {"repetitions": 3})


def test_a_kernel_launched_differently_is_refused(tmp_path: Path, no_gpu_needed: list) -> None:
    saved = tmp_path / "new.json"
    compiler_ab.main(["--label", LABEL, "--save-new", str(saved)])
    kernels = json.loads(saved.read_text())
    info = json.loads(kernels[LABEL]["info"])
    kernels[LABEL]["info"] = json.dumps({**info, "shared_bytes": info["shared_bytes"] + 16})
    saved.write_text(json.dumps(kernels))
    with pytest.raises(SystemExit, match="KernelInfo differs"):
        compiler_ab.main(["--label", LABEL, "--new", str(saved)])
    assert not no_gpu_needed
