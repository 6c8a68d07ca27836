"""The Python API: ``compile`` qdot IR to an artifact, ``run`` a compiled kernel on a GPU, or
``emulate`` it on the CPU.

    import compiler
    k = compiler.compile("examples/mx_gemm_e4m3_e2m1.mlir", arch="sm_90")   # a path, or IR text
    print(k.ptx)                           # the PTX; k.kernels[0].shared_bytes, .block etc.
    for step in compiler.compile(source, arch="sm_90", trace=True).trace:
        print(step.name, step.seconds)     # and step.ir: the module after that pass
    print(*compiler.compile(source, arch="sm_120a", remarks=True).remarks, sep="\n")  # each decision, why
    # one program per 128x128 tile of C, numbered along x only (the kernel reads ctaid.x);
    # cdiv(x, y) = -(-x // y)
    k.launch(a, b, sa, sb, c, M, N, K, grid=(cdiv(M, 128) * cdiv(N, 128), 1, 1))   # CuPy arrays
    compiler.run(k, a_host, ..., grid=...) # numpy arrays, copied in and out; an array smaller than
                                           # the kernel's descriptors reach is refused by name first
    compiler.emulate(k, a_host, ..., grid=...)  # the same on the CPU: the H200's bits for sm_90

    t = compiler.compile("examples/agx_tile_fp16.mlir", target="agx3b")
    d = compiler.emulate(t, a, b, acc)     # an AGX tile on the AGX emulator: D as float32 [M, N]
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.pipelines import AGX_FORMS, PTX_ARCHES, STRATEGIES, TARGETS, PtxOptions, agx_pipeline, ptx_pipeline, stages_problem

COMPILE_TARGETS = tuple(t for t in TARGETS if t != "mlir")
"""What ``compile`` produces: qdot-translate's targets but ``mlir``, which is qdot-opt's job."""


@dataclass(frozen=True)
class PassStep:
    """One pass of a traced compile (``compile(..., trace=True)``): what the tools'
    ``--print-ir-after-all`` and ``--timing`` show, for a notebook or a script."""

    name: str
    ir: str
    """The module after the pass, as ``qdot-opt`` prints it."""
    seconds: float
    """The pass's wall time (the last pass's includes the final verification)."""


@dataclass
class CompiledKernel:
    """A compiled module and its metadata; ``launch`` runs its (first, or named) kernel."""

    artifact: Any
    pipeline: str
    trace: tuple[PassStep, ...] = ()
    """Each pass of the pipeline in order, with the IR after it, when compiled with ``trace=True``."""
    remarks: tuple[str, ...] = ()
    """With ``remarks=True``: each decision the passes made, as the tools' ``--remarks`` prints it
    (``file:line:col: remark: <pass>: <message>``), in IR order."""
    lowered: Any = None
    """The module after the pipeline, which ``emulate`` runs: the LLVM-ready IR the PTX is emitted
    from, or for the AGX targets the allocated ``agx`` tile the MMA stream is encoded from."""
    source: Any = None
    """The module as parsed, before the pipeline: its ``qdot.make_desc`` ops say how far each
    pointer argument reaches, which ``run``, ``launch`` and ``emulate`` check the arrays against."""
    _loaded: dict[str, Any] = field(default_factory=dict)
    _checked: dict[tuple, tuple[int, ...]] = field(default_factory=dict)

    @property
    def ptx(self) -> str | None:
        return self.artifact.ptx

    @property
    def llvm_ir(self) -> str | None:
        return self.artifact.llvm_ir

    @property
    def kernels(self) -> tuple:
        return self.artifact.kernels

    @property
    def data(self) -> str | bytes:
        return self.artifact.data

    def _info(self, name: str | None) -> Any:
        """The ``KernelInfo`` of the kernel named ``name`` (None: the first), or ``ValueError``."""
        kernels = self.kernels
        if not kernels:
            raise ValueError("the module has no kernel (a func.func with the qdot.kernel attribute)")
        if name is None:
            return kernels[0]
        for info in kernels:
            if info.name == name:
                return info
        raise ValueError(f"no kernel named {name!r}; the module's kernels are {', '.join(k.name for k in kernels)}")

    def _kernel(self, name: str | None) -> Any:
        from targets.ptx.runner import load

        info = self._info(name)
        if info.name not in self._loaded:
            if self.ptx is None:
                raise ValueError("this artifact has no PTX to run")
            self._loaded[info.name] = load(self.ptx, info)
        return self._loaded[info.name]

    def launch(self, *args: Any, grid: Any, kernel: str | None = None, stream: Any = None, sync: bool = True,
               programmatic: bool = False, shared_bytes: int | None = None, carveout: int | None = None) -> None:
        """Launch on the GPU with CuPy arrays (``compiler.run`` takes numpy ones), after ``check_arrays``.
        ``programmatic``, ``shared_bytes`` and ``carveout`` are ``targets.ptx.runner.LoadedKernel.launch``'s: a
        programmatic dependent launch (for a kernel that waits for the previous grid), the dynamic shared memory
        to launch with, the shared-memory carve-out a programmatic launch prefers."""
        grid = _check_launch(self, args, kernel, grid, "launch")
        self.check_arrays(args, kernel, grid)
        self._kernel(kernel).launch(*args, grid=grid, stream=stream, sync=sync, programmatic=programmatic,
                                    shared_bytes=shared_bytes, carveout=carveout)

    def check_arrays(self, args: Any, name: str | None = None, grid: Any = None) -> None:
        """``ValueError`` naming each array argument smaller than the kernel's descriptors reach
        at the scalar arguments and launch ``grid`` given (a GPU would read or write past it; a
        descriptor may count programs, ``qdot.num_programs``), of a dtype its pointee does not take
        (``launch_checks._item_size_problem``), or read-only where the kernel stores. Kernels compiled from IR without
        descriptors over their pointers, and kernels whose sizes need a grid when none is given,
        are not checked. The sizes a shape and grid need are worked out once per shape and grid."""
        if self.source is None or not self.kernels:
            return
        from compiler.launch_checks import launch_grid, undersized_arrays
        from compiler.launch_plan import find_kernel

        kernel = name or self.kernels[0].name
        shape = tuple(a if isinstance(a, numbers.Number)
                      else (str(getattr(a, "dtype", None)), getattr(getattr(a, "flags", None), "writeable", True))
                      for a in args)
        held = tuple(-1 if isinstance(a, numbers.Number) else getattr(a, "nbytes", -1) for a in args)
        key = (kernel, shape, launch_grid(grid))
        enough = self._checked.get(key)  # sizes that passed at this shape and grid before
        if enough is not None and all(h >= e for h, e in zip(held, enough, strict=True)):
            return
        try:
            func = find_kernel(self.source, kernel)
        except ValueError:
            return
        problems = undersized_arrays(func, args, grid)
        if problems:
            raise ValueError(f"{kernel}: " + "; ".join(problems))
        self._checked[key] = held


def source_path(source: str | Path) -> Path | None:
    """The file ``source`` names, or None when it is IR text (``compile`` states the rule). A str
    that would be taken as one but cannot be meant as it — a directory, a missing ``.mlir`` file, an
    existing path with whitespace around it — is refused here, saying what it was taken as: the
    parser would otherwise report its first word as an unregistered operation."""
    import errno
    import os

    if isinstance(source, Path):
        return source
    stripped = source.strip()
    if stripped != source and stripped and not any(c in stripped for c in "\n\r") and _exists(stripped):
        raise ValueError(f"source {source!r} is taken as IR text (a str is a path only when it has no line break "
                         f"or surrounding whitespace), but {stripped!r} names an existing path: pass it without "
                         "the whitespace, or as a pathlib.Path")
    if "\n" in source or "\r" in source:
        return None
    try:
        is_file, is_dir = os.path.isfile(source), os.path.isdir(source)
    except (OSError, ValueError):  # a NUL byte, a name too long for the OS: not a path
        return None
    if is_file:
        return Path(source)
    if is_dir:
        raise IsADirectoryError(errno.EISDIR, "a directory, not a qdot IR file (a str of one line that names an "
                                "existing path is read as that path)", source)
    if source.strip().endswith(".mlir"):
        raise FileNotFoundError(errno.ENOENT, "no such qdot IR file (a str of one line that ends in .mlir "
                                "is read as a path)", source)
    return None


def _exists(path: str) -> bool:
    import os

    try:
        return os.path.exists(path)
    except (OSError, ValueError):
        return False


def _parse(source: str | Path, source_name: str | None = None) -> Any:
    from compiler import registry
    from compiler.cli.common import parse_module, split_chunks

    path = source_path(source)
    if path is not None:
        name = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:  # a binary file: the bare error names no file
            raise ValueError(f"{name} is not a qdot IR file: byte {err.start} (0x{err.object[err.start]:02x}) is not "
                             "UTF-8 text") from None
    else:
        assert isinstance(source, str)
        text, name = source, "<source>"
    if source_name is not None:
        name = source_name
    ctx = registry.make_context()
    return ctx, parse_module(ctx, split_chunks(text, False)[0], name)


def compile(  # noqa: A001 - the public name the design asks for
    source: str | Path,
    *,
    target: str = "ptx",
    arch: str | None = None,
    strategy: str | None = None,
    num_stages: int | None = None,
    pipeline: str | None = None,
    verify: bool = False,
    trace: bool = False,
    remarks: bool = False,
    source_name: str | os.PathLike[str] | None = None,
) -> CompiledKernel:
    """Compile qdot IR text (or a path) for ``target`` ("ptx", "llvm", "cubin", "sass", "agx3b", "agx3c").

    ``source`` is a ``pathlib.Path``, or a ``str`` that is read as a path when it has no line
    break and names an existing file; any other ``str`` is IR text. A one-line ``str`` ending in
    ``.mlir`` that names no file raises ``FileNotFoundError`` naming it (not a parse error), one that
    names a directory ``IsADirectoryError``, and an existing path with whitespace or a line break
    around it ``ValueError`` (it would be parsed as IR); a file that is not UTF-8 text, ``ValueError``
    naming it. ``strategy`` (default "auto") and ``num_stages`` (default 3; any integer, numpy's too)
    configure the NVIDIA pipeline, as ``arch`` does: with an AGX target they raise ``ValueError``, and beside
    ``pipeline`` too (give them to its passes, as qdot-translate asks beside ``--pipeline``).
    ``trace=True`` keeps the IR after every pass and its time (``CompiledKernel.trace``).
    ``arch`` defaults to sm_90, or with a ``pipeline`` to the arch its passes name; passes of one
    pipeline that run for different archs, or for another than ``arch``, raise ``ValueError``.
    ``remarks=True`` keeps what each pass decided and why, one located line per decision, as
    ``qdot-translate --remarks`` prints them (``CompiledKernel.remarks``, in IR order; the file
    is ``<source>`` for IR text); the artifact is the same either way.
    ``source_name`` is the file name diagnostics, remarks and the emulator's errors locate the IR in
    (``name:line:col``): by default the path, or ``<source>`` for IR text; a tool that read the text
    itself (from standard input, say) passes the name it read it under.
    A malformed argument raises ``TypeError`` / ``ValueError`` naming it; malformed IR, or IR
    a pass refuses, raises the diagnostic the tools print (``compiler.diagnostics.QdotError``
    or xDSL's ``ParseError``); a missing ptxas or cuobjdump raises ``compiler.tools.ToolUnavailable``."""
    from compiler.cli.common import without_cyclic_gc

    for name, flag in (("verify", verify), ("trace", trace), ("remarks", remarks)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {type(flag).__name__}")
    if target in AGX_FORMS:
        nvidia = [name for name, value in (("arch", arch), ("strategy", strategy), ("num_stages", num_stages))
                  if value is not None]
        if nvidia:  # as qdot-translate refuses --arch with an AGX --target, rather than ignoring it
            verb, pronoun = ("configure", "they do") if len(nvidia) > 1 else ("configures", "it does")
            raise ValueError(f"{' and '.join(nvidia)} {verb} the NVIDIA pipeline; {pronoun} not apply to "
                             f"target={target!r}")
    if pipeline is not None:  # as qdot-translate refuses --strategy / --num-stages beside --pipeline
        given = [name for name, value in (("strategy", strategy), ("num_stages", num_stages)) if value is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} {'set' if len(given) > 1 else 'sets'} the default pipeline's "
                             "options; with pipeline=, give them to its passes (qdot-accelerate-matmul{strategy=...}, "
                             "qdot-pipeline{num-stages=...})")
    strategy = "auto" if strategy is None else strategy
    if num_stages is None:
        num_stages = 3
    elif isinstance(num_stages, numbers.Integral) and not isinstance(num_stages, bool):
        num_stages = int(num_stages)  # numpy's integers too
    _check_arguments(source, target, arch, strategy, num_stages, pipeline)
    source_name = _checked_source_name(source_name)
    arch = _resolve_arch(target, arch, pipeline)

    with without_cyclic_gc():
        return _compile(source, target, arch, strategy, num_stages, pipeline, verify, trace, remarks, source_name)


def _check_arguments(source: Any, target: Any, arch: Any, strategy: Any, num_stages: Any, pipeline: Any) -> None:
    """Refuse a bad argument here, by name, rather than deep in a pass (or, for an unknown
    target, not at all: it used to return an empty artifact)."""
    if not isinstance(source, (str, Path)):
        raise TypeError(f"source must be IR text or a path (str) or a pathlib.Path, got {type(source).__name__}")
    if target not in COMPILE_TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(COMPILE_TARGETS)}")
    if target not in AGX_FORMS and arch is not None and arch not in PTX_ARCHES:
        raise ValueError(f"unknown arch {arch!r}; expected one of {', '.join(PTX_ARCHES)}")
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}")
    if (problem := stages_problem("num_stages", num_stages)) is not None:
        raise ValueError(problem)
    if pipeline is not None and not isinstance(pipeline, str):
        raise TypeError(f"pipeline must be a pass pipeline string or None, got {type(pipeline).__name__}")


def _checked_source_name(source_name: Any) -> str | None:
    """``source_name`` as a str (a path-like object too); a name that would garble ``name:line:col`` refused."""
    if source_name is None:
        return None
    if isinstance(source_name, os.PathLike):
        source_name = os.fspath(source_name)
    if not isinstance(source_name, str):
        raise TypeError(f"source_name must be a file name (str or path), got {type(source_name).__name__}")
    if not source_name or not source_name.isprintable():
        raise ValueError(f"source_name must be a non-empty file name without control characters, got "
                         f"{source_name!r}")
    return source_name


def _resolve_arch(target: str, arch: str | None, pipeline: str | None) -> str:
    """``arch``, or the one the pipeline's passes run for, or sm_90 (see ``compile``)."""
    if target in AGX_FORMS or pipeline is None:
        return arch or "sm_90"
    from compiler import registry
    from compiler.cli import pipeline_spec

    try:
        return pipeline_spec.pipeline_arch(registry.pass_factories(), pipeline, arch, "arch=") or "sm_90"
    except pipeline_spec.PipelineError as err:
        raise ValueError(str(err)) from None


def _compile(source: str | Path, target: str, arch: str, strategy: str, num_stages: int, pipeline: str | None,
             verify: bool, trace: bool = False, remarks: bool = False,
             source_name: str | None = None) -> CompiledKernel:
    from compiler import registry
    from compiler.cli.common import build_pipeline
    from compiler.remarks import Remarks, collecting

    ctx, module = _parse(source, source_name)
    parsed = module.clone() if target not in AGX_FORMS else None
    tracer = _Tracer() if trace else None
    found = Remarks() if remarks else None
    if target in ("agx3b", "agx3c"):
        spec = pipeline or agx_pipeline(target)
        passes = build_pipeline(registry.pass_factories(), spec, tracer)
        if tracer is not None:
            tracer.start()
        with collecting(found):
            passes.apply(ctx, module)
        from targets.agx import emit as agx_emit

        from targets.ptx.artifact import Artifact

        return CompiledKernel(Artifact(target, target, agx_emit(module, target, "hex")), spec,
                              tuple(tracer.steps) if tracer else (), found.lines() if found else (), lowered=module)
    # pipeline="" runs no pass (IR already at the LLVM level, as hand-written ptx kernels are)
    spec = pipeline if pipeline is not None else ptx_pipeline(PtxOptions(arch=arch, strategy=strategy,
                                                                          num_stages=num_stages))
    passes = build_pipeline(registry.pass_factories(), spec, tracer, verify_each=False)
    if tracer is not None:
        tracer.start()
    with collecting(found):
        passes.apply(ctx, module)
    from targets.ptx.artifact import compile_module

    # The pipeline verified the module after its last pass (the parser did, for an empty one):
    # verifying a lowered kernel again would cost a tenth of the compile.
    artifact = compile_module(module, arch=arch, target="ptx" if target == "ptx" else target, verify=verify,
                              module_verified=True, pipeline=pipeline)
    return CompiledKernel(artifact, spec, tuple(tracer.steps) if tracer else (), found.lines() if found else (),
                          lowered=module, source=parsed)


class _Tracer:
    """A ``build_pipeline`` ``after_pass`` that records each pass's ``PassStep``; ``start`` right
    before the pipeline runs (building it imports the passes, which is no pass's time), and the
    printing is not counted in the next pass's time."""

    def __init__(self) -> None:
        self.steps: list[PassStep] = []
        self._last = 0.0

    def start(self) -> None:
        import time

        self._last = time.perf_counter()

    def __call__(self, pass_: Any, module: Any) -> None:
        import time
        from io import StringIO

        from compiler.cli.common import print_module

        seconds = time.perf_counter() - self._last
        out = StringIO()
        print_module(module, out)
        self.steps.append(PassStep(pass_.name, out.getvalue(), seconds))
        self._last = time.perf_counter()


def run(kernel: CompiledKernel, *args: Any, grid: Any, name: str | None = None) -> None:
    """Launch with numpy arrays (copied in and back out) or CuPy arrays (used in place)."""
    import numpy as np

    from targets.ptx.runner import run_with_host_arrays

    if not isinstance(kernel, CompiledKernel):  # a kernel_cache.CachedKernel, a path: not something to launch
        raise TypeError(f"run takes the CompiledKernel that compiler.compile returns, got {type(kernel).__name__}")
    grid = _check_launch(kernel, args, name, grid, "run")
    kernel.check_arrays(args, name, grid)
    loaded = kernel._kernel(name)
    if any(isinstance(a, np.ndarray) for a in args):
        run_with_host_arrays(loaded, args, grid)
    else:
        loaded.launch(*args, grid=grid)


def emulate(kernel: CompiledKernel, *args: Any, grid: Any = None, name: str | None = None,
            ctas: Sequence[int] | None = None) -> Any:
    """``run`` on qdot's PTX emulator instead of a GPU: numpy arrays are read and written in place,
    scalars passed as they are; no GPU, CuPy or driver is needed. For a kernel compiled for sm_90 /
    sm_90a the output is bit for bit what an H200 computes (its floating-point mma / wgmma follow
    ``compiler.numerics.tensor_core``, measured; bench/RESULTS.md runs 122–127); for other arches
    a floating-point mma is the exact sum rounded once, which their tensor cores may not match in
    the last bits (not measured). The emulator also checks what a GPU
    would not report — out-of-range accesses, shared-memory races, unwritten reads — each an
    ``EmulationError`` naming the op, CTA and thread. Returns the emulator's ``RunStats`` (ops
    executed, CTAs run). It is slow: a few seconds for a 128×128 tile. ``ctas`` runs only those
    CTAs of the grid (linear ids, x fastest, then y and z; each from 0 to the grid's size − 1), in
    the order given: enough to check a large launch's first and last tiles against the arrays'
    bounds. What the other CTAs would store is then left as it was (a split-K or stream-K fix-up
    done by the last of a tile's programs to arrive is not done unless all of them run). A malformed
    ``grid`` or ``ctas``, a wrong argument count, a list or str where an array or number goes, an array
    not in C order, or one of the wrong dtype, too small or read-only where the kernel stores, raises
    ``TypeError`` / ``ValueError`` naming it before anything runs (as ``run`` and ``launch`` do). The emulator
    keeps up to 9 bytes of state per byte of each array the kernel stores to; where that would take more than the
    machine's available memory, the first store to the array raises ``MemoryError`` saying so, before allocating.

    An ``agx3b`` / ``agx3c`` artifact is one simdgroup's dot tile: ``emulate(k, a, b, acc)`` takes
    the tile function's arguments in order (numpy arrays in ``compiler.numerics.dot_scaled``'s
    conventions; no ``grid``), runs the encoded MMA stream on the AGX emulator
    (``targets.agx.run.emulate``, docs/agx.md) and returns D, float32 [M, N]; ``name`` picks the
    tile function when the module has several."""
    if not isinstance(kernel, CompiledKernel):
        raise TypeError(f"emulate takes the CompiledKernel that compiler.compile returns, got {type(kernel).__name__}")
    target = kernel.artifact.target
    if target in AGX_FORMS:
        if grid is not None:
            raise ValueError(f"an {target} artifact has no PTX kernel to emulate on a grid: it is one simdgroup's "
                             f"dot tile; call compiler.emulate(kernel, *inputs) without grid, with the tile "
                             f"function's arguments in order, and it returns D")
        if ctas is not None:
            raise ValueError(f"an {target} artifact has no grid of CTAs to choose from: ctas= picks CTAs of a PTX "
                             f"kernel's grid")
        from targets.agx.run import emulate as run_agx

        return run_agx(kernel.lowered, target, list(args), function=name)
    if grid is None:
        raise TypeError("emulate() of a PTX kernel needs grid=, the launch grid (as compiler.run takes it)")
    from targets.ptx.emulator import LaunchOptions, emulate as run_emulator

    if kernel.lowered is None:
        raise ValueError(f"a {target} artifact has no lowered module to emulate")
    info = kernel._info(name)
    grid = _check_launch(kernel, args, name, grid, "emulate")
    picked = _check_ctas(ctas, grid)
    kernel.check_arrays(args, name, grid)
    info.check_divisibility(args)
    return run_emulator(kernel.lowered, info.name, list(args), grid,
                        options=LaunchOptions(arch=kernel.artifact.arch, ctas=picked))


_ARRAYS = {"emulate": "a numpy array", "run": "a numpy or CuPy array", "launch": "a CuPy array"}
"""What a pointer argument takes, per entry point: ``emulate`` reads and writes numpy arrays in place,
``run`` copies numpy arrays to the GPU (and uses CuPy ones in place), ``launch`` passes device arrays
(a numpy array there is left to the runner, which names it: tests stand a fake runner in for it)."""


def _check_launch(kernel: CompiledKernel, args: Sequence[Any], name: str | None, grid: Any,
                  entry: str) -> tuple[int, int, int]:
    """The launch ``grid`` as (x, y, z) Python ints, after refusing a malformed grid or argument with
    ``TypeError`` / ``ValueError`` naming it: the programming mistakes that the emulator used to find
    (an ``EmulationError``, which ``except ValueError`` does not catch) or a raw Python error deep in it
    (a float or str grid), and that a GPU launch finds only once CuPy and a device are there — an
    argument count, a list or a str for an array or a number, an array not in C order (the kernel reads
    one row-major block from its start: a Fortran-ordered or strided view would be read in the wrong
    order, and ``run`` would copy results back into a temporary). ``entry`` is ``emulate``, ``run`` or
    ``launch``: what a pointer takes (``_ARRAYS``). Cheap enough for every launch: no module is walked."""
    import numpy as np

    from compiler.launch_checks import checked_grid

    grid3 = checked_grid(grid)
    info = kernel._info(name)
    kinds = info.arg_kinds
    if len(args) != len(kinds):
        names = _parameter_names(kernel, info)
        listed = ", ".join(f"{n}: {k}" for n, k in zip(names, kinds, strict=True))
        raise TypeError(f"{info.name} takes {len(kinds)} arguments ({listed}), got {len(args)}")
    for index, (kind, arg) in enumerate(zip(kinds, args, strict=True)):
        if kind != "ptr" and type(arg) in (int, float):  # the common case, without the ABC checks below
            continue
        if kind == "ptr":
            if not isinstance(arg, np.ndarray) and (entry == "emulate"
                                                    or not hasattr(type(arg), "__cuda_array_interface__")):
                raise TypeError(f"{info.name}: argument #{index} ({_parameter_names(kernel, info)[index]}) is a "
                                f"pointer: pass {_ARRAYS[entry]}, got {type(arg).__name__}")
            if not arg.flags.c_contiguous:
                raise ValueError(f"{info.name}: argument #{index} ({_parameter_names(kernel, info)[index]}) is not "
                                 "C-contiguous (a transposed or strided view, or Fortran order), and the kernel "
                                 "reads it as one row-major block from its start: pass np.ascontiguousarray(x)")
        elif not isinstance(arg, numbers.Real) or isinstance(arg, bool):
            raise TypeError(f"{info.name}: argument #{index} ({_parameter_names(kernel, info)[index]}) is "
                            f"a scalar ({kind}): pass a number, got {type(arg).__name__}")
    return grid3


def _check_ctas(ctas: Any, grid: tuple[int, int, int]) -> list[int] | None:
    """``emulate``'s ``ctas=`` as a list of ints, each a CTA of ``grid``; ``TypeError`` / ``ValueError`` otherwise."""
    from compiler.launch_checks import integer_list

    if ctas is None:
        return None
    count = grid[0] * grid[1] * grid[2]
    what = "ctas= takes CTA ids (integers from 0 to the grid's size - 1)"
    if isinstance(ctas, (str, bytes, numbers.Number)):
        one = f" (one CTA: ctas=[{ctas}])" if isinstance(ctas, numbers.Integral) else ""
        raise TypeError(f"{what}, got {ctas!r}{one}")
    picked = integer_list(ctas, what, ctas)
    outside = [c for c in picked if not 0 <= c < count]
    if outside:
        raise ValueError(f"{what}: CTA {outside[0]} is outside the grid of {count} (grid {grid})")
    return picked


def _parameter_names(kernel: CompiledKernel, info: Any) -> list[str]:
    """``%name`` of each parameter of the kernel ``info`` describes, as its source names it (``argN``
    where the module as parsed is not kept); for messages only: it walks the module."""
    fallback = [f"arg{i}" for i in range(len(info.arg_kinds))]
    if kernel.source is None:
        return fallback
    from compiler.diagnostics import QdotError
    from compiler.launch_plan import find_kernel, kernel_parameters

    try:
        params = kernel_parameters(find_kernel(kernel.source, info.name))
    except (ValueError, QdotError):  # no such kernel; a parameter type the planner does not pass
        return fallback
    names = [f"%{p.name}" for p in params]
    return names if len(names) == len(fallback) else fallback
