"""Optimization remarks: ``file:line:col: remark: <pass>: <message>``, one per lowering decision.

LLVM's ``-Rpass`` and MLIR's remarks answer a compiler engineer's "what did this pass decide
here, and why?" without diffing IR dumps: which strategy a dot took and why the faster ones
refused, which ``ldmatrix`` form a load became or why it fell back to scalar ``ld.shared``, how
many pipeline stages a loop got. The passes report each decision at its operation through
``remark``; ``collecting`` turns that on for one compile (the tools' ``--remarks``,
``compiler.compile(..., remarks=True)``), and ``Remarks.lines`` gives them back in IR order.

Off (the default), a decision costs one ``enabled`` test: the passes build a message only
behind it (``if remarks.enabled(NAME): remarks.remark(op, NAME, f"...")``), or hand ``remark``
a callable. The switch is a context variable, set for the extent of one compile, so two
compiles in one process (threads included) never see each other's remarks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation

_UNLOCATED = (1 << 62, 0)
"""Sort key of a remark at an operation without a location: after every located one."""


@dataclass
class Remarks:
    """The remarks of one compile (one chunk of ``--split-input-file``)."""

    passes: frozenset[str] | None = None
    """The passes whose remarks are kept (``--remarks=P,Q``); None: every pass."""
    _found: list[tuple[tuple[int, int], int, str]] = field(default_factory=list)
    """(line and column of the op, order of arrival, the remark's line)."""

    def wants(self, pass_name: str) -> bool:
        return self.passes is None or pass_name in self.passes

    def add(self, op: Operation | None, pass_name: str, message: str) -> None:
        from compiler.diagnostics import location_of

        where = location_of(op)
        line = f"{where}: remark: {pass_name}: {message}"
        if any(text == line for _, _, text in self._found):
            return  # the same decision at the same place (a pipeline's prologue copy and its loop's): said once
        self._found.append((_sort_key(where), len(self._found), line))

    def lines(self) -> tuple[str, ...]:
        """Each remark as one line, in the order of the operations they are at (their source
        positions); the remarks at one operation in the order the passes made them."""
        return tuple(text for _, _, text in sorted(self._found))


_ACTIVE: ContextVar[Remarks | None] = ContextVar("qdot_remarks", default=None)


def enabled(pass_name: str) -> bool:
    """Whether a remark of ``pass_name`` would be kept: test this before building its message."""
    active = _ACTIVE.get()
    return active is not None and active.wants(pass_name)


def remark(op: Operation | None, pass_name: str, message: str | Callable[[], str]) -> None:
    """Report a decision ``pass_name`` made at ``op`` (located there, or at its nearest located
    ancestor). ``message`` names the choice and the reason; a callable is called only when the
    remark is kept."""
    active = _ACTIVE.get()
    if active is None or not active.wants(pass_name):
        return
    active.add(op, pass_name, message() if callable(message) else message)


@contextmanager
def collecting(into: Remarks | None) -> Iterator[Remarks | None]:
    """Keep the remarks of the passes run inside the block in ``into`` (None: none, at no cost)."""
    if into is None:
        yield None
        return
    token = _ACTIVE.set(into)
    try:
        yield into
    finally:
        _ACTIVE.reset(token)


def _sort_key(where: str) -> tuple[int, int]:
    """(line, column) of ``file:line:col``; an unknown location sorts last."""
    parts = where.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[1]), int(parts[2])
    return _UNLOCATED
