"""``compiler.compile(..., trace=True)``: the IR after every pass and its time, from Python."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import compiler

ROOT = Path(__file__).resolve().parent.parent.parent
MX = ROOT / "examples" / "mx_gemm_e4m3_e2m1.mlir"


def _pass_names(spec: str) -> list[str]:
    return [re.sub(r"\{.*\}", "", part) for part in re.split(r",(?![^{]*\})", spec)]


def test_trace_has_every_pass_in_order_with_its_ir() -> None:
    kernel = compiler.compile(MX, arch="sm_90", trace=True)
    assert [step.name for step in kernel.trace] == _pass_names(kernel.pipeline)
    by_name = {step.name: step for step in kernel.trace}
    assert "qdot.dot_scaled" in by_name["qdot-lower-quantize"].ir
    assert 'qdot.strategy = "' in by_name["qdot-accelerate-matmul"].ir
    assert "qgpu.async_copy" in by_name["qdot-pipeline"].ir
    lowered = by_name["qdot-to-llvm"].ir
    assert "ptx.mma_sync" in lowered and "qgpu." not in lowered
    assert all(step.seconds >= 0 for step in kernel.trace)


def test_tracing_changes_nothing_in_the_result() -> None:
    plain = compiler.compile(MX, arch="sm_90")
    traced = compiler.compile(MX, arch="sm_90", trace=True)
    assert plain.trace == ()
    assert traced.ptx == plain.ptx


def test_trace_of_the_agx_pipeline() -> None:
    kernel = compiler.compile(ROOT / "examples" / "agx_tile_fp16.mlir", target="agx3b", trace=True)
    assert [step.name for step in kernel.trace] == ["qdot-to-agx", "agx-allocate-registers", "agx-hints-and-waits"]
    assert "agx." in kernel.trace[-1].ir


def test_trace_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="trace must be True or False, got str"):
        compiler.compile(MX, trace="yes")
