"""What qdot-opt and qdot-translate share: reading input, parsing with locations,
running a pass pipeline, and turning every failure into a diagnostic.

Errors never escape as Python tracebacks: parse errors, verifier failures and
pass failures become ``file:line:col: error: ...`` lines and a non-zero exit;
anything else is reported as an internal error (``QDOT_TRACEBACK=1`` shows it).
"""

from __future__ import annotations

import errno
import gc
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import IO, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

from compiler import code_cache
from compiler.cli import pipeline_spec
from compiler.cli.instrument import PassInstrumentation, UnknownPassName
from compiler.diagnostics import (
    LocatingParser,
    PassOutputError,
    QdotError,
    location_of,
    render_parse_error,
    verify_module,
)

SPLIT_MARKER = "// -----"


class ToolError(ValueError):
    """A usage error (bad flag, missing file, unknown pass, bad pass option): ``tool: error: msg``,
    exit 1 (from ``compiler.compile``: a ValueError with the same message)."""


@dataclass
class Chunk:
    text: str
    line_offset: int
    expected: list["ExpectedDiagnostic"] = field(default_factory=list)
    malformed: list["MalformedAnnotation"] = field(default_factory=list)
    """``expected-*`` annotations that do not parse; only ``qdot-opt --verify-diagnostics`` reports them."""


@dataclass
class ExpectedDiagnostic:
    line: int  # 1-based line in the whole file
    message: str
    seen: bool = False
    where: tuple[int, int] = (0, 0)
    """Line and column of the annotation itself: an expectation never met is reported there, as
    mlir-opt does, since that is the line to fix (``line`` may be another, with ``@+N``)."""


@dataclass
class MalformedAnnotation:
    line: int
    col: int
    problem: str


_EXPECTED_RE = re.compile(r"(?<![\w-])expected-error\s*(@[+-]?\d+|@above|@below)?\s*\{\{(.*?)\}\}")
_ANNOTATION_RE = re.compile(r"//\s*(expected-[\w-]*)|(?<![\w-])(expected-[\w-]*)\s*(?:@\S*\s*)?\{\{")
"""What is meant as an annotation: ``expected-…`` opening a comment, or written before a ``{{``
anywhere in one. Prose that mentions expected-error in the middle of a comment is not one."""
_MLIR_KINDS = ("expected-error", "expected-warning", "expected-note", "expected-remark")


def _expected_in(text: str, line_offset: int) -> tuple[list[ExpectedDiagnostic], list[MalformedAnnotation]]:
    """The chunk's ``expected-error`` annotations (anywhere in a ``//`` comment, as mlir-opt
    reads them) and the would-be annotations that do not parse.

    An annotation that does not parse (``{{x`` unclosed, a misspelt kind) would otherwise be a
    comment, and a test written to check a refusal would pass without checking anything."""
    found: list[ExpectedDiagnostic] = []
    malformed: list[MalformedAnnotation] = []
    for index, line in enumerate(text.split("\n")):
        comment = line.find("//")
        if comment < 0 or "expected-" not in line:
            continue
        here = index + 1 + line_offset
        good: list[tuple[int, int]] = []
        for match in _EXPECTED_RE.finditer(line, comment):
            where = match.group(1)
            target = here
            if where in ("@above",):
                target -= 1
            elif where in ("@below",):
                target += 1
            elif where:
                target += int(where[1:])
            good.append(match.span())
            found.append(ExpectedDiagnostic(target, match.group(2).strip(), where=(here, match.start() + 1)))
        for match in _ANNOTATION_RE.finditer(line, comment):
            kind_group = 1 if match.group(1) is not None else 2
            start = match.start(kind_group)
            if any(begin <= start < end for begin, end in good):
                continue
            problem = _annotation_problem(match.group(kind_group), line[start:])
            malformed.append(MalformedAnnotation(here, start + 1, problem))
            good.append((start, len(line)))  # one report for one annotation
    return found, malformed


def _annotation_problem(kind: str, rest: str) -> str:
    """Why ``rest`` (from ``expected-`` to the end of its line) is not an annotation qdot-opt checks."""
    if kind not in _MLIR_KINDS:
        import difflib

        close = difflib.get_close_matches(kind, _MLIR_KINDS[:1], n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else "; qdot-opt checks 'expected-error {{...}}'"
        return f"unknown annotation '{kind}'{hint}"
    if kind != "expected-error":
        return f"qdot-opt checks 'expected-error' annotations only, not '{kind}'"
    after = rest[len(kind):].lstrip()
    if after.startswith("@"):
        designator = after.split("{{", 1)[0].strip() if "{{" in after else after.split()[0]
        if not re.fullmatch(r"@(?:[+-]?\d+|above|below)", designator):
            return f"malformed expected-error annotation: bad line designator '{designator}' " \
                   "(expected @+N, @-N, @above or @below)"
        after = after[len(designator):].lstrip()
    if not after.startswith("{{"):
        return "malformed expected-error annotation: expected '{{' and the message"
    return "malformed expected-error annotation: no closing '}}' on its line"


BYTE_ORDER_MARK = "\ufeff"
"""What some editors on Windows put before UTF-8 text. It says nothing in UTF-8 and is invisible,
so ``read_input`` drops it (as clang and gcc do) rather than report an unexpected character no
one can see; it is no character of the first line, so every location stays what an editor shows."""


def read_input(path: str | None) -> tuple[str, str]:
    """The text of ``path`` (standard input for None or ``-``) and the name diagnostics give it,
    without a leading byte-order mark."""
    name = "<stdin>" if path is None or path == "-" else path
    try:
        if name == "<stdin>":
            stream = getattr(sys.stdin, "buffer", None)  # a text stream standing in has none
            text = stream.read().decode("utf-8") if stream is not None else sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        return text.removeprefix(BYTE_ORDER_MARK), name
    except OSError as err:
        raise ToolError(f"cannot read '{name}': {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise ToolError(f"cannot read '{name}': it is not UTF-8 text (byte 0x{err.object[err.start]:02x} at "
                        f"offset {err.start})") from None


def write_output(path: str | None, data: str | bytes) -> None:
    """``data`` to ``path``, or to standard output when there is none or it is ``-``.

    Standard output is flushed here, so that an output that cannot take the data (a full disk,
    ``> /dev/full``) is a ``tool: error:`` like a bad ``-o``, not an exception at exit; a closed
    pipe is the reader's choice and stays quiet. Text is written as UTF-8 with the bytes of a file
    name that is not UTF-8 (``--print-debuginfo`` prints it in each location) given back as they
    were read. A file is written whole or not at all (``_replace_file``)."""
    if path is None or path == "-":
        buffer = getattr(sys.stdout, "buffer", None)  # a text stream standing in (a caller's StringIO) has none
        try:
            if buffer is None:
                sys.stdout.write(data if isinstance(data, str) else data.decode("utf-8", "surrogateescape"))
            else:
                sys.stdout.flush()  # anything written as text goes first
                buffer.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
            sys.stdout.flush()  # now, so that a full disk is reported and not lost at exit
        except BrokenPipeError:
            raise  # the reader is gone: tool_main ends quietly (``output_closed``)
        except OSError as err:
            raise ToolError(f"cannot write to standard output: {err.strerror}") from None
        return
    if not path:
        raise ToolError("-o '' names no file (write '-' for standard output)")
    try:
        _replace_file(path, data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
    except OSError as err:
        raise ToolError(f"cannot write '{path}': {err.strerror}") from None


def _replace_file(path: str, data: bytes) -> None:
    """``path`` holding ``data``: written to a new file beside it that then takes its place, so that a
    write that fails (a full disk, ``ulimit -f``) leaves what was there before and no half of an
    output. Only a regular file (or a new one) is replaced; anything else (``/dev/null``, a pipe) is
    written to as it is. Through a symbolic link the file it names is replaced, keeping its mode."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as f:
            f.write(data)
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=".qdot-", dir=os.path.dirname(target))
    except PermissionError:  # a file one may write in a directory one may not: written in place
        if mode is None:
            raise
        with open(target, "wb") as f:
            f.write(data)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(temporary, stat.S_IMODE(mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def split_chunks(text: str, split: bool) -> list[Chunk]:
    """The input, or with ``split`` its chunks: the text between lines that hold the marker ``// -----`` alone
    (spaces around it allowed). A marker within a line (``// ----------`` as a rule, ``"a // ----- b"`` in
    a string) is text: cut there, the chunk after it began mid-line and its first line's columns were not
    the file's."""
    if not split:
        return [Chunk(text, 0, *_expected_in(text, 0))]
    chunks: list[Chunk] = []
    lines = text.split("\n")
    first = 0
    for index, line in enumerate(lines + [SPLIT_MARKER]):
        if line.strip() == SPLIT_MARKER:
            # the marker's own line stays, emptied, at the end of the chunk before it: the lines of each chunk are
            # the file's, and what follows the last chunk's text is what followed it in the file
            piece = "\n".join(lines[first:index]) + ("\n" if index < len(lines) else "")
            chunks.append(Chunk(piece, first, *_expected_in(piece, first)))
            first = index + 1
    return chunks


MAX_REGION_NESTING = 64
"""The deepest nesting of regions (ops inside ops) the tools and ``compiler.compile`` take. xDSL's
parser, verifier, printer and walks recurse once per region, the parser eight to ten Python
frames deep each, so under Python's default recursion limit of 1000 a module 125 regions deep
ended in an internal ``RecursionError``. A limit checked while parsing is a diagnostic at the
operation whose region passes it, the same in a tool and in ``compiler.compile`` called from any thread at
any stack depth; raising the recursion limit (and a thread's stack size) instead would only move
the crash deeper, could not apply to ``compiler.compile`` without changing the caller's process,
and lets the C stack overflow where Python's guard no longer stops it. 64 is far beyond any
kernel (the deepest example nests four); parsing 64 regions takes about 660 frames, which leaves
a caller a third of the default limit (a caller deeper still gets the parser's guard below)."""


class _NestingLimitedParser(LocatingParser):
    """``LocatingParser`` that refuses regions nested deeper than ``MAX_REGION_NESTING`` at the
    operation whose region goes past it, and any other nesting the parser cannot follow (attributes
    or types inside one another hundreds deep) at the innermost operation it was reading, rather
    than let Python's recursion limit end the tool as an internal error."""

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - Parser's own
        self._region_depth = 0
        self._op_starts: list = []
        """Where each operation being parsed begins, innermost last: the one a region too deep belongs to."""
        self._too_deep_at = None
        """Where the innermost operation began when the parser ran out of Python's recursion limit."""
        super().__init__(*args, **kwargs)

    def parse_optional_region(self, *args, **kwargs):  # type: ignore[override]  # noqa: ANN002, ANN003, ANN201
        if self._current_token.text != "{":
            return super().parse_optional_region(*args, **kwargs)
        if self._region_depth >= MAX_REGION_NESTING:
            self.raise_error(f"nesting deeper than {MAX_REGION_NESTING} regions is not supported: this operation's "
                             f"region is nested {self._region_depth + 1} deep",
                             self._op_starts[-1] if self._op_starts else None)
        self._region_depth += 1
        try:
            return super().parse_optional_region(*args, **kwargs)
        finally:
            self._region_depth -= 1

    def parse_operation(self):  # type: ignore[override]  # noqa: ANN201
        """The region of a module written out at the top (``builtin.module {...}``, as qdot-opt's generic
        form prints every module) is not counted: it is the one an implicit module has without braces, so a
        module the tools print can be read back."""
        self._op_starts.append(self._current_token.span)
        try:
            if self._region_depth != 0 or self._current_token.text not in ("builtin.module", '"builtin.module"'):
                return super().parse_operation()
            self._region_depth = -1
            try:
                return super().parse_operation()
            finally:
                self._region_depth = 0
        except RecursionError:
            self._too_deep_at = self._too_deep_at or self._op_starts[-1]
            raise
        finally:
            self._op_starts.pop()

    def parse_module(self, *args, **kwargs):  # type: ignore[override]  # noqa: ANN002, ANN003, ANN201
        try:
            return super().parse_module(*args, **kwargs)
        except RecursionError:
            self.raise_error("nesting too deep to parse: attributes, types or regions inside one another "
                             "this many times are beyond what the parser can follow", self._too_deep_at)


def parse_module(ctx: Context, chunk: Chunk, filename: str) -> ModuleOp:
    """The chunk parsed (nested at most ``MAX_REGION_NESTING`` regions deep) and verified."""
    parser = _NestingLimitedParser(ctx, chunk.text, filename)
    parser.line_offset = chunk.line_offset
    module = parser.parse_module()
    verify_module(module)
    return module


def build_pipeline(
    factories: dict[str, Callable[[], type[ModulePass]]],
    spec: str,
    after_pass: Callable[[ModulePass, ModuleOp], None] | None = None,
    verify_each: bool = True,
    instrument: PassInstrumentation | None = None,
) -> PassPipeline:
    """The pipeline ``spec``, verifying each pass's output (``verify_each``) or the last one's:
    IR that does not verify after a pass is that pass's bug (``PassOutputError``). ``after_pass``
    sees the module after each pass; ``instrument`` (the tools' ``--print-ir-*`` and ``--timing``)
    sees each pass start, end and pass verification."""
    positions: dict[int, int] = {}

    def check(prev: ModulePass, module: ModuleOp, last: bool) -> None:
        if verify_each or last:
            try:
                verify_module(module)
            except QdotError as err:
                raise PassOutputError(prev.name, err) from None

    def callback(prev: ModulePass | None, module: ModuleOp, nxt: ModulePass | None) -> None:
        if prev is not None:
            if instrument is not None:
                instrument.pass_ends(prev)
                with instrument.timed("verifier"):
                    check(prev, module, nxt is None)
                instrument.pass_verified(prev, module)
            else:
                check(prev, module, nxt is None)
            if after_pass is not None:
                after_pass(prev, module)
        if nxt is not None and instrument is not None:
            instrument.pass_starts(nxt, positions.setdefault(id(nxt), len(positions)), module)

    from passes.support.options import check_option_values  # a pass module's helper: loaded with the passes

    try:
        text = pipeline_spec.normalized(spec)
        pipeline_spec.check(factories, text)
        pipeline = PassPipeline.parse_spec(factories, text, callback)
        for pass_ in pipeline.passes:
            check_option_values(pass_)
    except pipeline_spec.PipelineError as err:  # names the pass and option
        raise ToolError(str(err)) from None
    except QdotError as err:  # check_option_values: names the pass and option
        raise ToolError(err.message) from None
    except ModuleNotFoundError as err:
        raise ToolError(f"pass pipeline '{spec}' needs a module that is not built yet: {err.name}") from None
    except ArgSpecParseError as err:  # malformed syntax (xDSL 0.74 derives it from BaseException): said
        # of the text the user wrote, not of the normalized one xDSL read
        raise ToolError(f"invalid pass pipeline '{spec}': {pipeline_spec.syntax_error(spec, str(err))}") from None
    except Exception as err:  # what xDSL refuses that the check above does not
        raise ToolError(f"invalid pass pipeline '{spec}': {err}") from None
    if instrument is not None:
        try:
            instrument.check_names(pipeline)
        except UnknownPassName as err:
            raise ToolError(str(err)) from None
    return pipeline


def resolve_pipeline_flags(args) -> None:  # noqa: ANN001 - argparse.Namespace of --arch/--strategy/--num-stages/--pipeline
    """The flags that choose a pipeline, as qdot-translate and qdot-bench take them (defaults
    None until here): --strategy and --num-stages configure the default pipeline, so beside
    --pipeline they are refused, not ignored; the pipeline's passes must agree on one arch, and
    an --arch that names another is refused; without --arch the pipeline's is used. Then the
    defaults are filled in and the depth is bounded."""
    from compiler import registry
    from compiler.pipelines import stages_problem

    if args.pipeline is not None:
        given = [flag for flag, value in (("--strategy", args.strategy), ("--num-stages", args.num_stages))
                 if value is not None]
        if given:
            verb = "set" if len(given) > 1 else "sets"
            raise ToolError(f"{' and '.join(given)} {verb} the default pipeline's options; with --pipeline, give them "
                            "to its passes (qdot-accelerate-matmul{strategy=...}, qdot-pipeline{num-stages=...})")
        try:
            args.arch = pipeline_spec.pipeline_arch(registry.pass_factories(), args.pipeline, args.arch, "--arch")
        except pipeline_spec.PipelineError as err:
            raise ToolError(str(err)) from None
    args.arch = args.arch or "sm_90"
    args.strategy = args.strategy or "auto"
    args.num_stages = 3 if args.num_stages is None else args.num_stages
    if (problem := stages_problem("--num-stages", args.num_stages)) is not None:
        raise ToolError(problem)


class _FileNamePrinter(Printer):
    """xDSL's printer, with its strings printed so that they read back. xDSL escapes every byte of a non-ASCII
    character (``"f\\C3\\A9"``), which its lexer then reads as bytes, not a string: a symbol or a location's
    file name with an accent did not parse back. A printable non-ASCII character is printed as itself (UTF-8 on
    output); a byte of a file name that is not UTF-8 (Python keeps it as a lone surrogate, and
    ``--print-debuginfo`` prints the file name in each location) is escaped (``loc("g\\FF.mlir":3:5)``, MLIR's
    escape of the byte 0xFF), rather than failing to encode. (xDSL's parser reads no location whose string is
    not UTF-8, so such output does not parse back.)"""

    def print_string_literal(self, string: str) -> None:
        self.print_string('"')
        for char in string:
            code = ord(char)
            if code > 0x7E and char.isprintable() and not 0xD800 <= code <= 0xDFFF:
                self.print_string(char)
                continue
            for byte in char.encode("utf-8", "surrogateescape"):
                if byte == 0x5C:
                    self.print_string("\\\\")
                elif byte < 0x20 or byte > 0x7E or byte == 0x22:
                    self.print_string(f"\\{byte:02X}")
                else:
                    self.print_string(chr(byte))
        self.print_string('"')


def print_module(module: ModuleOp, stream: IO[str], generic: bool = False, debuginfo: bool = False) -> None:
    printer = _FileNamePrinter(stream=stream, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.print_op(module)
    stream.write("\n")


def diagnostic_text(err: BaseException, chunk: Chunk, tool: str | None = None, filename: str | None = None
                    ) -> str | None:
    """The user-facing text of an expected kind of failure, or None for internal errors.

    A diagnostic with no location (a ptxas refusal, an error on an operation a pass made
    without one) is said as the tools say their own errors, ``tool: error: file: ...``, when
    ``tool`` and ``filename`` are given, rather than ``<unknown>: error: ...``."""
    if isinstance(err, ParseError):
        return _printable(render_parse_error(err, chunk.line_offset))
    if isinstance(err, QdotError):
        text = err.render()
    elif isinstance(err, DiagnosticException):
        text = f"error: {str(err).split(chr(10) + chr(10))[0]}"
    else:
        return None
    if tool is not None and filename is not None:
        for unlocated in (f"{location_of(None)}: error: ", "error: "):
            if text.startswith(unlocated):
                return f"{tool}: error: {filename}: {text[len(unlocated):]}"
    return text


def _printable(text: str) -> str:
    """A parse diagnostic with the characters a terminal would not show named: U+XXXX in its
    message (``Unexpected character: U+0000`` for a NUL byte in the input, where xDSL's lexer
    writes the character itself), U+FFFD in the source line it quotes, which keeps the caret
    beneath the right column. A tab is left as it is."""
    first, _, rest = text.partition("\n")
    first = "".join(c if c.isprintable() or c == "\t" else f"U+{ord(c):04X}" for c in first)
    rest = "".join(c if c.isprintable() or c in "\t\n" else "\ufffd" for c in rest)
    return f"{first}\n{rest}" if rest else first


def diagnostic_said(text: str, filename: str, quotes_source: bool) -> tuple[int | None, str]:
    """The line a rendered diagnostic is at (None where it has no location in ``filename``) and what it
    says: its message alone, without the location before it and, for a parse error
    (``quotes_source``), the source line and caret after it, which hold the annotation itself. The
    file's name is taken as given, so a ``:`` in it cannot be read as the line's."""
    located = re.match(r"(\d+):\d+: error: (.*)", text.removeprefix(f"{filename}:"), re.DOTALL)
    if not text.startswith(f"{filename}:") or located is None:
        return None, text
    said = located.group(2)
    return int(located.group(1)), said.split("\n", 1)[0] if quotes_source else said


def check_expected(chunk: Chunk, text: str, filename: str, quotes_source: bool = False) -> bool:
    """Match one produced diagnostic against the chunk's expected-error annotations: one on its
    line whose text is part of its message (as mlir-opt matches them)."""
    line, said = diagnostic_said(text, filename, quotes_source)
    if line is None:
        return False
    for expected in chunk.expected:
        if not expected.seen and expected.line == line and expected.message in said:
            expected.seen = True
            return True
    return False


def annotation_errors(chunk: Chunk, filename: str) -> list[str]:
    """What a chunk's annotations say went wrong once the chunk is done (``--verify-diagnostics``):
    each annotation that does not parse, and each expected error that was not produced, at the
    annotation, in the order of the file. A chunk stops at its first error, so the expectations
    after one that matched are reported here too: a test that expects two refusals of one chunk
    cannot pass on the first alone."""
    found = [(bad.line, bad.col, bad.problem) for bad in chunk.malformed]
    found += [(*expected.where, f'expected error "{expected.message}" was not produced')
              for expected in chunk.expected if not expected.seen]
    return [f"{filename}:{line}:{col}: error: {problem}" for line, col, problem in sorted(found)]


def internal_error(tool: str, err: BaseException) -> NoReturn:
    if os.environ.get("QDOT_TRACEBACK"):
        import traceback  # only here: a successful compile should not pay for importing it

        traceback.print_exception(err)
    sys.stderr.write(
        f"{tool}: internal error: {type(err).__name__}: {err}\n"
        f"{tool}: this is a bug in qdot; set QDOT_TRACEBACK=1 to see where it happened\n"
    )
    sys.exit(2)


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Run one compile with Python's cyclic garbage collector off (the tools, ``compiler.compile``).

    Lowering a kernel allocates tens of thousands of IR objects that all stay alive until
    the compile ends, so the collector's periodic scans of them reclaim nothing and cost
    about a twentieth of a cold compile and a tenth to a fifth of one in a warm process.
    Reference counting still frees everything acyclic; the collector is back on afterwards
    and collects the compile's cycles with its next run.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def output_closed() -> int:
    """The status of a tool whose standard output was closed under it (``qdot-opt … | head -1``
    with more than a pipe's worth of output, or a reader that is gone): nothing more can be
    written, which is the reader's choice and not a bug in qdot, so no diagnostic — the tool
    points its standard output at the null device, so the flush at exit cannot fail again, and
    ends with 120, the status ``exit_process`` gives a failed flush."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 120


def exit_process(status: int) -> NoReturn:
    """End a tool's process with ``status`` once its output is flushed, without the
    interpreter's teardown.

    When a compile ends, every IR object it built (tens of thousands) is still alive, and
    the interpreter's shutdown frees them one by one and clears every module: about a
    tenth of a cold qdot-translate run, for memory the operating system reclaims anyway.
    Only the tools' ``main`` calls this, as its last step; code that runs a tool in-process
    calls ``run``. Nothing in a tool's process needs its exit handlers (llvmlite's only
    marks the interpreter as shutting down). A failed flush (a closed pipe) gives status
    120, the interpreter's own exit status for it.
    """
    code_cache.save()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        status = status or 120
    os._exit(status)


def tool_main(tool: str, run: Callable[[list[str] | None], int], argv: list[str] | None) -> NoReturn:
    """A tool's ``main``: ``run`` it, turn every way it can end into an exit status (a usage
    error 1, an interrupt 130, closed output 120, anything unexpected an internal error 2) and
    end the process."""
    _stand_in_for_closed_streams()
    try:
        with without_cyclic_gc():
            status = run(argv)
    except ToolError as err:  # what it quotes of a flag (-p $'cse\x01') is named where a terminal would show nothing
        said = "".join(c if c.isprintable() or c in "\n\t" else f"U+{ord(c):04X}" for c in str(err))
        sys.stderr.write(f"{tool}: error: {said}\n")
        status = 1
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        status = output_closed()
    except SystemExit as exit_:  # argparse's --help, --version and usage errors: their output must get out too
        _flush_or_report(tool)
        raise exit_
    except OSError as err:
        if err.errno not in _FULL_OUTPUT:
            internal_error(tool, err)
        sys.stderr.write(f"{tool}: error: cannot write its output: {err.strerror}\n")
        status = 1
    except BaseException as err:  # noqa: BLE001 - xDSL derives some of its errors from BaseException
        internal_error(tool, err)
    exit_process(status)


_FULL_OUTPUT = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF}
"""Errors only a write gives (a full disk, a quota, a file too large, a failing device, an output closed
before the tool started): one that escapes a tool's ``run`` is its output failing — ``print`` of
``--version``, a flush — not a bug in qdot."""


class _ClosedOutput:
    """Standard output of a tool started with it closed (``qdot-opt k.mlir -o k.out >&-``), where Python
    has none (``sys.stdout`` is None) and every write or flush would be an AttributeError. A write fails as
    a write to a closed descriptor does (``cannot write to standard output: it is closed``, status 1), and
    so does the flush at exit after one; a tool that writes only its ``-o`` file ends as it would otherwise.
    argparse, which drops a failed write of ``--help`` in silence, is caught by that flush."""

    def __init__(self) -> None:
        self.attempted = False

    @property
    def buffer(self) -> "_ClosedOutput":
        return self

    def write(self, data: str | bytes) -> int:
        self.attempted = True
        raise OSError(errno.EBADF, "it is closed")

    def flush(self) -> None:
        if self.attempted:
            raise OSError(errno.EBADF, "it is closed")

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "it is closed")


def _stand_in_for_closed_streams() -> None:
    """``_ClosedOutput`` for a closed standard output; the null device for a closed standard error, where
    nothing can be said of a failure but the exit status."""
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()  # type: ignore[assignment]
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the process's stream until it ends


def _flush_or_report(tool: str) -> None:
    """Flush standard output before an argparse exit; a full one is a diagnostic and status 1 (the interpreter
    would end with status 0 having written nothing of ``--help``), a closed one ends quietly as elsewhere."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        exit_process(output_closed())
    except OSError as err:
        sys.stderr.write(f"{tool}: error: cannot write to standard output: {err.strerror}\n")
        output_closed()  # nothing more can be written; the flush at exit must not fail again
        exit_process(1)


def iter_chunks(text: str, split: bool) -> Iterator[Chunk]:
    yield from split_chunks(text, split)
