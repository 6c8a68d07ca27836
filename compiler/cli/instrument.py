"""What the tools report about the passes they run: the IR before and after a pass, and the time.

A kernel engineer asks of a pipeline "what did this pass do to my kernel?" and "where does the
compile time go?". MLIR's tools answer with ``-mlir-print-ir-before/after(-all)``,
``-mlir-print-ir-after-change``, ``-mlir-print-ir-after-failure`` and ``-mlir-timing``; qdot-opt
and qdot-translate take the same options without the ``mlir-`` prefix (``--timing`` for the
last), with the same dump headers, so habits and scripts carry over:

    // -----// IR Dump Before qdot-lower-mma //----- //
    // -----// IR Dump After qdot-lower-mma //----- //
    // -----// IR Dump After qdot-lower-mma Failed //----- //

Dumps and the timing report go to standard error, the result to standard output (or ``-o``),
so ``2> passes.mlir`` keeps them apart. Without any of these options the tools install no
instrumentation at all, so a plain compile costs nothing extra.

``--remarks`` (LLVM's ``-Rpass``) asks the passes why rather than what: each lowering decision
as one located line, ``file:line:col: remark: <pass>: <message>`` (``compiler.remarks``);
``--remarks=P,Q`` keeps those passes' only.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from io import StringIO
from typing import IO, TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

if TYPE_CHECKING:
    from compiler.remarks import Remarks


class UnknownPassName(ValueError):
    """A ``--print-ir-before/after`` name that is not a pass of the pipeline the tool runs."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The pass-instrumentation options, the same in both tools."""
    group = parser.add_argument_group(
        "inspecting passes", "IR dumps and the timing report go to standard error; "
        "PASSES is a comma-separated list of pass names of the pipeline (the option may repeat)")
    group.add_argument("--print-ir-before-all", action="store_true", help="print the IR before every pass")
    group.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass")
    group.add_argument("--print-ir-before", action="append", default=[], metavar="PASSES",
                       help="print the IR before these passes")
    group.add_argument("--print-ir-after", action="append", default=[], metavar="PASSES",
                       help="print the IR after these passes")
    group.add_argument("--print-ir-after-change", action="store_true",
                       help="print the IR after a pass only if the pass changed it (on its own: after every "
                            "pass that changed it)")
    group.add_argument("--print-ir-after-failure", action="store_true",
                       help="when a pass fails, print the IR as that pass left it")
    group.add_argument("--timing", action="store_true",
                       help="report the wall time of parsing, of each pass, of the verifier"
                            " (and of emitting the target artifact)")
    group.add_argument("--remarks", nargs="?", action="append", metavar="PASSES", default=None,
                       help="report each lowering decision at its op, 'file:line:col: remark: <pass>: ...', "
                            "in IR order after the pipeline (LLVM's -Rpass); '--remarks=P,Q' (with the '=') "
                            "only those passes' remarks (the option may repeat)")


REMARKS_FLAG = "--remarks"
_EVERY_PASS = "\0"
"""What a bare ``--remarks`` becomes (``spell_bare_remarks``): a value no command line can give,
since an argument cannot hold a NUL byte, so ``--remarks=`` with nothing after it stays apart."""
BARE_REMARKS = f"{REMARKS_FLAG}={_EVERY_PASS}"
"""A bare ``--remarks`` as the parser receives it."""


def spell_bare_remarks(argv: list[str] | None) -> list[str]:
    """``argv`` (the process's when None) with a bare ``--remarks`` given a value of its own, so
    it never takes the input file that follows it as its list of passes (``qdot-opt --remarks
    kernel.mlir``); a list is given only as ``--remarks=P,Q``, as LLVM's ``-pass-remarks=``."""
    if argv is None:
        argv = sys.argv[1:]
    out: list[str] = []
    for index, arg in enumerate(argv):
        if arg == "--":
            return out + argv[index:]
        out.append(BARE_REMARKS if arg == REMARKS_FLAG else arg)
    return out


def _refuse_empty(option: str, values: list[str | None], instead: str) -> None:
    """An ``option=`` that names no pass (``--print-ir-after=``, ``--remarks=,``) is refused with what
    to write instead. The two kinds of option used to read it in opposite ways (no dump at all; every
    pass's remarks), each silently: whichever was meant, the other reading looks like a pass that did
    nothing, or floods the output."""
    for value in values:
        if value not in (None, _EVERY_PASS) and not _names([value or ""]):
            from compiler.cli.common import ToolError  # common imports this module

            raise ToolError(f"{option}={value or ''} names no pass; give pass names ({option}=P,Q), or {instead}")


def remarks_from_args(args: argparse.Namespace, pipeline: PassPipeline) -> Remarks | None:
    """The remarks ``--remarks`` asks for (None without it): every pass's for a bare ``--remarks``,
    else those of the passes its lists name; a pass named in a list that the pipeline does not run is
    refused, as for ``--print-ir-after``, and so is a list that names none (``_refuse_empty``)."""
    if args.remarks is None:
        return None
    from compiler.remarks import Remarks

    _refuse_empty(REMARKS_FLAG, args.remarks, f"write {REMARKS_FLAG} alone for every pass's remarks")
    if _EVERY_PASS in args.remarks or None in args.remarks:  # None: a bare --remarks not spelt first
        return Remarks()
    names = _names(args.remarks)
    present = [p.name for p in pipeline.passes]
    for name in sorted(names - set(present)):
        import difflib

        close = difflib.get_close_matches(name, present, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        runs = ", ".join(dict.fromkeys(present)) or "no passes"
        raise UnknownPassName(f"--remarks: '{name}' is not a pass of the pipeline ({hint}it runs: {runs})")
    return Remarks(names)


def phase(inst: PassInstrumentation | None, what: str, within: str | None = None) -> AbstractContextManager[None]:
    """``inst.timed(what, within)``, or nothing to time when the tool runs uninstrumented."""
    return inst.timed(what, within) if inst is not None else nullcontext()


def _names(values: list[str]) -> frozenset[str]:
    return frozenset(name.strip() for value in values for name in value.split(",") if name.strip())


@dataclass
class PassInstrumentation:
    """The options of ``add_arguments`` and the state of one tool run under them."""

    before_all: bool = False
    after_all: bool = False
    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    after_change: bool = False
    after_failure: bool = False
    timing: bool = False
    generic: bool = False
    stream: IO[str] | None = None
    """Where dumps and the report go (standard error when None)."""

    running: ModulePass | None = None
    """The pass whose output is being produced or checked: a failure now is that pass's."""
    _text_before: str | None = None
    _started: float = 0.0
    _times: dict[str, float] = field(default_factory=dict)
    """Wall seconds by phase of the report, in first-seen order; "passes" is the sum of ``_passes``."""
    _passes: dict[int, list] = field(default_factory=dict)
    """[name, seconds] by position in the pipeline (a pass that runs twice gets two lines)."""
    _index: int = 0
    _steps: dict[str, dict[str, float]] = field(default_factory=dict)
    """Wall seconds of the steps within a phase (``timed(..., within=phase)``), by phase."""

    @classmethod
    def from_args(cls, args: argparse.Namespace, generic: bool = False) -> PassInstrumentation | None:
        """The instrumentation the options ask for, or None when they ask for none. A
        ``--print-ir-before=`` or ``--print-ir-after=`` that names no pass is refused
        (``_refuse_empty``): ``--print-ir-after-all`` is how to ask for every pass."""
        for option, values in (("--print-ir-before", args.print_ir_before), ("--print-ir-after", args.print_ir_after)):
            _refuse_empty(option, values, f"use {option}-all")
        inst = cls(before_all=args.print_ir_before_all, after_all=args.print_ir_after_all,
                   before=_names(args.print_ir_before), after=_names(args.print_ir_after),
                   after_change=args.print_ir_after_change, after_failure=args.print_ir_after_failure,
                   timing=args.timing, generic=generic)
        wanted = (inst.before_all or inst.after_all or inst.before or inst.after or inst.after_change
                  or inst.after_failure or inst.timing)
        return inst if wanted else None

    def check_names(self, pipeline: PassPipeline) -> None:
        """Refuse a pass name the pipeline does not run: a dump that never comes would look like
        a pass that did nothing."""
        present = [p.name for p in pipeline.passes]
        for option, names in (("--print-ir-before", self.before), ("--print-ir-after", self.after)):
            for name in sorted(names - set(present)):
                runs = ", ".join(dict.fromkeys(present)) or "no passes"
                raise UnknownPassName(f"{option}: '{name}' is not a pass of the pipeline (it runs: {runs})")

    # --- called by the pipeline's callback (compiler.cli.common.build_pipeline)

    def pass_starts(self, pass_: ModulePass, index: int, module: ModuleOp) -> None:
        if self.before_all or pass_.name in self.before:
            self._dump(f"Before {pass_.name}", module)
        if self._prints_after(pass_) and self.after_change:
            self._text_before = self._text(module)
        self.running = pass_
        self._index = index
        self._started = time.perf_counter()

    def pass_ends(self, pass_: ModulePass) -> None:
        seconds = time.perf_counter() - self._started
        self._add("passes", seconds)
        self._passes.setdefault(self._index, [pass_.name, 0.0])[1] += seconds

    def pass_verified(self, pass_: ModulePass, module: ModuleOp) -> None:
        self.running = None
        if not self._prints_after(pass_):
            return
        if self.after_change:
            before, self._text_before = self._text_before, None
            if before == self._text(module):
                return
        self._dump(f"After {pass_.name}", module)

    # --- called by the tools

    def failed(self, module: ModuleOp | None) -> None:
        """A pass (``running``) raised or left IR that does not verify. A pass that stopped half
        way may have left IR the printer cannot print (a use of an erased value); that is said
        in the dump's place, not raised over the diagnostic the user needs."""
        if self.after_failure and self.running is not None and module is not None:
            title = f"After {self.running.name} Failed"
            try:
                text = self._text(module)
            except Exception as err:  # noqa: BLE001 - whatever the printer trips on
                text = f"// the IR cannot be printed: {type(err).__name__}: {err}\n"
            self._out().write(f"// -----// IR Dump {title} //----- //\n{text}\n")
        self.running = None

    def timed(self, what: str, within: str | None = None) -> _Timed:
        """``with inst.timed("parse"):`` adds the block's wall time to the report's line ``what``;
        ``within`` makes it a line under that phase (the steps of emitting the artifact)."""
        return _Timed(self, what, within)

    def report(self) -> None:
        if not self.timing:
            return
        total = sum(self._times.values())
        out = self._out()
        out.write("// -----// Execution time report //----- //\n")
        out.write(f"  total {total:.4f} s (from parsing to the result; the start-up before it is not counted)\n"
                  "  wall (s)    share  what\n")

        def line(seconds: float, what: str) -> None:
            out.write(f"  {seconds:8.4f}  {100.0 * seconds / total if total else 0.0:5.1f} %  {what}\n")

        for what, seconds in self._times.items():
            line(seconds, what)
            if what == "passes":
                for index, (name, pass_seconds) in sorted(self._passes.items()):
                    line(pass_seconds, f"  {index + 1:2d}. {name}")
            for step, step_seconds in self._steps.get(what, {}).items():
                line(step_seconds, f"    {step}")

    # --- helpers

    def _prints_after(self, pass_: ModulePass) -> bool:
        if self.after_all or pass_.name in self.after:
            return True
        return self.after_change and not self.after  # on its own: every pass that changed the IR

    def _add(self, what: str, seconds: float) -> None:
        if self.timing:
            self._times[what] = self._times.get(what, 0.0) + seconds

    def _text(self, module: ModuleOp) -> str:
        from compiler.cli.common import print_module

        out = StringIO()
        print_module(module, out, self.generic)
        return out.getvalue()

    def _out(self) -> IO[str]:
        return self.stream if self.stream is not None else sys.stderr

    def _dump(self, title: str, module: ModuleOp) -> None:
        out = self._out()
        out.write(f"// -----// IR Dump {title} //----- //\n")
        out.write(self._text(module))
        out.write("\n")


@dataclass
class _Timed:
    inst: PassInstrumentation
    what: str
    within: str | None = None
    _start: float = 0.0

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        seconds = time.perf_counter() - self._start
        if self.within is None:
            self.inst._add(self.what, seconds)  # noqa: SLF001 - the report's own helper
        elif self.inst.timing:
            steps = self.inst._steps.setdefault(self.within, {})  # noqa: SLF001
            steps[self.what] = steps.get(self.what, 0.0) + seconds
