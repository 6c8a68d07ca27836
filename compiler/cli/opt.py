"""qdot-opt: parse, verify, transform and print qdot IR (an ``xdsl-opt`` with our dialects).

    qdot-opt kernel.mlir -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}'
    qdot-opt invalid.mlir --split-input-file --verify-diagnostics
    qdot-opt kernel.mlir -p qdot-accelerate-matmul,qdot-lower-mma --print-ir-after-all
    qdot-opt layouts.mlir --print-layout
    qdot-opt kernel.mlir -p 'qdot-lower-local-load{arch=sm_90}' --remarks=qdot-lower-local-load
"""

from __future__ import annotations

import argparse
import sys
from io import StringIO
from typing import IO

from xdsl.utils.exceptions import ParseError

from compiler import registry
from compiler.cli import instrument as pass_instrument
from compiler.cli.pass_help import LazyEpilogParser, Once, passes_help
from compiler.cli.common import (
    ToolError,
    annotation_errors,
    build_pipeline,
    check_expected,
    diagnostic_text,
    parse_module,
    print_module,
    read_input,
    split_chunks,
    tool_main,
    write_output,
)
from compiler.remarks import Remarks, collecting

TOOL = "qdot-opt"

_DIAGNOSTICS = """\
diagnostics:
  Malformed input, verifier failures and pass failures print
  'file:line:col: error: ...' and exit with status 1. With --verify-diagnostics the
  diagnostic is printed on stdout and the exit status is 0, so lit tests can CHECK it;
  if the input carries MLIR-style '// expected-error {{...}}' (or '@+N', '@-N')
  annotations, each one must be matched by a diagnostic on that line instead; one that is
  not, or an 'expected-...' annotation that does not parse, is an error at the annotation
  (without --verify-diagnostics the annotations are comments). Command-line errors (a bad flag,
  an unknown pass or pass option) print 'qdot-opt: error: ...' and exit with status 1
  in either mode. With --remarks, each chunk's remarks ('file:line:col: remark: <pass>:
  ...') go to stderr, or with --verify-diagnostics to stdout before the chunk's IR or
  error, where lit can CHECK them. A run that fails writes no -o file: one that was there
  is left as it was (standard output still gets the chunks that succeeded).
"""


def make_arg_parser() -> argparse.ArgumentParser:
    parser = LazyEpilogParser(
        prog=TOOL,
        description="Parse, verify, transform and print qdot IR (qdot, qgpu, ptx, agx dialects).",
        epilog_text=lambda: passes_help("-p 'qdot-pipeline{num-stages=3}'") + "\n\n" + _DIAGNOSTICS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input_file", nargs="?", help="input .mlir file (default: stdin)")
    parser.add_argument("-p", "--passes", "--pass-pipeline", default="", metavar="PIPELINE", action=Once,
                        help="comma-separated pass pipeline, e.g. 'qdot-accelerate-matmul{arch=sm_90}'; "
                             "mlir-opt's 'builtin.module(...)' nesting is accepted")
    parser.add_argument("-o", "--output-file", help="write the result here instead of stdout ('-': stdout)")
    parser.add_argument("--print-op-generic", action="store_true", help="print operations in generic form")
    parser.add_argument("--print-debuginfo", action="store_true", help="print operation locations")
    parser.add_argument("--split-input-file", action="store_true",
                        help="process each '// -----' separated chunk independently")
    parser.add_argument("--verify-diagnostics", action="store_true",
                        help="print diagnostics on stdout and exit 0 (see below)")
    parser.add_argument("--parsing-diagnostics", action="store_true",
                        help="accepted for xdsl-opt compatibility; parse errors are always diagnostics")
    parser.add_argument("--print-layout", action="store_true",
                        help="instead of the IR, print for every distributed tensor and shared-memory "
                             "type in the (transformed) module which thread/register/byte holds which element")
    parser.add_argument("--allow-unregistered-dialect", action="store_true",
                        help="accept operations of unknown dialects")
    parser.add_argument("--show-dialects", action="store_true",
                        help="list the dialects this tool knows, each with its operations and attributes, and exit")
    pass_instrument.add_arguments(parser)
    return parser


def run(argv: list[str] | None = None) -> int:
    args = make_arg_parser().parse_args(pass_instrument.spell_bare_remarks(argv))
    if args.show_dialects:
        write_output(args.output_file, dialects_text())
        return 0
    inst = pass_instrument.PassInstrumentation.from_args(args, generic=args.print_op_generic)
    pipeline = build_pipeline(registry.pass_factories(), args.passes, instrument=inst)
    try:
        asked = pass_instrument.remarks_from_args(args, pipeline)
    except pass_instrument.UnknownPassName as err:
        raise ToolError(str(err)) from None
    text, filename = read_input(args.input_file)  # after the flags: a bad one is said without waiting for stdin
    ctx = registry.make_context(allow_unregistered=args.allow_unregistered_dialect)
    verify_mode = args.verify_diagnostics

    out = StringIO()
    status = 0
    chunks = split_chunks(text, args.split_input_file)
    for index, chunk in enumerate(chunks):
        if index > 0:
            out.write("// -----\n")
        module = None
        failed = False
        chunk_remarks = Remarks(asked.passes) if asked is not None else None
        try:
            with pass_instrument.phase(inst, "parse + verify"):
                module = parse_module(ctx, chunk, filename)
            with collecting(chunk_remarks):
                pipeline.apply(ctx, module)
        except Exception as err:  # noqa: BLE001 - every failure becomes a diagnostic
            message = diagnostic_text(err, chunk, TOOL, filename)
            if message is None:
                raise
            failed = True
            _write_remarks(chunk_remarks, out if verify_mode else sys.stderr)
            if verify_mode and (chunk.expected or chunk.malformed):  # annotated: each must be expected
                if not check_expected(chunk, message, filename, isinstance(err, ParseError)):
                    sys.stderr.write(f"{message}\n{TOOL}: error: unexpected diagnostic (no matching expected-error)\n")
                    status = 1
            elif verify_mode:
                out.write(message + "\n")
            else:
                sys.stderr.write(message + "\n")
                status = 1
            if inst is not None:
                inst.failed(module)
        else:
            _write_remarks(chunk_remarks, out if verify_mode else sys.stderr)
        if verify_mode:  # whether or not the chunk failed: its other expectations were not met either
            for problem in annotation_errors(chunk, filename):
                sys.stderr.write(problem + "\n")
                status = 1
        if failed:
            continue
        if args.print_layout:
            from dialects.qgpu.layouts import describe_module_layouts

            out.write(describe_module_layouts(module))
        else:
            print_module(module, out, args.print_op_generic, args.print_debuginfo)

    if status == 0 or args.output_file in (None, "-"):  # a failed run leaves the -o file as it was, as mlir-opt
        write_output(args.output_file, out.getvalue())
    if inst is not None:
        inst.report()
    return status


def _write_remarks(remarks: Remarks | None, stream: IO[str]) -> None:
    """A chunk's remarks, one line each, before its IR (``--verify-diagnostics``: on stdout, where
    lit CHECKs them as it does errors) or on stderr."""
    if remarks is not None:
        for line in remarks.lines():
            stream.write(line + "\n")


def dialects_text() -> str:
    """``--show-dialects``, as ``mlir-opt --show-dialects``: what the parser accepts, by dialect
    (loading them all, which a compile does only as its input needs them)."""
    import textwrap

    lines = ["Available dialects:"]
    for name in registry.DIALECTS:
        dialect = registry.load(registry.DIALECTS[name])
        if name in registry.TEST_DIALECTS:
            lines.append(f"  {name}: {registry.TEST_DIALECTS[name]}")
            continue
        for kind, items in (("operations", dialect.operations), ("attributes and types", dialect.attributes)):
            names = sorted(item.name for item in items)
            if names:
                lines += textwrap.wrap(", ".join(names), 96, initial_indent=f"  {name} {kind}: ",
                                       subsequent_indent="      ", break_on_hyphens=False)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    tool_main(TOOL, run, argv)


if __name__ == "__main__":
    main()
