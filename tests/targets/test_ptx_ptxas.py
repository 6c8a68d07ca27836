"""`assemble` and its `ptxas -v` report."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialects.ptx.arch import Arch
from targets.ptx.ptxas import KernelResources, PtxasUnavailable, assemble, parse_verbose
from tests.ptxas_checks import needs_ptxas


TWO_KERNELS = """
.version 8.7
.target sm_90
.address_size 64
.visible .entry staged(.param .u64 p, .param .u32 i) {
  .shared .align 16 .b8 tile[2048];
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [i];
  mov.u32 %r2, tile; shl.b32 %r3, %r1, 2; add.u32 %r2, %r2, %r3;
  st.shared.u32 [%r2], %r1;
  bar.sync 0;
  ld.shared.u32 %r3, [%r2+4];
  st.global.u32 [%rd1], %r3;
  ret;
}
.visible .entry empty() { ret; }
"""


@needs_ptxas
def test_assemble_reports_each_kernel() -> None:
    result = assemble(TWO_KERNELS, Arch.SM_90)
    assert result.ok, result.log
    assert result.errors == ()
    assert result.cubin is not None and result.cubin[:4] == b"\x7fELF"
    assert {k.name for k in result.kernels} == {"staged", "empty"}
    staged = result.kernel("staged")
    assert staged.shared_bytes == 2048
    assert staged.registers > 0
    assert result.kernel("empty").shared_bytes == 0
    assert result.shared_bytes == 2048
    assert result.registers == max(k.registers for k in result.kernels)
    assert (result.spill_stores, result.spill_loads, result.stack_frame) == (0, 0, 0)


@needs_ptxas
def test_rejected_ptx_is_a_result_not_an_exception() -> None:
    bad = TWO_KERNELS.replace(".target sm_90", ".target sm_80").replace("bar.sync 0;", "bogus.instruction 0;")
    result = assemble(bad, "sm_80")
    assert not result.ok
    assert result.cubin is None
    assert result.errors
    assert any("bogus" in line or "syntax" in line for line in result.errors), result.log
    with pytest.raises(KeyError, match="no entry function 'staged'"):
        result.kernel("staged")


@needs_ptxas
def test_target_mismatch_is_reported() -> None:
    ptx = """
.version 8.7
.target sm_120a
.address_size 64
.visible .entry k() { ret; }
"""
    result = assemble(ptx, Arch.SM_90)
    assert not result.ok
    assert result.cubin is None
    assert any("SM version specified by .target" in line for line in result.errors), result.log
    assert assemble(ptx, "sm_120a").ok  # the PTX itself is fine: the mismatch is what was refused


def test_missing_ptxas_raises(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QDOT_PTXAS", str(tmp_path / "no-ptxas-here"))
    with pytest.raises(PtxasUnavailable, match="ptxas not found"):
        assemble(TWO_KERNELS, Arch.SM_90)


SPILLING_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'gemm' for 'sm_90'
ptxas info    : Function properties for gemm
    96 bytes stack frame, 88 bytes spill stores, 120 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 16384 bytes smem, 400 bytes cmem[0]
ptxas info    : Compile time = 100.0 ms
ptxas info    : Compiling entry function 'tail' for 'sm_90'
ptxas info    : Function properties for tail
    0 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers
"""


def test_parse_verbose_per_kernel() -> None:
    kernels = parse_verbose(SPILLING_LOG)
    assert kernels == (
        KernelResources("gemm", registers=255, spill_stores=88, spill_loads=120, stack_frame=96, shared_bytes=16384),
        KernelResources("tail", registers=40, spill_stores=4, spill_loads=4, stack_frame=0, shared_bytes=0),
    )


def test_parse_verbose_of_nothing() -> None:
    assert parse_verbose("") == ()
