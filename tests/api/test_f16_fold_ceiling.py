"""``bench.experiments.f16_fold_ceiling``'s CUDA text, compiled on the CPU machine.

The experiment compiles its text through NVRTC on the GPU machine, where a mistake costs device
time; run 328's RESULTS entry also states each form's instruction mix from the SASS. Here nvcc (the
``nvidia-cuda-nvcc`` wheel or a toolkit, with a host C++ compiler for its preprocessing) compiles each
form alone for sm_90a, and the census of its loop over k32 blocks checks the mix RESULTS states: per
warp and block 16 IMMA and 128 FFMA in the s8 magic form, 32 HMMA and 64 FFMA (64 more every eighth
block, in a branch) in the f16 fold, and no FFMA in the chained forms.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bench.experiments.f16_fold_ceiling import FORMS, source
from bench.sass_census import loop_census
from compiler.tools import find_tool
from targets.ptx.ptxas import parse_verbose

NVCC = find_tool("nvcc")
needs_nvcc = pytest.mark.skipif(
    NVCC is None or shutil.which("g++") is None or find_tool("cuobjdump") is None,
    reason="needs nvcc, a host C++ compiler (g++) and cuobjdump")


def test_each_form_is_its_own_kernel_named_by_its_place() -> None:
    for index, form in enumerate(FORMS):
        text = source((form,))
        assert text.count("__global__") == 1 and f"form{index}(" in text
    assert all(f"form{index}(" in source() for index in range(len(FORMS)))


def _compiled(form: str, scratch: Path) -> tuple[Counter, str]:
    """The loop census of ``form`` compiled alone by nvcc (which assembles with its own ptxas), and ptxas's log."""
    cu, cubin = scratch / "form.cu", scratch / "form.cubin"
    cu.write_text(source((form,)), encoding="utf-8")
    done = subprocess.run([NVCC, "-arch=sm_90a", "-std=c++17", "-cubin", "-Xptxas", "-v", "-o", str(cubin), str(cu)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return loop_census(cubin.read_bytes()), done.stdout + done.stderr


@needs_nvcc
@pytest.mark.parametrize("form", FORMS)
def test_the_form_compiles_without_spills_to_the_mix_results_states(form: str, tmp_path: Path) -> None:
    counts, log = _compiled(form, tmp_path)
    (kernel,) = parse_verbose(log)
    assert kernel.spill_stores == kernel.spill_loads == 0, log
    tensor = counts["IMMA"] if form.startswith("s8") else counts["HMMA"]
    assert tensor > 0 and tensor % (16 if form.startswith("s8") else 32) == 0, counts
    blocks = tensor // (16 if form.startswith("s8") else 32)  # k32 blocks in one pass of the loop (its unroll)
    if form.endswith("chained"):
        assert counts["FFMA"] == 0, counts
    elif form == "s8 magic":
        assert counts["FFMA"] == 128 * blocks, counts
    else:
        assert counts["FFMA"] in (64 * blocks, 64 * blocks + 64), counts
