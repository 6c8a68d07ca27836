"""``bench.prepare.fill_cache``: the FINGERPRINT a GPU run trusts is written only for a finished compile."""

from __future__ import annotations

import pytest

from bench.prepare import fill_cache
from compiler.kernel_cache import compiler_fingerprint, sources_fingerprint


def test_fingerprint_written_after_the_compile(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("QDOT_KERNEL_CACHE", str(tmp_path / "cache"))
    seen = []
    fingerprint = fill_cache(lambda: seen.append((tmp_path / "cache" / "FINGERPRINT").exists()))
    assert seen == [False]
    assert fingerprint == compiler_fingerprint()
    assert (tmp_path / "cache" / "FINGERPRINT").read_text() == fingerprint + "\n"
    # the sources' own hash, which bench/run_gpu.sh compares on the GPU machine (no toolchain there)
    assert (tmp_path / "cache" / "SOURCES").read_text() == sources_fingerprint() + "\n"


def test_no_fingerprint_when_the_compile_raises(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("QDOT_KERNEL_CACHE", str(tmp_path / "cache"))

    def failing() -> None:
        raise RuntimeError("ptxas refused a kernel")

    with pytest.raises(RuntimeError, match="ptxas refused"):
        fill_cache(failing)
    assert not (tmp_path / "cache" / "FINGERPRINT").exists()
