"""The wait-bound experiment's PTX edits (run 302): the GEMM loses exactly its one ``griddepcontrol.wait`` and the
quantize kernel returns right after its ``launch_dependents``; each edited kernel still assembles."""

from __future__ import annotations

import pytest

from bench.experiments import wait_bound
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def kernels() -> dict:
    return wait_bound.compile_all()


def test_the_gemm_loses_its_wait_and_nothing_else(kernels: dict) -> None:
    ptx = kernels["gemm"].ptx
    edited = wait_bound.without_wait(ptx)
    assert "griddepcontrol.wait" in ptx and "griddepcontrol" not in edited
    assert len(ptx) - len(edited) == len("\t// begin inline asm\n\tgriddepcontrol.wait;\n\t// end inline asm\n")
    with pytest.raises(ValueError, match="one griddepcontrol.wait"):
        wait_bound.without_wait(edited)


def test_the_quantize_kernel_returns_after_its_trigger(kernels: dict) -> None:
    ptx = kernels["quantizers"][(True, True)].ptx
    edited = wait_bound.returning_at_once(ptx)
    assert edited.count("ret;") == ptx.count("ret;") + 1
    assert "griddepcontrol.launch_dependents;\n\t// end inline asm\n\tret;\n" in edited
    with pytest.raises(ValueError, match="launch_dependents"):
        wait_bound.returning_at_once(kernels["quantizers"][(True, False)].ptx)  # no trigger without pdl


@needs_ptxas
def test_both_edited_kernels_assemble(kernels: dict) -> None:
    for ptx in (wait_bound.without_wait(kernels["gemm"].ptx),
                wait_bound.returning_at_once(kernels["quantizers"][(True, True)].ptx)):
        assembled(ptx, spills=True)
