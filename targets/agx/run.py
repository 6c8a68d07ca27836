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


_CODE_FORMATS = ("e4m3", "e5m2", "e2m3", "e3m2")


def _dtypes(fmt: str, role: str) -> tuple[str, ...] | None:
    """The dtype names ``compiler.numerics.dot_scaled`` takes for an input read as ``fmt`` (``role``: lhs,
    rhs, acc or scale); None for a format it has no rule for."""
    from compiler import numerics

    if role == "scale":  # dot_scaled's _apply_scale: uint8 codes, or the ml_dtypes type they are
        return ("uint8", "float8_e8m0fnu", "float8_e4m3fn")
    if fmt == "fp16":
        return ("float16",)
    if fmt == "bf16":
        return ("bfloat16",)
    if fmt == "fp32":  # the accumulator (dot_scaled's acc) or an f32 operand: the f32 tensor's values
        return ("float32",)
    if fmt == "i8":
        return ("int8",)
    if fmt == "e2m1":  # two codes per byte
        return ("uint8", "int8")
    if fmt in _CODE_FORMATS:
        ml_name = numerics.format_info(fmt).ml_dtypes_name
        return ("uint8",) if ml_name is None else ("uint8", ml_name)
    try:
        return ("uint8",) if numerics.format_info(fmt).is_block else None
    except (KeyError, ValueError):
        return None


def _check_dtypes(func: FuncOp, program: Any, inputs: Sequence[Any]) -> None:
    """Each input of the dtype ``compiler.numerics.dot_scaled`` takes for the format its loads read it
    as, refused by index and name otherwise: the fragment model reads what it is given as numbers
    (``astype``) or as codes (``view``), so uint16 codes for an fp16 operand would be read as integers and
    float32 values silently rounded to fp16 — a result that looks like a dot and is not this one."""
    read: dict[int, tuple[str, str]] = {}
    for load in program.loads:
        source = load.source
        read.setdefault(source.arg, (source.format, str(source.operand)))
        if source.scale_arg is not None and source.scale_format is not None:
            read.setdefault(source.scale_arg, (source.scale_format, "scale"))
    args = func.body.blocks[0].args
    for index, (fmt, role) in sorted(read.items()):
        value = inputs[index]
        allowed = _dtypes(fmt, role)
        if value is None or allowed is None:
            continue
        got = value.dtype.name if isinstance(value, np.ndarray) else type(value).__name__
        if got not in allowed:
            arg = args[index]
            name = f"%{arg.name_hint}" if arg.name_hint else f"%arg{index}"
            what = f"{role} operand {fmt}" if role in ("lhs", "rhs") else f"{role} ({fmt})"
            raise ValueError(f"@{func.sym_name.data}: input {index} ({name}) is the {what}: pass a numpy array of "
                             f"dtype {' or '.join(allowed)} (compiler.numerics.dot_scaled's conventions), got {got}")


def emulate(module: ModuleOp, form: str, inputs: Sequence[np.ndarray], function: str | None = None) -> np.ndarray:
    """D (float32, M x N) of the tile in ``module`` (the one tile, or the function named
    ``function``), computed by the emulator from ``inputs``, the tile function's arguments in order,
    each a numpy array of the shape and dtype ``compiler.numerics.dot_scaled`` takes (``ValueError``
    naming the input otherwise, before anything runs)."""
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
    _check_dtypes(func, program, inputs)
    return run_program(program, stream, fragment_values(inputs))
