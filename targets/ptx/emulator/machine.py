"""Launching a kernel on the emulator: `emulate`.

It maps the numpy arguments to fake device addresses (memory.py), checks the launch
against the kernel's attributes (``qdot.num_warps``, ``qdot.arg_kinds``), and runs
every CTA of the 1-D grid, one after the other, each with fresh shared memory
(program.py runs a CTA).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.memory import GlobalMemory, SharedMemory
from targets.ptx.emulator.program import Kernel, Observer, prepare
from targets.ptx.emulator.state import CtaState
from targets.ptx.emulator.values import Kind, RegType, constant_array, reg_type


@dataclass(frozen=True)
class RunStats:
    """What a launch executed: CTAs and, per op name, how many times summed over CTAs
    (one execution by a whole CTA counts once, whatever its number of threads)."""

    ctas: int
    ops: dict[str, int]


def find_kernel(module: ModuleOp, name: str) -> FuncOp:
    for op in module.walk():
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    names = [op.sym_name.data for op in module.walk() if isinstance(op, FuncOp)]
    raise EmulationError(f"no function @{name} in the module (functions: {', '.join(names) or 'none'})")


def _count(value: int | Sequence[int], what: str) -> int:
    if isinstance(value, int):
        return value
    dims = list(value)
    if any(d != 1 for d in dims[1:]):
        raise EmulationError(f"{what} must be one-dimensional, got {tuple(dims)}")
    return dims[0]


@dataclass(frozen=True)
class LaunchOptions:
    """Checks and knobs of one launch (defaults: every check on)."""

    check_races: bool = True
    check_store_ownership: bool = True
    shared_poison: int = 0xFF
    max_steps_per_cta: int = 5_000_000
    observer: Observer | None = None
    ctas: Sequence[int] | None = None
    """Run only these CTAs (linear ids; default: the whole grid): experiments, and ``compiler.emulate(ctas=)`` /
    ``qdot-bench --emulate --ctas`` to check a large grid's edges."""
    arch: str = "sm_90"
    """The GPU whose tensor-core arithmetic floating-point mma.sync / wgmma follow: the H200's,
    measured bit for bit (``compiler.numerics.tensor_core``), on sm_90 / sm_90a; elsewhere the
    exact sum rounded once."""


def emulate(module: ModuleOp | FuncOp | Kernel, kernel_name: str | None, args: Sequence[np.ndarray | int],
            grid: int | Sequence[int], block: int | Sequence[int] | None = None,
            options: LaunchOptions | None = None) -> RunStats:
    """Run kernel `kernel_name` of `module` on `grid` CTAs (an int or (x, y, z)) of `block` threads.

    `args` follow the kernel's parameters: a numpy array for each pointer (i64)
    argument — it is read and written in place — and a Python int for each scalar.
    `block` defaults to the kernel's 32·num_warps and must equal it. `module` may also
    be a ``func.func`` or a `Kernel` from `prepare` (to prepare once, launch often).
    `options` turns checks off, sets the shared-memory poison byte, restricts the
    CTAs run, or installs an observer that sees every op's results (for experiments).
    """
    options = options or LaunchOptions()
    if isinstance(module, Kernel):
        kernel = module
    else:
        func = module if isinstance(module, FuncOp) else find_kernel(module, kernel_name or "")
        kernel = prepare(func)
    grid_dims = (grid, 1, 1) if isinstance(grid, int) else tuple([*grid, 1, 1][:3])
    if len(grid_dims) != 3 or any(d < 1 for d in grid_dims) or (not isinstance(grid, int) and len(grid) > 3):
        raise EmulationError(f"grid must have one to three positive dimensions, got {grid}")
    ctas = grid_dims[0] * grid_dims[1] * grid_dims[2]
    threads = kernel.threads if block is None else _count(block, "block")
    if threads != kernel.threads:
        raise EmulationError(f"block of {threads} threads, but @{kernel.name} has qdot.num_warps = "
                             f"{kernel.threads // 32} ({kernel.threads} threads)")
    params = list(kernel.func.body.blocks[0].args)
    if len(args) != len(params):
        raise EmulationError(f"@{kernel.name} takes {len(params)} arguments, got {len(args)}")
    arrays: list[np.ndarray] = []
    names: list[str] = []
    positions: list[int] = []
    for i, (arg, kind, param) in enumerate(zip(args, kernel.arg_kinds, params, strict=True)):
        if isinstance(arg, np.ndarray):
            if kind not in ("ptr", "ptr-or-scalar") or reg_type(param.type) != RegType(Kind.INT, 64):
                # a pointer is an i64 after qdot-to-llvm, so this parameter is a scalar
                raise EmulationError(f"argument #{i} is a numpy array, but parameter #{i} of @{kernel.name} is "
                                     f"a scalar of type {param.type}: pass a number")
            arrays.append(arg)
            names.append(f"argument #{i}")
            positions.append(i)
        elif kind == "ptr":
            raise EmulationError(f"argument #{i} is a pointer: pass a numpy array, got {type(arg).__name__}")
        elif not isinstance(arg, (int, float, np.integer, np.floating)):
            raise EmulationError(f"argument #{i} must be a number, got {type(arg).__name__}")
    memory = GlobalMemory(arrays, names, options.check_store_ownership)
    values: list[np.ndarray] = []
    pointer = 0
    for arg, param in zip(args, params, strict=True):
        rt = reg_type(param.type)
        if isinstance(arg, np.ndarray):
            values.append(constant_array(memory.address(pointer), rt, threads))
            pointer += 1
        else:
            if rt.kind is not Kind.INT:
                values.append(constant_array(float(arg), rt, threads))
            else:
                values.append(constant_array(int(arg), rt, threads))
    counts: Counter[str] = Counter()
    # a kernel with griddepcontrol.wait runs as launched programmatically: each CTA touches only the marked
    # arrays until it has waited
    early = None if kernel.read_before_wait is None else frozenset(
        index for index, position in enumerate(positions) if position in kernel.read_before_wait)
    selected = range(ctas) if options.ctas is None else options.ctas
    for cta_id in selected:
        if not 0 <= cta_id < ctas:
            raise EmulationError(f"CTA {cta_id} is outside the grid of {ctas}")
        shared = SharedMemory(kernel.shared_bytes, options.shared_poison, options.check_races)
        cta = CtaState(cta_id, ctas, threads, shared, memory, grid_dims, arch=options.arch)  # type: ignore[arg-type]
        memory.start_cta(cta_id)
        memory.gate(early)
        kernel.run_cta(cta, values, options.observer, counts, options.max_steps_per_cta)
    memory.gate(None)
    return RunStats(len(selected), dict(sorted(counts.items())))
