"""What the tests that assemble PTX share: the mark that skips them without ptxas, and the check that a kernel
assembles (without spills, unless a test allows them) — one definition instead of one per test module."""

from __future__ import annotations

import pytest

from compiler.tools import find_ptxas
from targets.ptx.ptxas import PtxasResult, assemble

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")


def assembled(ptx: str, arch: str = "sm_90", spills: bool = False) -> PtxasResult:
    """ptxas's result for ``ptx``, asserted to have assembled (and, unless ``spills``, without spill stores or
    loads), for the test to check more of."""
    done = assemble(ptx, arch)
    assert done.ok, done.errors
    if not spills:
        assert done.spill_stores == done.spill_loads == 0
    return done
