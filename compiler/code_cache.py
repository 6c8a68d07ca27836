"""A bytecode cache for the methods that ``dataclasses`` generates, kept beside qdot's ``.pyc`` files.

Python 3.11 and 3.12 build every dataclass's ``__init__``, ``__repr__``, ``__eq__``, … by
formatting their source text and compiling it with ``exec``, one method at a time. xDSL
defines its attributes and ops as dataclasses, as do our dialects and passes: a
``qdot-translate`` run creates 318 of them, and compiling their 1525 generated methods
(973 distinct texts) took 0.12 of its 0.55 s — a fifth of a cold compile, paid again in
every process, because ``.pyc`` files cache only the source that is on disk.

This module gives ``dataclasses`` its own ``exec``: a method's text is compiled once, and the
code object is kept, keyed by the text itself, in memory and in
``__pycache__/dataclass-methods.<tag>.marshal`` (``<tag>`` is the interpreter's bytecode tag,
with ``.opt-N`` under ``-O``, as for ``.pyc`` files, so another Python never reads it).
Running the cached code object with the same globals and locals is what ``exec`` of the text
does, so the classes are the same; a text not in the cache is compiled as before. Nothing
goes stale: the key is the full source, so an edited class simply misses.

The file is written as a ``.pyc`` is: when a process compiled texts the file lacks, unless
``sys.dont_write_bytecode`` (``PYTHONDONTWRITEBYTECODE``) says not to write bytecode.
``python -m compiler.precompile`` (in the README's install command) writes it regardless,
with the ``.pyc`` files, as ``python -m compileall`` does. Once the file holds more than
``_MAX_ENTRIES`` texts, a write keeps only those its process ran. ``QDOT_NO_CODE_CACHE=1``
turns the cache off. A missing, unreadable, foreign or damaged file (the sha256 of its payload, written after the
magic number, differs) is an empty cache. The file holds
code that runs at import, so it is trusted exactly as the ``.pyc`` files beside it are: whoever
can write one can write the other.
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

_OPT = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
_PATH = Path(__file__).resolve().parent / "__pycache__" / \
    f"dataclass-methods.{sys.implementation.cache_tag}{_OPT}.marshal"
_MAX_ENTRIES = 4096
"""Past this many texts (about four times what the compile path uses), a write keeps only the
texts its process ran: edited classes leave stale entries behind."""

_codes: dict[str, CodeType] = {}
"""Text → code object: what the file held, and what this process compiled since."""
_stored = 0
"""How many of ``_codes`` came from (or were last written to) the file."""
_used: set[str] = set()
"""The texts this process ran."""
_installed = False
"""Whether ``dataclasses`` runs ``_exec`` (``install``)."""


def _exec(source: Any, globals: dict | None = None, locals: dict | None = None, /) -> None:
    """``exec`` for ``dataclasses``: a string is compiled once per text, like ``exec`` would
    compile it (filename ``<string>``, none of this module's ``__future__`` flags). Without
    globals, the builtin would run in its caller's: that is ``dataclasses``, not this module."""
    if globals is None:
        globals = vars(dataclasses)
    if isinstance(source, str):
        _used.add(source)
        code = _codes.get(source)
        if code is None:
            code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
        source = code
    exec(source, globals, locals)


def _load() -> None:
    global _stored
    try:
        data = _PATH.read_bytes()
        head = len(MAGIC_NUMBER)
        # the payload's hash after the magic number: a damaged byte could still unmarshal, into another method
        if data[:head] != MAGIC_NUMBER or data[head:head + 32] != hashlib.sha256(data[head + 32:]).digest():
            return
        codes = marshal.loads(data[head + 32:])
    except Exception:  # noqa: BLE001 - marshal raises SystemError too on a damaged code object: an empty cache
        return
    if isinstance(codes, dict):
        _codes.update((k, v) for k, v in codes.items() if isinstance(k, str) and isinstance(v, CodeType))
        _stored = len(_codes)


def save(force: bool = False) -> None:
    """Write the cache if this process compiled texts it lacks (and bytecode may be written,
    or ``force``). Atomic: a concurrent reader sees the old file or the new one."""
    global _stored
    if len(_codes) == _stored or not _installed or (sys.dont_write_bytecode and not force):
        return
    keep = _codes if len(_codes) <= _MAX_ENTRIES else {text: _codes[text] for text in _used}
    tmp = _PATH.with_name(f"{_PATH.name}.{os.getpid()}.tmp")
    try:
        _PATH.parent.mkdir(exist_ok=True)
        payload = marshal.dumps(keep)
        tmp.write_bytes(MAGIC_NUMBER + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, _PATH)
        _stored = len(_codes)
    except OSError:
        try:  # on a read-only file system the unlink fails too (EROFS, not FileNotFoundError)
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def install() -> None:
    """Give ``dataclasses`` the caching ``exec`` (once; before the dialects are imported)."""
    global _installed
    if _installed or os.environ.get("QDOT_NO_CODE_CACHE", "") not in ("", "0") \
            or sys.implementation.cache_tag is None:
        return
    _installed = True
    _load()
    dataclasses.exec = _exec  # type: ignore[attr-defined]  # found before the builtin
    atexit.register(save)  # the tools end with os._exit and call save themselves
