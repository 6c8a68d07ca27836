"""qdot-bench: time a qdot kernel on a GPU at given shapes and print microseconds and TFLOP/s.

    qdot-bench examples/mx_gemm_e4m3_e2m1.mlir --arch sm_90 --shape m=8192,n=8192,k=8192 --grid "cdiv(m,128)*cdiv(n,128)"
    qdot-bench examples/q4k_decode.mlir --num-stages 2 --shape m=1,n=4096,k=14336 --grid "cdiv(n,64), 14" --flops 2*m*n*k
    qdot-bench examples/int8_gemm.mlir --shape m=128,n=128,k=128 --grid 1 --emulate

It compiles the file as qdot-translate does (the same --arch, --strategy, --num-stages and
--pipeline), sizes one array per pointer parameter from the kernel's own qdot.make_desc ops,
fills the inputs with random values, launches the kernel on the grid and prints one line per
--shape (or, with --json, one JSON object per line).

shapes and grids:
  --shape gives every scalar parameter of the kernel by the name it has in the source
  (%m, %n, %k: m=8192,n=8192,k=8192); repeat --shape to time several shapes with one compile.
  A kernel without scalar parameters needs no --shape (or takes --shape ''): one run, named by
  its grid alone.
  --grid is one to three comma-separated expressions over those names: integers, + - * //,
  parentheses, cdiv(a, b), min(a, b), max(a, b). The example's header comment states its grid.
  --flops is such an expression too (default 2*m*n*k, when the kernel has parameters m, n, k;
  otherwise no TFLOP/s); it must give a positive count at every shape.
  Scalar parameters are index, i32, i64 (0 up to the type's signed maximum) or f32, as a kernel
  takes them.

arrays:
  Each pointer's array holds the largest extent any of its descriptors reaches, sum((shape_i - 1) * stride_i) +
  1 elements, with shape and strides evaluated from the arith ops that compute them from the scalar parameters,
  from qdot.num_programs, which is --grid's size (a stream-K workspace holds pieces per program), and bounded
  over qdot.program_id, 0 .. size - 1, and scf.for variables (a scratch region per program; compiler.launch_plan).
  Inputs are random, from numpy's generator seeded with --seed: codes of the quantized
  formats as random bytes (NaN codes included, which time as any other); f16 / bf16 / f32
  values uniform in [-1, 1], as activations are (--floats uniform), or with --floats bytes
  random bytes with the exponent's top bit cleared (finite, |x| < 2, most of them tiny: a
  worst case for an instruction whose time depends on its operands, such as the slow path of
  the div.rn.f32 a quantizer's x / d uses).
  A code narrower than its byte keeps the bits the PTX ISA reserves zero, which the emulator
  checks: the MSB of a ue4m3 scale (NVFP4), bits [7:6] of an e2m3 / e3m2 operand; the formats
  come from the qdot.dot_scaled ops the array's loads feed.
  Arrays the kernel stores to are zero-filled (a split-K kernel adds into its output).
  Arrays that take more than half of the machine's available memory in all are refused.

what it does not do:
  It times; it does not check results. To check a kernel's output, build meaningful inputs
  with compiler.numerics, run it with compiler.run (GPU) or compiler.emulate (CPU), and
  compare with compiler.numerics.dot_scaled (examples/README.md has a snippet per example).

timing:
  --timing graph (the default): 10 launches captured in a CUDA graph run back to back; each
  of --reps graph launches is timed with CUDA events and divided by 10; the median is
  reported (targets.ptx.timing.time_graph). This is the GPU's time per launch, as llama.cpp's
  benchmark loop measures it. --timing events: CUDA events around each single launch after
  --warmup untimed ones (time_launch); a kernel of a few microseconds then finishes before
  Python has submitted the launch, so its figure is mostly the host's launch overhead (the
  q4_K decode example at m=1, n=4096, k=14336: 13.3 us in a graph, 24.0 us one launch at a
  time; bench/RESULTS.md run 144). GB/s counts every array's bytes once: the least traffic
  the launch can make.

--emulate:
  Runs the launch on qdot's PTX emulator (compiler.emulate) instead of timing, on the CPU: it
  checks the grid and the array sizes (an out-of-range access is an error naming the op), and
  prints the CTAs run, the most frequent ops and how many elements of each output were never
  stored to. Outputs start as 0xff bytes for it; only where some element still holds them does
  a second launch, from zeros, tell "never stored" from "stored that value". Keep shapes
  small: a 128x128 tile takes about a second. A grid of more than --max-ctas CTAs (1024) is
  refused unless --ctas picks some (at most as many): '--ctas 0,-1' runs the first and the last (where a
  ragged edge meets the arrays' bounds), '--ctas 0:4,-4:' the first and last four (Python
  slices; ids linear, x fastest; a list that starts with '-N:' is written --ctas=-N:,...,
  as argparse would take it for a flag). Outputs are then not counted: the CTAs left out write
  their part, and a fix-up done by the last of a tile's programs to arrive needs them all.
  The emulator holds about 12 bytes per byte of an output (its two fills, the comparison, and
  per byte the CTA that stored it); a shape whose arrays would need more than the machine's
  available memory that way is refused before anything is allocated.

exit status: 0 when every run is done; 1 for a problem of the input or the command line (a
flag it cannot parse prints 'qdot-bench: error: ...', as qdot-opt and qdot-translate do), or
no GPU (after compiling, so compile errors still show); 2 for an internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from compiler.cli.common import (
    ToolError,
    diagnostic_text,
    parse_module,
    read_input,
    resolve_pipeline_flags,
    split_chunks,
    tool_main,
)
from compiler.cli.pass_help import LazyEpilogParser, Once, ascii_int
from compiler.launch_plan import (FLOAT_FILLS, ArraySpec, LaunchPlanError, Parameter, Run, available_host_bytes,
                                  find_kernel, kernel_parameters, plan_run)
from compiler.pipelines import PTX_ARCHES, STRATEGIES
from compiler.shape_expressions import ExpressionError, Expressions

TOOL = "qdot-bench"
GRAPH_LAUNCHES = 10
"""Launches captured in one CUDA graph for ``--timing graph``; the time per launch is the graph's / 10."""
EMULATE_MAX_CTAS = 1024
"""The largest grid --emulate runs whole by default: at about a second per CTA of a 128×128 tile, a
larger one is more likely a grid meant for a GPU than a check someone means to wait for."""
EMULATE_HOST_BYTES_PER_OUTPUT_BYTE = 3
"""What --emulate itself holds per byte of an output array at most: the first launch's 0xff fill and the second's
zeros, and the comparison of the two with their fills (a bool per byte). The emulator adds its store-ownership state
(``targets.ptx.emulator.memory.OWNERSHIP_BYTES_PER_BYTE``: an int64 CTA id and a publication byte per byte a store
reaches; ``_emulate_bytes_per_output_byte``). Past physical memory the
allocation does not fail where it is made: the process is killed, or the machine swaps, once the pages are touched
(the input fuzzer's seed 326: an 8 GiB output grew past 19 GB before it was stopped)."""


def make_arg_parser() -> argparse.ArgumentParser:
    parser = LazyEpilogParser(
        prog=TOOL,
        description=__doc__.split("\n\n")[0].split(": ", 1)[1],
        epilog_text=lambda: __doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input_file", nargs="?", help="input .mlir file (default: stdin)")
    parser.add_argument("--shape", action="append", metavar="NAME=VALUE,...",
                        help="every scalar parameter of the kernel, e.g. m=8192,n=8192,k=8192; repeat for "
                             "several shapes (a kernel without scalar parameters needs none)")
    parser.add_argument("--grid", metavar="EXPR[,EXPR[,EXPR]]",
                        help="the launch grid as expressions over the shape names, e.g. 'cdiv(m,128)*cdiv(n,128)'")
    parser.add_argument("--flops", metavar="EXPR",
                        help="floating-point (or integer) operations of one launch, for TFLOP/s; positive "
                             "(default: 2*m*n*k where the kernel has m, n and k)")
    parser.add_argument("--kernel", metavar="NAME", help="the kernel to run, in a module with several")
    parser.add_argument("--arch", choices=PTX_ARCHES,
                        help="NVIDIA target (default: sm_90, or the arch a --pipeline's passes name)")
    parser.add_argument("--strategy", choices=STRATEGIES,
                        help="how qdot-accelerate-matmul maps dots to tensor cores (default: auto)")
    parser.add_argument("--num-stages", type=ascii_int, help="global->shared pipeline depth (default: 3)")
    parser.add_argument("--pipeline", metavar="PIPELINE", action=Once,
                        help="run this pass pipeline instead of the default")
    parser.add_argument("--timing", choices=("graph", "events"),
                        help="graph (default): 10 launches captured in a CUDA graph, back to back, each "
                             "graph timed with events (the GPU's time, as llama.cpp's benchmark loop measures); "
                             "events: events around each single launch (includes the host's launch overhead, "
                             "which dominates kernels of a few microseconds)")
    parser.add_argument("--reps", type=ascii_int,
                        help="timed launches (--timing events) or graphs (--timing graph); the median is reported "
                             "(default: 20)")
    parser.add_argument("--warmup", type=ascii_int,
                        help="untimed launches before timing (default: 3; a graph is warmed up by one launch "
                             "before it is captured and one of the graph)")
    parser.add_argument("--seed", type=ascii_int, default=0, help="seed of the random inputs (default: 0)")
    parser.add_argument("--floats", choices=FLOAT_FILLS, default="uniform",
                        help="f16 / bf16 / f32 inputs: uniform (default) values in [-1, 1], as activations are; "
                             "bytes: random bytes kept finite, most values tiny (a worst case for an "
                             "instruction whose time depends on its operands, such as div.rn.f32)")
    parser.add_argument("--emulate", action="store_true",
                        help="run once on the CPU emulator instead of timing on a GPU (small shapes only)")
    parser.add_argument("--ctas", metavar="LIST",
                        help="with --emulate: run only these CTAs of the grid, e.g. '0,-1' (the first and the last) "
                             "or '0:4,-4:' (Python slices); ids are linear, x fastest")
    parser.add_argument("--max-ctas", type=ascii_int, metavar="N",
                        help=f"--emulate refuses a grid of more CTAs than this unless --ctas picks some, and a --ctas "
                             f"that picks more (default: {EMULATE_MAX_CTAS})")
    parser.add_argument("--json", action="store_true", help="print one JSON object per run instead of a line")
    return parser


def _check_flags(args: argparse.Namespace) -> None:
    """The flags that need no input; --shape, which a kernel without scalar parameters does without, is checked
    against the kernel (``_shapes``)."""
    if args.grid is None:
        raise ToolError("--grid is required: one to three expressions over the shape names, "
                        "e.g. --grid 'cdiv(m,128)*cdiv(n,128)'")
    resolve_pipeline_flags(args)
    if args.seed < 0:
        raise ToolError(f"--seed must not be negative, got {args.seed}")
    timing = [flag for flag, value in (("--timing", args.timing), ("--reps", args.reps), ("--warmup", args.warmup))
              if value is not None]
    if timing and args.emulate:
        verb = "time" if len(timing) > 1 else "times"
        raise ToolError(f"{' and '.join(timing)} {verb} GPU launches; --emulate runs the kernel once on the CPU")
    args.timing = args.timing or "graph"
    args.reps = 20 if args.reps is None else args.reps
    args.warmup = 3 if args.warmup is None else args.warmup
    if args.reps < 1:
        raise ToolError(f"--reps must be at least 1, got {args.reps}")
    if args.warmup < 0:
        raise ToolError(f"--warmup must not be negative, got {args.warmup}")
    if args.ctas is not None and not args.emulate:
        raise ToolError("--ctas picks the CTAs --emulate runs; a GPU launch runs the whole grid")
    if args.max_ctas is not None and not args.emulate:
        raise ToolError("--max-ctas bounds the grid --emulate runs; a GPU launch runs any grid")
    if args.max_ctas is None:
        args.max_ctas = EMULATE_MAX_CTAS
    if args.max_ctas < 1:
        raise ToolError(f"--max-ctas must be at least 1, got {args.max_ctas}")
    if args.ctas is not None:
        _cta_picks(args.ctas)  # a list it cannot read is refused before the input is read


def _cta_picks(text: str) -> list[tuple[int, int | None] | int]:
    """--ctas as items: an int (an id, negative from the end) or a (start, stop) slice, stop None for the end."""
    picks: list[tuple[int, int | None] | int] = []
    for item in text.split(","):
        parts = [part.strip() for part in item.split(":")]
        try:
            if len(parts) == 1:
                picks.append(int(parts[0]))
            elif len(parts) == 2:
                picks.append((int(parts[0]) if parts[0] else 0, int(parts[1]) if parts[1] else None))
            else:
                raise ValueError
        except ValueError:
            raise ToolError(f"--ctas '{text}': '{item.strip()}' is not a CTA id or a slice START:STOP (ids are "
                            f"integers, negative ones counted from the end: '0,-1', '0:4', '-4:')") from None
    return picks


def _selected_ctas(args: argparse.Namespace, run: Run) -> list[int] | None:
    """The CTAs --emulate runs at this shape, in increasing order, each once (None: the whole grid — also where
    --ctas picks every CTA, whose outputs can then be counted)."""
    total = run.ctas
    if args.ctas is None:
        if total > args.max_ctas:
            raise ToolError(f"grid={run.grid_text()}{run.at_shape()} has {total} CTAs, more than --emulate "
                            f"runs whole (--max-ctas {args.max_ctas}); pick some with --ctas (e.g. '0,-1', the "
                            f"first and the last), give a smaller shape, or raise --max-ctas")
        return None
    chosen: set[int] = set()
    for pick in _cta_picks(args.ctas):
        if isinstance(pick, int):
            if not -total <= pick < total:
                raise ToolError(f"--ctas: CTA {pick} is outside grid={run.grid_text()}{run.at_shape()} "
                                f"({total} CTAs: ids 0 to {total - 1}, or -{total} to -1 from the end)")
            chosen.add(pick % total)
        else:
            picked = range(total)[pick[0]:pick[1]]
            if len(picked) > args.max_ctas:  # refused before it is built: '0:' of a 2^31-CTA grid is 2^31 ids
                raise ToolError(f"--ctas '{args.ctas}' picks {len(picked)} CTAs of grid={run.grid_text()}"
                                f"{run.at_shape()}, more than --emulate runs (--max-ctas {args.max_ctas}); pick "
                                f"fewer or raise --max-ctas")
            chosen.update(picked)
        if len(chosen) > args.max_ctas:
            raise ToolError(f"--ctas '{args.ctas}' picks more than {args.max_ctas} CTAs of grid={run.grid_text()}"
                            f"{run.at_shape()}, more than --emulate runs (--max-ctas {args.max_ctas}); pick "
                            f"fewer or raise --max-ctas")
    if not chosen:
        raise ToolError(f"--ctas '{args.ctas}' picks no CTA of grid={run.grid_text()}{run.at_shape()} "
                        f"({total} CTAs)")
    return None if len(chosen) == total else sorted(chosen)


def _shapes(args: argparse.Namespace, params: Sequence[Parameter]) -> list[str]:
    """The --shape texts; a kernel without scalar parameters has one shape, with nothing to give, and needs none
    (``--shape ''`` says the same)."""
    if args.shape:
        return list(args.shape)
    if any(not p.is_pointer for p in params):
        raise ToolError("--shape is required: every scalar parameter of the kernel, e.g. --shape m=128,n=128,k=128")
    return [""]


def _expressions(args: argparse.Namespace, params: Sequence[Parameter]) -> tuple[Expressions, Expressions | None]:
    integers = [p.name for p in params if not (p.is_pointer or p.is_float)]
    try:
        grid = Expressions.parse("--grid", args.grid, 3)
        if args.flops is not None:
            flops: Expressions | None = Expressions.parse("--flops", args.flops, 1)
        else:
            flops = Expressions.parse("--flops", "2*m*n*k", 1)
            if not flops.names() <= set(integers):
                flops = None  # not a GEMM's parameters: no TFLOP/s unless --flops says how many
    except ExpressionError as err:
        raise ToolError(str(err)) from None
    for expressions in (grid, flops):
        unknown = sorted(expressions.names() - set(integers)) if expressions is not None else []
        if unknown:
            raise ToolError(f"{expressions.option} '{expressions.text}': unknown name '{unknown[0]}' (the kernel's "
                            f"integer parameters: {', '.join(integers) or 'none'})")
    return grid, flops


def _compile(args: argparse.Namespace, text: str, filename: str) -> Any:
    """``compiler.compile`` of the text already read and parsed (not the file again: it may have changed, or be
    standard input), under the name the input was read as (the path as given, or ``<stdin>``), which its
    diagnostics and the emulator's errors then locate, as qdot-opt's and qdot-translate's do."""
    import compiler
    from compiler.tools import ToolUnavailable

    # the default pipeline's options (resolve_pipeline_flags filled in their defaults; beside --pipeline, which it
    # refused them with, compile would too)
    options = {"strategy": args.strategy, "num_stages": args.num_stages} if args.pipeline is None else {}
    try:  # a line break keeps compile from taking a one-line text for a path
        return compiler.compile(text if "\n" in text else text + "\n", arch=args.arch, pipeline=args.pipeline,
                                source_name=filename, **options)
    except ToolUnavailable as err:
        raise ToolError(str(err)) from None
    except ValueError as err:  # compile's refusal of an argument (the flags were checked first)
        raise ToolError(str(err)) from None


def _result(kernel: str, run: Run, args: argparse.Namespace) -> dict[str, Any]:
    return {"kernel": kernel, "arch": args.arch, "shape": run.scalars, "grid": list(run.grid), "floats": args.floats,
            "arrays": {a.param: {"element_type": a.element_type, "elements": a.elements, "bytes": a.nbytes,
                                 "output": a.output} for a in run.arrays}}


def _emulate_bytes_per_output_byte() -> int:
    """What --emulate and the emulator hold per byte of an output, at most (the emulator imported only for --emulate,
    as numpy is)."""
    from targets.ptx.emulator.memory import OWNERSHIP_BYTES_PER_BYTE

    return EMULATE_HOST_BYTES_PER_OUTPUT_BYTE + OWNERSHIP_BYTES_PER_BYTE


def _check_emulator_memory(run: Run) -> None:
    """Refuse, before anything is allocated, a run whose arrays and the emulator's state of its outputs would not fit
    in the memory this machine can give (``_emulate_bytes_per_output_byte``)."""
    available = available_host_bytes()
    per_byte = _emulate_bytes_per_output_byte()
    outputs = sum(max(1, spec.nbytes) for spec in run.arrays if spec.output)
    inputs = sum(max(1, spec.nbytes) for spec in run.arrays if not spec.output)
    needed = inputs + per_byte * outputs
    if available is not None and needed > available:
        raise ToolError(f"--emulate{run.at_shape()} would hold about {needed} bytes ({outputs} bytes of outputs at "
                        f"{per_byte} bytes each while emulated, and {inputs} of inputs), more than this machine's "
                        f"available memory ({available} bytes): give a smaller shape")


def _emulate(compiled: Any, kernel: str, params: Sequence[Parameter], run: Run, args: argparse.Namespace) -> str:
    """Run on the emulator (twice where an output element still holds the first fill); the summary
    line (or JSON object)."""
    import numpy as np

    import compiler
    from targets.ptx.emulator import EmulationError

    selected = _selected_ctas(args, run)

    def launch(fill: int) -> tuple[Any, list[Any]]:
        try:
            arrays = run.host_arrays(args.seed, output_fill=fill, floats=args.floats)
            stats = compiler.emulate(compiled, *run.arguments(params, arrays), grid=run.grid, name=kernel,
                                     ctas=selected)
        except ValueError as err:  # host memory refused the arrays (LaunchPlanError), a launch check
            raise ToolError(str(err)) from None
        except EmulationError as err:
            raise ToolError(f"the emulator stopped the launch at {run.where()}: {err}") from None
        except MemoryError:  # the emulator's per-byte bookkeeping (ownership, publication) outgrew host memory
            raise ToolError(f"the emulator ran out of host memory at {run.where()}: it keeps several bytes of state "
                            f"per byte of its arrays' {sum(spec.nbytes for spec in run.arrays)} bytes; give a smaller "
                            "shape") from None
        return stats, arrays

    def fill_held(array: Any, spec: ArraySpec, fill: int) -> Any:
        elements = array[:spec.nbytes].reshape(spec.elements, spec.element_bytes)
        return (elements == fill).all(axis=1)

    # Outputs start as 0xff bytes; an element that still holds them was never stored to, or was
    # stored that very value: only then a second launch, from zeros, tells the two apart.
    # A subset of the grid leaves the others' outputs unwritten by design: not counted then.
    stats, first = launch(0xFF)
    unwritten: dict[str, int] | None = None
    if selected is None:
        unwritten = {}
        held = {i: fill_held(first[i], spec, 0xFF) for i, spec in enumerate(run.arrays) if spec.output}
        second = launch(0x00)[1] if any(h.any() for h in held.values()) else None
        for i, mask in held.items():
            if second is not None:
                mask = mask & fill_held(second[i], run.arrays[i], 0x00)
            unwritten[run.arrays[i].param] = int(np.count_nonzero(mask))
    ops = sum(stats.ops.values())
    if args.json:
        result = _result(kernel, run, args)
        result.update(emulated=True, ctas=stats.ctas, grid_ctas=run.ctas, ops=stats.ops, unwritten_elements=unwritten)
        if selected is not None:
            result.update(cta_ids=selected)
        return json.dumps(result)
    top = sorted(stats.ops.items(), key=lambda item: (-item[1], item[0]))[:5]
    counts = ", ".join(f"{name} {count}" for name, count in top) + (", ..." if len(stats.ops) > len(top) else "")
    outputs = []
    for spec in run.arrays:
        if spec.output and unwritten is not None:
            missing = unwritten[spec.param]
            outputs.append(f"{spec.param}: {missing} of {spec.elements} elements never written" if missing
                           else f"{spec.param}: all {spec.elements} elements written")
    if unwritten is None:
        outputs.append("outputs not counted (--ctas ran part of the grid)")
    ctas = f"{stats.ctas} CTA{'s' if stats.ctas != 1 else ''}" + (f" of {run.ctas}" if selected is not None else "")
    return (f"{_head(kernel, run)}  emulated: {ctas}, {ops} ops ({counts})  "
            f"{'; '.join(outputs) or 'no outputs'}")


def _gpu() -> Any:
    from targets.ptx import runner

    try:
        return runner.require_cupy()
    except runner.GpuUnavailable as err:
        raise ToolError(f"cannot time on a GPU: {err} (--emulate runs the kernel on the CPU emulator instead)") \
            from None


def _cuda_errors(cupy: Any) -> tuple[type[Exception], ...]:
    return (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.memory.OutOfMemoryError)


def _cuda_failure(cupy: Any, what: str, err: Exception, args: argparse.Namespace) -> ToolError:
    try:
        gpu = f"; the GPU is sm_{cupy.cuda.Device().compute_capability}"
    except _cuda_errors(cupy):
        gpu = ""
    return ToolError(f"{what} failed: {err} (the PTX is for --arch {args.arch}{gpu})")


def _load(cupy: Any, compiled: Any, kernel: str, args: argparse.Namespace) -> Any:
    """The kernel loaded into the GPU's context once, before any timing (the driver compiles the PTX)."""
    from targets.ptx.runner import load

    info = next((k for k in compiled.kernels if k.name == kernel), None)
    if info is None or compiled.ptx is None:
        raise ToolError(f"the compiled module has no PTX kernel '{kernel}' (its kernels: "
                        f"{', '.join(k.name for k in compiled.kernels) or 'none'})")
    try:
        return load(compiled.ptx, info)
    except _cuda_errors(cupy) as err:
        raise _cuda_failure(cupy, f"loading kernel '{kernel}'", err, args) from None
    except ValueError as err:  # more shared memory than the device gives a CTA
        raise ToolError(str(err)) from None


def _head(kernel: str, run: Run) -> str:
    """The start of a run's line: the kernel, the shape (none for a kernel without scalar parameters), the grid."""
    return "  ".join(part for part in (kernel, run.shape_text(), f"grid={run.grid_text()}") if part)


def _number(value: float) -> str:
    return f"{value:.1f}" if value >= 100 else f"{value:.4g}"


def _time(cupy: Any, loaded: Any, kernel: str, params: Sequence[Parameter], run: Run,
          args: argparse.Namespace) -> str:
    from targets.ptx.timing import time_graph, time_launch

    def timed() -> float:
        device = [cupy.zeros(max(1, spec.nbytes), dtype=cupy.uint8) if spec.output else cupy.asarray(host)
                  for spec, host in zip(run.arrays, run.host_arrays(args.seed, None, floats=args.floats), strict=True)]
        arguments = run.arguments(params, device)

        def launch() -> None:
            loaded.launch(*arguments, grid=run.grid, sync=False)

        if args.timing == "graph":
            return time_graph(cupy, launch, per_graph=GRAPH_LAUNCHES, reps=args.reps)
        return time_launch(cupy, launch, warmup=args.warmup, reps=args.reps)

    try:
        us = timed()
    except _cuda_errors(cupy) as err:
        raise _cuda_failure(cupy, f"the launch at {run.where()}", err, args) from None
    except ValueError as err:  # the runner's refusals (a pointer not 16-byte aligned, a divisibility broken)
        # and host memory refusing the arrays (a LaunchPlanError)
        raise ToolError(str(err)) from None
    finally:
        cupy.get_default_memory_pool().free_all_blocks()  # this run's arrays, before the next run's
    tflops = run.flops / (us * 1e6) if run.flops is not None else None
    nbytes = sum(a.nbytes for a in run.arrays)
    gbps = nbytes / (us * 1e3)
    if args.json:
        result = _result(kernel, run, args)
        result.update(median_us=us, timing=args.timing, reps=args.reps, flops=run.flops, tflops=tflops,
                      **({"warmup": args.warmup} if args.timing == "events" else {}),
                      bytes=nbytes, gbps=gbps)
        return json.dumps(result)
    rate = f"  {_number(tflops)} TFLOP/s" if tflops is not None else ""
    return f"{_head(kernel, run)}  {us:.2f} us{rate}  {_number(gbps)} GB/s"


def run(argv: list[str] | None = None) -> int:
    from compiler import registry

    args = make_arg_parser().parse_args(argv)
    _check_flags(args)
    text, filename = read_input(args.input_file)
    chunk = split_chunks(text, False)[0]
    try:
        module = parse_module(registry.make_context(), chunk, filename)
        func = find_kernel(module, args.kernel)
        kernel = func.sym_name.data
        params = kernel_parameters(func)
        shapes = _shapes(args, params)
        grid, flops = _expressions(args, params)
        runs = [plan_run(shape, func, params, grid, flops, default_flops=args.flops is None) for shape in shapes]
        if args.emulate:  # a grid or shape --emulate refuses, or a --ctas outside it, before the wait for a compile
            for one in runs:
                _selected_ctas(args, one)
                _check_emulator_memory(one)
        compiled = _compile(args, text, filename)
    except ToolError:
        raise
    except LaunchPlanError as err:
        raise ToolError(str(err)) from None
    except Exception as err:  # noqa: BLE001 - only the diagnostics of the input are reported here
        message = diagnostic_text(err, chunk, TOOL, filename)  # a ptxas refusal has no location
        if message is None:
            raise
        sys.stderr.write(message + "\n")
        return 1
    if args.emulate:
        for one in runs:
            print(_emulate(compiled, kernel, params, one, args), flush=True)
        return 0
    cupy = _gpu()
    loaded = _load(cupy, compiled, kernel, args)
    for one in runs:
        print(_time(cupy, loaded, kernel, params, one, args), flush=True)
    return 0


def main(argv: list[str] | None = None) -> None:
    tool_main(TOOL, run, argv)


if __name__ == "__main__":
    main()
