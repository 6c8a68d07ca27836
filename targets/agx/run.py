"""Run a lowered module's tile on the emulator: encode, decode, execute, compare-ready result.

    result = emulate(module, "agx3b", [a, b, acc])   # inputs indexed like the function's arguments
    result = compiler.emulate(compiler.compile(path, target="agx3b"), a, b, acc)   # the same

``module`` is the module after the AGX pipeline (``compiler.compile(..., target=form).lowered``,
or ``targets.agx.tiles.compile_ir``). The stream goes through the encoder and back through the
decoder, so the result checks the lowering, the register allocation, the hints and waits and
the operand order together, without Apple hardware.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

from targets.agx.emitter import tile_programs
from targets.agx.emulator import run_program
from targets.agx.operands import fragment_values

_WHAT_TO_PASS = ("pass the module the AGX pipeline lowered: compiler.compile(source, target=form).lowered "
                 "(or compiler.emulate(that_compiled_kernel, *inputs)), or targets.agx.tiles.compile_ir(text, "
                 "targets.agx.tiles.FULL_PIPELINE % form)")


def _lowered_module(module: Any) -> ModuleOp:
    """``module`` itself, or the lowered module of a ``compiler.api.CompiledKernel``."""
    if isinstance(module, ModuleOp):
        return module
    lowered = getattr(module, "lowered", None)  # a CompiledKernel: not imported, compiler.api needs no xDSL
    if hasattr(module, "artifact") and isinstance(lowered, ModuleOp):
        return lowered
    got = "None" if module is None else type(module).__name__
    raise TypeError(f"emulate runs an AGX tile module, got {got}; {_WHAT_TO_PASS}")


def _check_inputs(func: FuncOp, inputs: Sequence[np.ndarray]) -> None:
    """One array per argument of the tile function, each shaped like its tensor (block formats
    have a trailing byte axis the tensor type does not show)."""
    args = func.body.blocks[0].args
    if len(inputs) != len(args):
        names = ", ".join(f"%{a.name_hint}" if a.name_hint else f"%arg{a.index}" for a in args)
        raise ValueError(f"@{func.sym_name.data} takes {len(args)} inputs ({names}), got {len(inputs)}")
    for arg, value in zip(args, inputs, strict=True):
        if value is None or not isinstance(arg.type, TensorType):  # None: an argument no load reads
            continue
        want = tuple(arg.type.get_shape())
        got = np.shape(value)
        if got[:len(want)] != want:
            name = f"%{arg.name_hint}" if arg.name_hint else f"%arg{arg.index}"
            raise ValueError(f"@{func.sym_name.data}: input {arg.index} ({name}) has shape {list(got)}, "
                             f"the argument is {arg.type}")


def emulate(module: ModuleOp, form: str, inputs: Sequence[np.ndarray], function: str | None = None) -> np.ndarray:
    """D (float32, M x N) of the tile in ``module`` (the one tile, or the function named
    ``function``), computed by the emulator from ``inputs``, the tile function's arguments in order."""
    module = _lowered_module(module)
    tiles = tile_programs(module, form)
    if function is not None:
        names = [program.function for program, _ in tiles]
        tiles = [tile for tile in tiles if tile[0].function == function]
        if not tiles:
            raise ValueError(f"no AGX tile function named {function!r}; the module's tiles are "
                             f"{', '.join(names) or 'none'}")
    if not tiles:
        raise ValueError(f"the module has no lowered AGX tile (no agx.mma8); {_WHAT_TO_PASS}")
    if len(tiles) != 1:
        raise ValueError(f"emulate runs one tile, the module has {len(tiles)} "
                         f"({', '.join(program.function for program, _ in tiles)}); name one")
    program, stream = tiles[0]
    func = next(op for op in module.walk() if isinstance(op, FuncOp) and op.sym_name.data == program.function)
    _check_inputs(func, inputs)
    return run_program(program, stream, fragment_values(inputs))
