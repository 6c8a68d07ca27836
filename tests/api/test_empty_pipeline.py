"""``compiler.compile(..., pipeline="")`` runs no pass, and the kernel cache keeps it apart from
the default pipeline (``pipeline=None``).

IR written at the LLVM level (func / arith / ptx, with the kernel's ``qdot.shared_bytes`` and
``qdot.arg_kinds`` already there, as the emulator's hand-written kernels are) must reach LLVM as
it is: the default pipeline would lower it again and rewrite those attributes (shared bytes 0,
since it has no ``qgpu.local_alloc``), and a launch would then get no shared memory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler import compile as qdot_compile
from compiler.kernel_cache import cache_key, get_or_compile
from tests.wgmma_kernels import SW128, Spec, build

KERNEL = build(Spec(8, SW128, SW128, type_="s8", b_start=4096, shared_bytes=8192)).text()


def test_empty_pipeline_keeps_the_kernel_as_written() -> None:
    compiled = qdot_compile(KERNEL, arch="sm_90a", pipeline="")
    info = compiled.kernels[0]
    assert (info.shared_bytes, info.arg_kinds) == (8192, ("ptr", "ptr", "ptr"))
    assert "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8" in compiled.ptx
    assert compiled.pipeline == ""


def test_cache_keys_the_default_and_the_empty_pipeline_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cache_key(KERNEL, "sm_90a", "auto", 3, None) != cache_key(KERNEL, "sm_90a", "auto", 3, "")
    monkeypatch.setenv("QDOT_KERNEL_CACHE", str(tmp_path))
    assert get_or_compile(KERNEL, arch="sm_90a", pipeline="").kernels[0].shared_bytes == 8192


def test_compile_leaves_the_garbage_collector_as_it_found_it() -> None:
    """``compiler.compile`` runs with the cyclic collector off (``without_cyclic_gc``) and
    restores its state, on and off, on success and on a diagnostic."""
    import gc

    from xdsl.utils.exceptions import ParseError

    example = Path(__file__).resolve().parents[2] / "examples" / "int8_gemm.mlir"
    assert gc.isenabled()
    qdot_compile(example, arch="sm_90")
    assert gc.isenabled()
    with pytest.raises(ParseError):
        qdot_compile("func.func @f( {", arch="sm_90")
    assert gc.isenabled()
    gc.disable()
    try:
        qdot_compile(example, arch="sm_90")
        assert not gc.isenabled()
    finally:
        gc.enable()
