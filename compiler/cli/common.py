"""What qdot-opt and qdot-translate share: reading input, parsing with locations,
running a pass pipeline, and turning every failure into a diagnostic.

Errors never escape as Python tracebacks: parse errors, verifier failures and
pass failures become ``file:line:col: error: ...`` lines and a non-zero exit;
anything else is reported as an internal error (``QDOT_TRACEBACK=1`` shows it).
"""

from __future__ import annotations

import gc
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
from compiler.diagnostics import LocatingParser, PassOutputError, QdotError, render_parse_error, verify_module

SPLIT_MARKER = "// -----"


class ToolError(ValueError):
    """A usage error (bad flag, missing file, unknown pass, bad pass option): ``tool: error: msg``,
    exit 1 (from ``compiler.compile``: a ValueError with the same message)."""


@dataclass
class Chunk:
    text: str
    line_offset: int
    expected: list["ExpectedDiagnostic"] = field(default_factory=list)


@dataclass
class ExpectedDiagnostic:
    line: int  # 1-based line in the whole file
    message: str
    seen: bool = False


_EXPECTED_RE = re.compile(r"//\s*expected-error\s*(@[+-]?\d+|@above|@below)?\s*\{\{(.*?)\}\}")


def _expected_in(text: str, line_offset: int) -> list[ExpectedDiagnostic]:
    found: list[ExpectedDiagnostic] = []
    for index, line in enumerate(text.split("\n")):
        for match in _EXPECTED_RE.finditer(line):
            where = match.group(1)
            target = index + 1 + line_offset
            if where in ("@above",):
                target -= 1
            elif where in ("@below",):
                target += 1
            elif where:
                target += int(where[1:])
            found.append(ExpectedDiagnostic(target, match.group(2).strip()))
    return found


def read_input(path: str | None) -> tuple[str, str]:
    name = "<stdin>" if path is None or path == "-" else path
    try:
        if name == "<stdin>":
            stream = getattr(sys.stdin, "buffer", None)  # a text stream standing in has none
            return (stream.read().decode("utf-8") if stream is not None else sys.stdin.read()), name
        with open(path, encoding="utf-8") as f:
            return f.read(), name
    except OSError as err:
        raise ToolError(f"cannot read '{name}': {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise ToolError(f"cannot read '{name}': it is not UTF-8 text (byte 0x{err.object[err.start]:02x} at "
                        f"offset {err.start})") from None


def write_output(path: str | None, data: str | bytes) -> None:
    """``data`` to ``path``, or to standard output when there is none or it is ``-``."""
    if not path or path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    try:
        if isinstance(data, bytes):
            with open(path, "wb") as f:
                f.write(data)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(data)
    except OSError as err:
        raise ToolError(f"cannot write '{path}': {err.strerror}") from None


def split_chunks(text: str, split: bool) -> list[Chunk]:
    if not split:
        return [Chunk(text, 0, _expected_in(text, 0))]
    chunks: list[Chunk] = []
    offset = 0
    for piece in text.split(SPLIT_MARKER):
        chunks.append(Chunk(piece, offset, _expected_in(piece, offset)))
        offset += piece.count("\n")
    return chunks


def parse_module(ctx: Context, chunk: Chunk, filename: str) -> ModuleOp:
    parser = LocatingParser(ctx, chunk.text, filename)
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
        spec = pipeline_spec.normalized(spec)
        pipeline_spec.check(factories, spec)
        pipeline = PassPipeline.parse_spec(factories, spec, callback)
        for pass_ in pipeline.passes:
            check_option_values(pass_)
    except pipeline_spec.PipelineError as err:  # names the pass and option
        raise ToolError(str(err)) from None
    except QdotError as err:  # check_option_values: names the pass and option
        raise ToolError(err.message) from None
    except ModuleNotFoundError as err:
        raise ToolError(f"pass pipeline '{spec}' needs a module that is not built yet: {err.name}") from None
    except (Exception, ArgSpecParseError) as err:  # what xDSL refuses that the check above does not;
        # malformed syntax: ArgSpecParseError, which xDSL 0.74 derives from BaseException
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


def print_module(module: ModuleOp, stream: IO[str], generic: bool = False, debuginfo: bool = False) -> None:
    printer = Printer(stream=stream, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.print_op(module)
    stream.write("\n")


def diagnostic_text(err: BaseException, chunk: Chunk) -> str | None:
    """The user-facing text of an expected kind of failure, or None for internal errors."""
    if isinstance(err, ParseError):
        return render_parse_error(err, chunk.line_offset)
    if isinstance(err, QdotError):
        return err.render()
    if isinstance(err, DiagnosticException):
        return f"error: {str(err).split(chr(10) + chr(10))[0]}"
    return None


def diagnostic_line(text: str) -> int | None:
    match = re.match(r"[^:\n]*:(\d+):\d+: error:", text)
    return int(match.group(1)) if match else None


def check_expected(chunk: Chunk, text: str) -> bool:
    """Match one produced diagnostic against the chunk's expected-error annotations."""
    line = diagnostic_line(text)
    for expected in chunk.expected:
        if not expected.seen and expected.line == line and expected.message in text:
            expected.seen = True
            return True
    return False


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
    try:
        with without_cyclic_gc():
            status = run(argv)
    except ToolError as err:
        sys.stderr.write(f"{tool}: error: {err}\n")
        status = 1
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        status = output_closed()
    except SystemExit:
        raise
    except BaseException as err:  # noqa: BLE001 - xDSL derives some of its errors from BaseException
        internal_error(tool, err)
    exit_process(status)


def iter_chunks(text: str, split: bool) -> Iterator[Chunk]:
    yield from split_chunks(text, split)
