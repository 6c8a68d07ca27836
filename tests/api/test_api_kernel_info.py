"""PTX kernel metadata gives the launch's block shape, and the API's docstring launches the MX
kernel on the grid it reads: ``(cdiv(M,128) * cdiv(N,128), 1, 1)``, ctaid.x only (it used to show
``grid=(M // 128, N // 128)``, which leaves tiles unrun)."""

from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler import api
from targets.ptx.kernel_info import KernelInfo

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("warps", [1, 4, 8])
def test_block_is_32_threads_per_warp_along_x(warps: int) -> None:
    info = KernelInfo("k", warps, 0, ("ptr",))
    assert info.block == (32 * warps, 1, 1)
    assert KernelInfo.from_json(info.to_json()) == info  # a property: not serialised


def test_compiled_kernel_reports_its_block() -> None:
    kernel = compiler.compile(EXAMPLES / "mx_gemm_e4m3_e2m1.mlir", arch="sm_90", target="llvm")
    (info,) = kernel.kernels
    assert info.num_warps == 8
    assert info.block == (256, 1, 1)


def test_docstring_launches_the_mx_kernel_on_its_one_dimensional_grid() -> None:
    doc = api.__doc__ or ""
    assert "grid=(cdiv(M, 128) * cdiv(N, 128), 1, 1)" in doc
    assert "grid=(M // 128, N // 128)" not in doc
    ptx = compiler.compile(EXAMPLES / "mx_gemm_e4m3_e2m1.mlir", arch="sm_90").ptx
    assert ptx is not None and "%ctaid.x" in ptx
    assert "%ctaid.y" not in ptx and "%ctaid.z" not in ptx  # so the tiles must all lie along x
