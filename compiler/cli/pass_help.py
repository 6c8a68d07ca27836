"""The pass list of the tools' ``--help``: every pass, what it does and its options.

``mlir-opt --help`` lists each pass with a line of description and its options; a user of
qdot-opt should not have to open ``passes/`` to learn that ``qdot-accelerate-matmul`` takes
``q4k-fold``. Describing a pass means importing its module, which a compile must not pay for
(the registry loads passes lazily), so the parsers build this text only when help is printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import IO, NoReturn

from compiler import registry

WIDTH = 96


class LazyEpilogParser(argparse.ArgumentParser):
    """The tools' ``ArgumentParser``: its epilog is computed when the help is formatted, not
    before; a command-line error is a ``ToolError`` (``tool: error: …``, status 1, as the docs
    promise — argparse's own is the whole usage and status 2, which the tools keep for their
    internal errors); an option is never guessed from a prefix (``--verify`` is not
    ``--verify-diagnostics``); and ``--version`` says which qdot it is."""

    def __init__(self, *args: object, epilog_text: Callable[[], str], **kwargs: object) -> None:
        super().__init__(*args, allow_abbrev=False, **kwargs)  # type: ignore[arg-type]
        self._epilog_text = epilog_text
        self.add_argument("--version", action=_Version, help="print the qdot version and exit")

    def format_help(self) -> str:
        self.epilog = self._epilog_text()
        return super().format_help()

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        """argparse's, without its ``except OSError: pass``: ``--help > /dev/full`` ended with status 0 having
        written nothing. The failure reaches ``tool_main``, which says so (or ends quietly for a closed pipe)."""
        if message:
            (file or sys.stderr).write(message)

    def error(self, message: str) -> NoReturn:
        from compiler.cli.common import ToolError

        raise ToolError(f"{message}{self._remarks_hint(message)} (see {self.prog} --help)")

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._argv = list(sys.argv[1:] if args is None else args)  # for _remarks_hint
        return super().parse_known_args(args, namespace)

    def _remarks_hint(self, message: str) -> str:
        """``--remarks qdot-lower-mma`` (a bare ``--remarks``, then a word the parser cannot place) is the natural
        way to ask for one pass's remarks; it takes the list only after an '=', so that ``--remarks kernel.mlir``
        keeps its input. Where the word left over right after a bare ``--remarks`` is a list of pass names, say how
        to write it."""
        from compiler.cli.instrument import BARE_REMARKS

        prefix = "unrecognized arguments: "
        argv = getattr(self, "_argv", [])
        if not message.startswith(prefix):
            return ""
        known = registry.pass_factories()
        after_bare = {argv[i + 1] for i in range(len(argv) - 1) if argv[i] == BARE_REMARKS}  # spell_bare_remarks's
        for word in message[len(prefix):].split():
            names = [name.strip() for name in word.split(",")]
            if word in after_bare and all(name in known for name in names):
                return f"; to keep only {'these passes' if len(names) > 1 else 'this pass'}' remarks write " \
                       f"--remarks={word} (the list follows an '=')"
        return ""


class Once(argparse.Action):
    """A ``store`` option that may be given once: a second ``-p`` would otherwise replace the
    first in silence (mlir-opt refuses a second ``--pass-pipeline`` the same way)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option: str | None = None) -> None:
        if getattr(namespace, "_given_" + self.dest, False):
            parser.error(f"{'/'.join(self.option_strings)} may be given once; put all passes in one pipeline, "
                         "separated by commas")
        setattr(namespace, "_given_" + self.dest, True)
        setattr(namespace, self.dest, values)


def ascii_int(text: str) -> int:
    """An integer flag's value (argparse ``type=``), in the digits 0-9 only: ``int`` also reads ``٣`` or
    ``１２８`` as numbers, which the pass options (``-p 'qdot-pipeline{num-stages=٣}'``) and ``--grid``
    refuse, so one flag would take what its twin in a pipeline does not."""
    if re.fullmatch(r"[+-]?[0-9]+", text.strip()) is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer (digits 0-9)")
    return int(text)


class _Version(argparse.Action):
    """``--version``, which reads the installed package's metadata only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("qdot")
        except PackageNotFoundError:
            text = "(not installed)"
        print(f"{parser.prog} (qdot {text})")
        parser.exit()


def summary(name: str) -> str:
    """The first sentence of the pass module's docstring, without the leading ``name…:``."""
    if name in registry.GENERIC_PASS_SUMMARIES:
        return registry.GENERIC_PASS_SUMMARIES[name]
    cls = registry.load(registry.PASSES[name])
    doc = inspect.getmodule(cls).__doc__ or cls.__doc__ or ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    if first.startswith(name):
        first = first.split(": ", 1)[-1]
    first = first.replace("``", "`")
    return first.split(". ")[0].rstrip(".")


def options(name: str) -> list[str]:
    """``option=default`` for each option of the pass, spelt as a pipeline takes it, with the
    values it takes where the pass names them (``OPTION_VALUES``, the tuple ``apply`` checks) or their range
    (``OPTION_MINIMUM`` / ``OPTION_MAXIMUM``)."""
    cls = registry.load(registry.PASSES[name])
    if not dataclasses.is_dataclass(cls):
        return []
    values = getattr(cls, "OPTION_VALUES", {})
    low, high = getattr(cls, "OPTION_MINIMUM", {}), getattr(cls, "OPTION_MAXIMUM", {})
    found = []
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING:
            continue
        default = str(f.default).lower() if isinstance(f.default, bool) else f.default
        choices = f" ({'|'.join(values[f.name])})" if f.name in values else ""
        if f.name in low or f.name in high:  # an integer's range, as check_option_values holds it to
            choices = f" ({low.get(f.name, '')}..{high.get(f.name, '')})"
        found.append(f"{f.name.replace('_', '-')}={default}{choices}")
    return found


def passes_help(example: str) -> str:
    """The help's "passes" section; ``example`` shows how the tool takes a pipeline."""
    lines = [f"passes, each with its options and their defaults (options go in braces, space separated, "
             f"e.g. {example}):"]
    for name in registry.PASSES:
        lines += textwrap.wrap(summary(name), WIDTH, initial_indent=f"  {name:28s}", subsequent_indent=" " * 30,
                               break_on_hyphens=False)
        for option in options(name):
            lines += textwrap.wrap(option, WIDTH, initial_indent=" " * 32, subsequent_indent=" " * 36,
                                   break_on_hyphens=False)
    return "\n".join(lines)
