"""Compiling the same IR gives byte-identical PTX: twice in one process, and in two processes
whose ``PYTHONHASHSEED`` differ (so no output may depend on set/dict order of hashed objects,
object ids or the time).

The kernels: ``examples/mx_gemm_e4m3_e2m1.mlir`` on sm_90 (dequant-bf16) and sm_120a
(native ``kind::f8f6f4`` block-scaled, fp4 through ``ldmatrix .b4x16_p64``), and one
``compiler.templates`` GEMM per strategy on an arch where that strategy is legal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "mx_gemm_e4m3_e2m1.mlir"

JOBS: tuple[tuple[str, str, str, dict[str, object] | None], ...] = (
    # (name, arch, strategy, GemmConfig fields — None: the example file)
    ("example_sm90", "sm_90", "auto", None),
    ("example_sm120a", "sm_120a", "auto", None),
    ("example_sm90a_wgmma", "sm_90a", "auto", None),
    ("native_mxf4", "sm_120a", "native",
     {"lhs": "e2m1", "rhs": "e2m1", "block_m": 64, "block_n": 64, "block_k": 128}),
    ("native_f8f6f4_unscaled", "sm_120a", "native",
     {"lhs": "e4m3", "rhs": "e2m1", "lhs_scale": None, "rhs_scale": None, "block_m": 64, "block_n": 64,
      "block_k": 128}),
    ("promote_fp8", "sm_89", "promote-fp8",
     {"lhs": "e4m3", "rhs": "e2m1", "block_m": 64, "block_n": 64, "block_k": 128}),
    ("promote_int8", "sm_90", "promote-int8",
     {"lhs": "e2m1", "rhs": "e2m1", "block_m": 64, "block_n": 64, "block_k": 128}),
    ("dequant_bf16", "sm_90", "dequant-bf16",
     {"lhs": "e4m3", "rhs": "e2m1", "block_m": 64, "block_n": 64, "block_k": 128}),
    ("i8_auto", "sm_90", "auto",
     {"lhs": "i8", "rhs": "i8", "lhs_scale": None, "rhs_scale": None, "block_m": 64, "block_n": 64,
      "block_k": 128}),
)

# Runs in a fresh interpreter: compiles every job and prints {name: ptx} as JSON.
CHILD = """
import json, sys
from pathlib import Path
import compiler
from compiler.templates import GemmConfig, gemm_kernel
jobs = json.loads(sys.argv[1])
out = {}
for name, arch, strategy, fields in jobs:
    source = Path(sys.argv[2]) if fields is None else gemm_kernel(GemmConfig(**fields))
    out[name] = compiler.compile(source, arch=arch, strategy=strategy).ptx
sys.stdout.write(json.dumps(out))
"""


def _compile(name: str, arch: str, strategy: str, fields: dict[str, object] | None) -> str:
    import compiler
    from compiler.templates import GemmConfig, gemm_kernel

    source: str | Path = EXAMPLE if fields is None else gemm_kernel(GemmConfig(**fields))  # type: ignore[arg-type]
    ptx = compiler.compile(source, arch=arch, strategy=strategy).ptx
    assert ptx, f"{name}: no PTX"
    return ptx


def _children(seeds: tuple[str, ...]) -> list[dict[str, str]]:
    """Compile every job in one fresh interpreter per seed (the interpreters run side by side)."""
    procs = []
    for seed in seeds:
        env = dict(os.environ)
        env["PYTHONHASHSEED"] = seed
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
        procs.append(subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(JOBS), str(EXAMPLE)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO))
    outputs = []
    for seed, proc in zip(seeds, procs, strict=True):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"PYTHONHASHSEED={seed}: {err[-4000:]}"
        outputs.append(json.loads(out))
    return outputs


@pytest.fixture(scope="module")
def first() -> dict[str, str]:
    """Each job compiled once in this process."""
    return {job[0]: _compile(*job) for job in JOBS}


@pytest.mark.parametrize("job", JOBS, ids=lambda j: j[0])
def test_same_process_compiles_identically(job: tuple[str, str, str, dict[str, object] | None],
                                           first: dict[str, str]) -> None:
    assert _compile(*job) == first[job[0]]


def test_processes_with_different_hash_seeds_compile_identically(first: dict[str, str]) -> None:
    one, other = _children(("0", "4242"))
    assert sorted(one) == sorted(other) == sorted(first)
    for name in first:
        assert one[name] == other[name], f"{name}: PTX differs between PYTHONHASHSEED=0 and 4242"
        assert one[name] == first[name], f"{name}: PTX differs between this process and a fresh one"


def test_jobs_cover_every_strategy(first: dict[str, str]) -> None:
    """The PTX of each job shows the mma family its strategy stands for (the list stays honest)."""
    wanted = {
        "example_sm90": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        "example_sm120a": "kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0",
        "example_sm90a_wgmma": "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
        "native_mxf4": "kind::mxf4.block_scale.scale_vec::2X",
        "native_f8f6f4_unscaled": "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32",
        "promote_fp8": "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
        "promote_int8": "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
        "dequant_bf16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        "i8_auto": "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    }
    assert sorted(wanted) == sorted(first)
    for name, ptx in first.items():
        assert wanted[name] in ptx, name
