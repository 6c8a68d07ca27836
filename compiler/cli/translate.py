"""qdot-translate: compile qdot IR all the way to a target artifact.

    qdot-translate examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_90
    qdot-translate examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_120a --verify-ptx
    qdot-translate examples/agx_tile_fp16.mlir --target agx3b --format asm
    qdot-translate examples/mx_gemm_e4m3_e2m1.mlir --arch sm_120a --remarks -o mx.ptx

It runs the target's default pass pipeline (see ``--print-pipeline``) and then
emits: ``mlir`` (the IR after the pipeline), ``llvm`` (LLVM IR text), ``ptx``,
``cubin`` (ptxas output), ``sass`` (that machine code as text, from cuobjdump),
``agx3b`` / ``agx3c`` (the MMA instruction stream). ``--remarks`` says on stderr what each
pass decided and why, one located line per decision (``--remarks=P,Q``: those passes only).

A cold run reads qdot's bytecode caches (``python -m compiler.precompile`` writes
them; ``QDOT_NO_CODE_CACHE=1`` leaves out the one for generated dataclass methods).
"""

from __future__ import annotations

import argparse
import sys
from io import StringIO

from compiler import registry
from compiler.cli import instrument as pass_instrument
from compiler.cli.pass_help import LazyEpilogParser, Once, ascii_int, passes_help
from compiler.cli.common import (
    ToolError,
    build_pipeline,
    diagnostic_text,
    parse_module,
    print_module,
    read_input,
    resolve_pipeline_flags,
    split_chunks,
    tool_main,
    write_output,
)
from compiler.remarks import collecting
from compiler.tools import ToolUnavailable
from compiler.pipelines import (
    AGX_FORMS,
    PTX_ARCHES,
    STRATEGIES,
    TARGETS,
    PtxOptions,
    agx_pipeline,
    ptx_pipeline,
)

TOOL = "qdot-translate"


def make_arg_parser() -> argparse.ArgumentParser:
    parser = LazyEpilogParser(
        prog=TOOL,
        description=__doc__.split("\n\n")[0].split(": ", 1)[1],
        epilog_text=lambda: __doc__.split("\n\n", 1)[1] + "\n"
        + passes_help("--pipeline 'qdot-accelerate-matmul{strategy=promote-int8},qdot-lower-mma'"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input_file", nargs="?", help="input .mlir file (default: stdin)")
    parser.add_argument("--target", choices=TARGETS, default="ptx", help="what to produce (default: ptx)")
    parser.add_argument("--arch", choices=PTX_ARCHES,
                        help="NVIDIA target (default: sm_90, or the arch a --pipeline's passes name)")
    parser.add_argument("--strategy", choices=STRATEGIES,
                        help="how qdot-accelerate-matmul maps dots to tensor cores (default: auto, the "
                             "fastest legal for --arch; promote-int8 keeps each 32-value block of MXFP4 / "
                             "e2m3 exact, more accurate over a long K: docs/numerics.md)")
    parser.add_argument("--num-stages", type=ascii_int, help="global->shared pipeline depth (default: 3)")
    parser.add_argument("--format", choices=("hex", "bin", "asm"),
                        help="AGX output form (default: asm); only with --target agx3b / agx3c")
    parser.add_argument("--verify-ptx", action="store_true",
                        help="assemble the PTX with ptxas -v and report registers and spills (with --target llvm, "
                             "ptx, cubin or sass; the shared memory is dynamic: --target mlir has qdot.shared_bytes)")
    parser.add_argument("--pipeline", metavar="PIPELINE", action=Once,
                        help="run this pass pipeline instead of the default")
    parser.add_argument("--print-pipeline", action="store_true",
                        help="print the pass pipeline (checked, not run) and exit; -o writes it to a file")
    parser.add_argument("--verify-each", action="store_true",
                        help="verify the IR after every pass (default: after the last one only)")
    parser.add_argument("-o", "--output-file", help="write the result here instead of stdout ('-': stdout)")
    pass_instrument.add_arguments(parser)
    return parser


def pipeline_for(args: argparse.Namespace) -> str:
    if args.pipeline is not None:
        return args.pipeline
    if args.target in AGX_FORMS:
        return agx_pipeline(args.target)
    return ptx_pipeline(PtxOptions(arch=args.arch, strategy=args.strategy, num_stages=args.num_stages))


def emit(module, args: argparse.Namespace,  # noqa: ANN001 - ModuleOp, imported lazily
         inst: pass_instrument.PassInstrumentation | None = None) -> str | bytes:
    if args.target == "mlir":
        out = StringIO()
        print_module(module, out)
        return out.getvalue()
    if args.target in AGX_FORMS:
        from targets.agx import emit as agx_emit

        return agx_emit(module, args.target, args.format or "asm")
    from targets.ptx.artifact import compile_module

    # The pipeline verified the module after its last pass (or the parser did, for an empty one).
    artifact = compile_module(module, arch=args.arch, target=args.target, verify=args.verify_ptx,
                              module_verified=True, pipeline=args.pipeline,
                              phase=lambda step: pass_instrument.phase(inst, step, within=f"emit {args.target}"))
    if args.verify_ptx and artifact.report is not None:
        sys.stderr.write(artifact.report + "\n")
    return artifact.data


def _check_flags(args: argparse.Namespace) -> None:
    """A flag that cannot apply to the target is refused, not ignored in silence; then the
    defaults of the flags left out are filled in."""
    if args.target in AGX_FORMS:
        nvidia = [flag for flag, value in (("--arch", args.arch), ("--strategy", args.strategy),
                                           ("--num-stages", args.num_stages)) if value is not None]
        if nvidia:
            verb, pronoun = ("configure", "they do") if len(nvidia) > 1 else ("configures", "it does")
            raise ToolError(f"{' and '.join(nvidia)} {verb} the NVIDIA pipeline; {pronoun} not apply to "
                            f"--target {args.target}")
    resolve_pipeline_flags(args)
    if args.format is not None and args.target not in AGX_FORMS:
        raise ToolError(f"--format chooses the AGX output form; it does not apply to --target {args.target}")
    if args.verify_ptx and args.target in ("mlir", *AGX_FORMS):
        raise ToolError(f"--verify-ptx assembles PTX; it does not apply to --target {args.target}")


def run(argv: list[str] | None = None) -> int:
    args = make_arg_parser().parse_args(pass_instrument.spell_bare_remarks(argv))
    _check_flags(args)
    spec = pipeline_for(args)
    inst = pass_instrument.PassInstrumentation.from_args(args)
    pipeline = build_pipeline(registry.pass_factories(), spec, verify_each=args.verify_each, instrument=inst)
    if args.print_pipeline:  # checked first: a pipeline that would be refused is not printed as if it ran
        write_output(args.output_file, spec + "\n")
        return 0
    try:
        remarks = pass_instrument.remarks_from_args(args, pipeline)
    except pass_instrument.UnknownPassName as err:
        raise ToolError(str(err)) from None
    text, filename = read_input(args.input_file)  # after the flags: a bad one is said without waiting for stdin
    ctx = registry.make_context()
    chunk = split_chunks(text, False)[0]
    module = None
    try:
        with pass_instrument.phase(inst, "parse + verify"):
            module = parse_module(ctx, chunk, filename)
        try:
            with collecting(remarks):
                pipeline.apply(ctx, module)
        finally:
            if remarks is not None:  # also those of the passes before a failing one
                sys.stderr.write("".join(line + "\n" for line in remarks.lines()))
        with pass_instrument.phase(inst, f"emit {args.target}"):
            result = emit(module, args, inst)
    except ToolUnavailable as err:  # ptxas or cuobjdump missing: the machine's, not qdot's, problem
        raise ToolError(str(err)) from None
    except Exception as err:  # noqa: BLE001
        message = diagnostic_text(err, chunk, TOOL, filename)  # a ptxas refusal has no location
        if message is None:
            raise
        sys.stderr.write(message + "\n")
        if inst is not None:
            inst.failed(module)
        return 1
    write_output(args.output_file, result)
    if inst is not None:
        inst.report()
    return 0


def main(argv: list[str] | None = None) -> None:
    tool_main(TOOL, run, argv)


if __name__ == "__main__":
    main()
