"""compiler.code_cache: cached dataclass methods make the same classes, and the cache file is
written, read and refused as a bytecode cache should be."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import pytest

from compiler import code_cache  # importing `compiler` installs the cache, for every entry point

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_file(tmp_path, monkeypatch):
    """The cache redirected to a scratch file, with this process's state saved and restored."""
    path = tmp_path / "__pycache__" / "dataclass-methods.test.marshal"
    monkeypatch.setattr(code_cache, "_PATH", path)
    monkeypatch.setattr(code_cache, "_codes", {})
    monkeypatch.setattr(code_cache, "_used", set())
    monkeypatch.setattr(code_cache, "_stored", 0)
    return path


def _make_classes():
    """One dataclass of each kind of generated method: defaults and factories, frozen, order,
    keyword-only fields, slots, a post-init."""
    @dataclasses.dataclass(order=True)
    class Point:
        x: int
        y: float = 0.5
        tags: list[str] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
    class Frozen:
        name: str
        size: int = 3

        def __post_init__(self) -> None:
            if self.size < 0:
                raise ValueError("size")

    return Point, Frozen


def test_dataclasses_exec_is_the_cache():
    assert dataclasses.exec is code_cache._exec  # installed by `import compiler`


def test_cached_methods_behave_as_generated(cache_file):
    first = _make_classes()
    compiled = len(code_cache._codes)
    assert compiled > 0
    second = _make_classes()  # every method text now comes from the cache
    assert len(code_cache._codes) == compiled
    for Point, Frozen in (first, second):
        p = Point(1)
        assert (p.x, p.y, p.tags) == (1, 0.5, [])
        assert Point(1) == p and Point(1, 0.25) < p
        assert repr(p).endswith("Point(x=1, y=0.5, tags=[])")
        assert Point(1).tags is not p.tags  # default_factory runs per instance
        f = Frozen(name="a")
        assert f.size == 3 and f == Frozen(name="a", size=3) and hash(f) == hash(Frozen(name="a"))
        with pytest.raises(dataclasses.FrozenInstanceError):
            f.size = 4  # type: ignore[misc]
        with pytest.raises(TypeError, match=r"__init__\(\) takes 1 positional argument but 2 were given"):
            Frozen("a")  # type: ignore[misc]  # keyword-only
        with pytest.raises(ValueError, match="^size$"):  # the class's own __post_init__ ran
            Frozen(name="a", size=-1)
        assert not hasattr(f, "__dict__")  # slots


def test_generated_annotations_are_objects_not_strings(cache_file):
    # This module has `from __future__ import annotations`; the cache must not pass that
    # flag on to the generated code, or __init__'s annotations would become strings.
    Made = dataclasses.make_dataclass("Made", [("x", int)])
    assert Made.__init__.__annotations__["x"] is int
    Again = dataclasses.make_dataclass("Made", [("x", int)])
    assert Again.__init__.__annotations__["x"] is int


def test_without_globals_the_code_runs_in_dataclasses_namespace(cache_file):
    ns: dict = {}
    code_cache._exec("def f():\n return MISSING", None, ns)
    assert ns["f"]() is dataclasses.MISSING  # a name of the dataclasses module


def test_save_and_load_round_trip(cache_file):
    _make_classes()
    code_cache.save(force=True)
    data = cache_file.read_bytes()
    assert data.startswith(MAGIC_NUMBER)
    stored = marshal.loads(data[len(MAGIC_NUMBER) + 32:])  # after the payload's sha256
    assert set(stored) == set(code_cache._codes)
    code_cache._codes.clear()
    code_cache._load()
    assert set(code_cache._codes) == set(stored) and code_cache._stored == len(stored)


def test_nothing_written_without_new_texts_or_under_dont_write_bytecode(cache_file, monkeypatch):
    code_cache.save()
    assert not cache_file.exists()  # nothing compiled yet
    _make_classes()
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    code_cache.save()
    assert not cache_file.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    code_cache.save()
    assert cache_file.exists()
    before = cache_file.stat().st_mtime_ns
    code_cache.save()  # nothing new since
    assert cache_file.stat().st_mtime_ns == before


@pytest.mark.parametrize("content", [b"", b"\x00\x01\x02", b"garbage" * 10, None])
def test_foreign_or_broken_files_are_an_empty_cache(cache_file, content):
    cache_file.parent.mkdir(parents=True)
    if content is None:  # another interpreter's magic number
        content = b"\xff\xff\r\n" + marshal.dumps({"def f(): pass": compile("1", "<string>", "exec")})
    cache_file.write_bytes(content)
    code_cache._load()
    assert code_cache._codes == {}
    _make_classes()  # and dataclasses still work
    assert code_cache._codes


def test_a_code_object_marshal_cannot_rebuild_is_an_empty_cache(cache_file, monkeypatch):
    """marshal raises SystemError ("non-string found in code slot") on some damaged files, not ValueError: one
    byte changed in the real file made ``import compiler`` fail."""
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(MAGIC_NUMBER + hashlib.sha256(b"damaged").digest() + b"damaged")

    def damaged(data):
        raise SystemError("non-string found in code slot")

    monkeypatch.setattr(code_cache.marshal, "loads", damaged)
    code_cache._load()
    assert code_cache._codes == {}


def test_a_byte_damaged_in_the_payload_is_an_empty_cache(cache_file):
    """A review flipped three bits of the real file: in one trial of 40 it still unmarshalled, into another
    generated method (compiles then failed: "__create_fn__() got an unexpected keyword argument"). The payload's
    hash is checked first."""
    _make_classes()
    code_cache.save(force=True)
    data = bytearray(cache_file.read_bytes())
    data[-5] ^= 0x01
    cache_file.write_bytes(bytes(data))
    code_cache._codes.clear()
    code_cache._load()
    assert code_cache._codes == {}


def test_a_cache_that_cannot_be_written_is_skipped_quietly(cache_file, monkeypatch):
    """A file where ``__pycache__`` should be (or a read-only file system) fails the write and the scratch file's
    removal alike; neither may turn a finished tool run into a traceback at exit."""
    blocker = cache_file.parent
    blocker.write_text("a file, not a directory")
    _make_classes()
    code_cache.save(force=True)
    assert blocker.read_text() == "a file, not a directory"


def test_a_full_cache_keeps_only_what_its_process_ran(cache_file, monkeypatch):
    monkeypatch.setattr(code_cache, "_MAX_ENTRIES", 4)
    code_cache._codes.update({f"# stale {i}": compile("1", "<string>", "exec") for i in range(10)})
    _make_classes()
    code_cache.save(force=True)
    stored = marshal.loads(cache_file.read_bytes()[len(MAGIC_NUMBER) + 32:])
    assert set(stored) == code_cache._used and not any(text.startswith("# stale") for text in stored)


_CHILD = """
import dataclasses, json
from compiler import code_cache
print(json.dumps({"patched": getattr(dataclasses, "exec", None) is code_cache._exec}))
"""


@pytest.mark.parametrize(("value", "patched"), [("1", False), ("0", True)])
def test_environment_switch(value, patched):
    env = {**os.environ, "QDOT_NO_CODE_CACHE": value, "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", _CHILD], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == {"patched": patched}


def test_translate_output_is_the_same_with_and_without_the_cache():
    example = ROOT / "examples" / "mx_gemm_e4m3_e2m1.mlir"
    outputs = []
    for value in ("1", "0"):
        env = {**os.environ, "QDOT_NO_CODE_CACHE": value, "PYTHONDONTWRITEBYTECODE": "1"}
        outputs.append(subprocess.run([sys.executable, "-m", "compiler.cli.translate", str(example), "--target",
                                       "ptx", "--arch", "sm_90"], cwd=ROOT, env=env, capture_output=True,
                                      check=True).stdout)
    assert outputs[0] == outputs[1] and b".entry" in outputs[0]
