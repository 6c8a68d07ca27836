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

    def _kernel(self, name: str | None) -> Any:
        from targets.ptx.runner import load

        infos = {k.name: k for k in self.kernels}
        if not infos:
            raise ValueError("the module has no kernel (a func.func with the qdot.kernel attribute)")
        if name is not None and name not in infos:
            raise ValueError(f"no kernel named {name!r}; the module's kernels are {', '.join(infos)}")
        info = infos[name] if name is not None else self.kernels[0]
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
        self.check_arrays(args, kernel, grid)
        self._kernel(kernel).launch(*args, grid=grid, stream=stream, sync=sync, programmatic=programmatic,
                                    shared_bytes=shared_bytes, carveout=carveout)

    def check_arrays(self, args: Any, name: str | None = None, grid: Any = None) -> None:
        """``ValueError`` naming each array argument smaller than the kernel's descriptors reach
        at the scalar arguments and launch ``grid`` given (a GPU would read or write past it; a
        descriptor may count programs, ``qdot.num_programs``). Kernels compiled from IR without
        descriptors over their pointers, and kernels whose sizes need a grid when none is given,
        are not checked. The sizes a shape and grid need are worked out once per shape and grid."""
        if self.source is None or not self.kernels:
            return
        from compiler.launch_plan import find_kernel, launch_grid, undersized_arrays

        kernel = name or self.kernels[0].name
        shape = tuple(a if isinstance(a, numbers.Number) else str(getattr(a, "dtype", None)) for a in args)
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


def _source_path(source: str | Path) -> Path | None:
    """The file ``source`` names, or None when it is IR text (``compile`` states the rule)."""
    import os

    if isinstance(source, Path):
        return source
    if "\n" in source or "\r" in source:
        return None
    try:
        if os.path.isfile(source):
            return Path(source)
    except (OSError, ValueError):  # a NUL byte, a name too long for the OS: not a path
        return None
    if source.strip().endswith(".mlir"):
        import errno

        raise FileNotFoundError(errno.ENOENT, "no such qdot IR file (a str of one line that ends in .mlir "
                                "is read as a path)", source)
    return None


def _parse(source: str | Path) -> Any:
    from compiler import registry
    from compiler.cli.common import parse_module, split_chunks

    path = _source_path(source)
    if path is not None:
        text, name = path.read_text(encoding="utf-8"), str(path)
    else:
        assert isinstance(source, str)
        text, name = source, "<source>"
    ctx = registry.make_context()
    return ctx, parse_module(ctx, split_chunks(text, False)[0], name)


def compile(  # noqa: A001 - the public name the design asks for
    source: str | Path,
    *,
    target: str = "ptx",
    arch: str | None = None,
    strategy: str = "auto",
    num_stages: int = 3,
    pipeline: str | None = None,
    verify: bool = False,
    trace: bool = False,
    remarks: bool = False,
) -> CompiledKernel:
    """Compile qdot IR text (or a path) for ``target`` ("ptx", "llvm", "cubin", "sass", "agx3b", "agx3c").

    ``source`` is a ``pathlib.Path``, or a ``str`` that is read as a path when it has no line
    break and names an existing file; any other ``str`` is IR text. A one-line ``str`` ending in
    ``.mlir`` that names no file raises ``FileNotFoundError`` naming it (not a parse error).
    ``trace=True`` keeps the IR after every pass and its time (``CompiledKernel.trace``).
    ``arch`` defaults to sm_90, or with a ``pipeline`` to the arch its passes name; passes of one
    pipeline that run for different archs, or for another than ``arch``, raise ``ValueError``.
    ``remarks=True`` keeps what each pass decided and why, one located line per decision, as
    ``qdot-translate --remarks`` prints them (``CompiledKernel.remarks``, in IR order; the file
    is ``<source>`` for IR text); the artifact is the same either way.
    A malformed argument raises ``TypeError`` / ``ValueError`` naming it; malformed IR, or IR
    a pass refuses, raises the diagnostic the tools print (``compiler.diagnostics.QdotError``
    or xDSL's ``ParseError``); a missing ptxas or cuobjdump raises ``compiler.tools.ToolUnavailable``."""
    from compiler.cli.common import without_cyclic_gc

    _check_arguments(source, target, arch, strategy, num_stages, pipeline)
    arch = _resolve_arch(target, arch, pipeline)
    for name, flag in (("trace", trace), ("remarks", remarks)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {type(flag).__name__}")

    with without_cyclic_gc():
        return _compile(source, target, arch, strategy, num_stages, pipeline, verify, trace, remarks)


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
             verify: bool, trace: bool = False, remarks: bool = False) -> CompiledKernel:
    from compiler import registry
    from compiler.cli.common import build_pipeline
    from compiler.remarks import Remarks, collecting

    ctx, module = _parse(source)
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
    done by the last of a tile's programs to arrive is not done unless all of them run).

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
    infos = {k.name: k for k in kernel.kernels}
    if not infos:
        raise ValueError("the module has no kernel (a func.func with the qdot.kernel attribute)")
    if name is not None and name not in infos:
        raise ValueError(f"no kernel named {name!r}; the module's kernels are {', '.join(infos)}")
    kernel.check_arrays(args, name, grid)
    infos[name or kernel.kernels[0].name].check_divisibility(args)
    if ctas is not None:
        if isinstance(ctas, (str, bytes)) or not all(isinstance(c, numbers.Integral) for c in ctas):
            raise TypeError(f"ctas= takes CTA ids (integers from 0 to the grid's size - 1), got {ctas!r}")
        ctas = [int(c) for c in ctas]
    return run_emulator(kernel.lowered, name or kernel.kernels[0].name, list(args), grid,
                        options=LaunchOptions(arch=kernel.artifact.arch, ctas=ctas))
