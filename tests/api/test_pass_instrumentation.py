"""compiler.cli.instrument beyond what the lit tests show: the failure dump's fallback."""

from __future__ import annotations

import io
from types import SimpleNamespace

from compiler.cli.instrument import PassInstrumentation


def test_failure_dump_of_unprintable_ir_says_so() -> None:
    """A pass that stopped half way may leave IR the printer trips on; the dump says so instead
    of raising over the pass's diagnostic."""
    inst = PassInstrumentation(after_failure=True, stream=io.StringIO())
    inst.running = SimpleNamespace(name="qdot-lower-mma")

    def unprintable(module: object) -> str:
        raise ValueError("use of an erased value")

    inst._text = unprintable  # type: ignore[method-assign]  # noqa: SLF001
    inst.failed(object())  # type: ignore[arg-type]
    assert inst.stream is not None
    assert inst.stream.getvalue() == ("// -----// IR Dump After qdot-lower-mma Failed //----- //\n"
                                      "// the IR cannot be printed: ValueError: use of an erased value\n\n")
    assert inst.running is None


def test_no_dump_without_the_option() -> None:
    inst = PassInstrumentation(stream=io.StringIO())
    inst.running = SimpleNamespace(name="cse")
    inst.failed(object())  # type: ignore[arg-type]
    assert inst.stream is not None and inst.stream.getvalue() == ""
