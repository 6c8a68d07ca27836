"""Run a lowered module's tile on the emulator: encode, decode, execute, compare-ready result.

    result = emulate(module, "agx3b", [a, b, acc])   # inputs indexed like the function's arguments

The stream goes through the encoder and back through the decoder, so the
result checks the lowering, the register allocation, the hints and waits and
the operand order together, without Apple hardware.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from targets.agx.emitter import tile_programs
from targets.agx.emulator import run_program
from targets.agx.operands import fragment_values


def emulate(module: ModuleOp, form: str, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """D (float32, M x N) of the one tile in ``module``, computed by the emulator."""
    tiles = tile_programs(module, form)
    if len(tiles) != 1:
        raise ValueError(f"emulate runs one tile, the module has {len(tiles)}")
    program, stream = tiles[0]
    return run_program(program, stream, fragment_values(inputs))
