"""``compiler.kernel_cache``: what a damaged, unwritable or foreign cache does to ``get_or_compile``.

A review reproduced each of these (before the fix): a truncated or empty entry returned as a hit, a
corrupt one raising JSONDecodeError / KeyError / TypeError, a read-only directory failing a compile
that had succeeded, an empty $QDOT_KERNEL_CACHE writing into the current directory, a path keyed by
its name rather than the file's text, and a fingerprint override storing this compiler's kernels
under another compiler's name.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

from compiler import kernel_cache
from compiler.kernel_cache import CachedKernel, cache_key, get_or_compile
from tests.wgmma_kernels import SW128, Spec, build

KERNEL = build(Spec(8, SW128, SW128, type_="s8", b_start=4096, shared_bytes=8192)).text()
OTHER = build(Spec(8, SW128, SW128, type_="s8", b_start=4096, shared_bytes=16384)).text()


def _compile(source: str | Path = KERNEL) -> CachedKernel:
    return get_or_compile(source, arch="sm_90a", pipeline="")


def _paths(tmp_path: Path, source: str = KERNEL) -> tuple[Path, Path]:
    key = cache_key(source, "sm_90a", "auto", 3, "")
    return tmp_path / f"{key}.ptx", tmp_path / f"{key}.json"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QDOT_KERNEL_CACHE", str(tmp_path))
    monkeypatch.delenv("QDOT_COMPILER_FINGERPRINT", raising=False)
    return tmp_path


def test_an_entry_is_written_whole_and_read_back(cache: Path) -> None:
    fresh = _compile()
    ptx, meta = _paths(cache)
    assert ptx.read_text() == fresh.ptx and json.loads(meta.read_text())["pipeline"] == ""
    assert _compile() == fresh
    assert sorted(p.name for p in cache.iterdir()) == sorted([ptx.name, meta.name])  # no scratch file left


@pytest.mark.parametrize("damage", ["empty ptx", "cut ptx", "empty json", "json list", "no kernels", "no pipeline",
                                    "bad kernel", "bytes"])
def test_a_damaged_entry_is_compiled_again(cache: Path, damage: str) -> None:
    fresh = _compile()
    ptx, meta = _paths(cache)
    entry = json.loads(meta.read_text())
    if damage == "empty ptx":
        ptx.write_text("")
    elif damage == "cut ptx":
        ptx.write_text(fresh.ptx[:100])
    elif damage == "empty json":
        meta.write_text("")
    elif damage == "json list":
        meta.write_text("[1, 2]")
    elif damage == "no kernels":
        meta.write_text(json.dumps({**entry, "kernels": []}))
    elif damage == "no pipeline":
        meta.write_text(json.dumps({"kernels": entry["kernels"]}))
    elif damage == "bad kernel":
        meta.write_text(json.dumps({**entry, "kernels": [{"name": 3}]}))
    else:
        meta.write_bytes(b"\xff\xfe{")
    again = _compile()
    assert again == fresh
    assert ptx.read_text() == fresh.ptx  # and the entry is whole again


def test_an_empty_refusal_file_is_no_refusal(cache: Path) -> None:
    key = cache_key(KERNEL, "sm_90a", "auto", 3, "")
    (cache / f"{key}.refused").write_text("")
    assert _compile().kernels[0].shared_bytes == 8192


def test_an_unwritable_cache_warns_and_still_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("QDOT_KERNEL_CACHE", str(blocker / "cache"))
    monkeypatch.delenv("QDOT_COMPILER_FINGERPRINT", raising=False)
    with pytest.warns(RuntimeWarning, match="not written .*compiled but not cached"):
        compiled = _compile()
    assert compiled.kernels[0].shared_bytes == 8192


def test_an_empty_cache_variable_is_the_default_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QDOT_KERNEL_CACHE", "")
    assert kernel_cache.cache_dir() == kernel_cache.DEFAULT_DIR


def test_a_path_is_keyed_by_the_text_of_its_file(cache: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("src") / "kernel.mlir"
    path.write_text(KERNEL)
    assert _compile(str(path)) == _compile(KERNEL) == _compile(path)
    path.write_text(OTHER)
    assert _compile(str(path)).kernels[0].shared_bytes == 16384


def test_a_foreign_fingerprint_is_read_but_not_written(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_cache, "_FINGERPRINT", [])
    monkeypatch.setenv("QDOT_COMPILER_FINGERPRINT", "0123456789abcdef")
    monkeypatch.setattr(kernel_cache, "_WARNED", [])
    with pytest.warns(RuntimeWarning) as said:
        compiled = _compile()
    assert [str(w.message).split(":")[0] for w in said] == ["kernel cache"] * 2
    assert "reading entries compiled under QDOT_COMPILER_FINGERPRINT=0123456789abcdef" in str(said[0].message)
    assert "not storing under QDOT_COMPILER_FINGERPRINT=0123456789abcdef" in str(said[1].message)
    assert compiled.kernels[0].shared_bytes == 8192
    assert not any(cache.iterdir())
    monkeypatch.setattr(kernel_cache, "_FINGERPRINT", [])
    monkeypatch.setenv("QDOT_COMPILER_FINGERPRINT", kernel_cache.own_fingerprint())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _compile()  # this compiler's own fingerprint, spelled out: stored as ever
    assert len(os.listdir(cache)) == 2


def test_a_ptx_file_cut_inside_a_kernel_is_compiled_again(cache: Path) -> None:
    """A review cut the PTX after 6000 of its 43727 characters (a copy that stopped): the entry point was still
    there, so it was a hit. The metadata records the PTX's hash, and a PTX that is not it is compiled again."""
    fresh = _compile()
    ptx, _meta = _paths(cache)
    ptx.write_text(fresh.ptx[: len(fresh.ptx) // 2])
    assert ".entry" in ptx.read_text()
    assert _compile() == fresh and ptx.read_text() == fresh.ptx


def test_nothing_is_stored_once_a_source_changed(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A source edited after the fingerprint was taken (a long bench.prepare) may already run in a module imported
    later: its output would be filed under the old sources' fingerprint."""
    monkeypatch.setattr(kernel_cache, "sources_changed", lambda: [Path("passes/to_llvm.py")])
    with pytest.warns(RuntimeWarning, match="not storing: 1 compiler source"):
        _compile()
    assert not any(cache.iterdir())


def test_the_fingerprint_names_the_toolchain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another llvmlite (or xDSL, numpy, ml_dtypes) makes other PTX from the same sources."""
    own = kernel_cache.own_fingerprint()
    assert "llvmlite " in kernel_cache.toolchain() and "xdsl " in kernel_cache.toolchain()
    monkeypatch.setattr(kernel_cache, "toolchain", lambda: "python 3.11.7, llvmlite 0.50.9")
    assert kernel_cache.own_fingerprint() != own


@pytest.mark.parametrize(("options", "message"), [
    ({"arch": 90}, "arch must be a str, got int"),
    ({"strategy": None}, "strategy must be a str, got NoneType"),
    ({"pipeline": b""}, "pipeline must be a str or None, got bytes"),
    ({"num_stages": "3"}, "num_stages must be an int, got str"),
    ({"source": None}, "source must be IR text or a path"),
])
def test_options_of_the_wrong_type_are_refused_before_the_cache_is_read(cache: Path, options: dict,
                                                                      message: str) -> None:
    """num_stages='3' found the entry of num_stages=3 (where compile refuses it); the others were AttributeErrors."""
    arguments = {"source": KERNEL, "arch": "sm_90a", "pipeline": "", **options}
    source = arguments.pop("source")
    with pytest.raises(TypeError, match=message):
        get_or_compile(source, **arguments)
