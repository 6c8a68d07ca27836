"""Programmatic dependent launch (Hopper): `griddepcontrol` ([ISA] 9.7.13.x, PTX 7.8, sm_90+).

A kernel launched with programmatic stream serialization may start while the kernel before
it in the stream still runs; it must then execute `griddepcontrol.wait` before it touches
what that kernel writes — the wait returns once the prerequisite grids have completed and
their memory is visible. `griddepcontrol.launch_dependents` lets the dependent grid be
scheduled before this one ends (it only schedules it: the dependent's wait still waits for
completion). Launched normally, both are no-ops, so a kernel carrying them is correct either
way; what they buy is the dependent kernel's launch and set-up overlapping the previous one.

    ptx.griddepcontrol_wait
    ptx.griddepcontrol_launch_dependents
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition

from dialects.ptx.arch import Feature
from dialects.ptx.base import NoOperandInstruction


class _GridDependencyInstruction(NoOperandInstruction):
    FEATURE: ClassVar[Feature] = Feature.GRID_DEPENDENCY
    MIN_PTX: ClassVar[str] = "7.8"


@irdl_op_definition
class GridDepWaitOp(_GridDependencyInstruction):
    """`griddepcontrol.wait`: block until the prerequisite grids have completed and flushed."""

    name = "ptx.griddepcontrol_wait"
    MNEMONIC: ClassVar[str] = "griddepcontrol.wait"


@irdl_op_definition
class GridDepLaunchDependentsOp(_GridDependencyInstruction):
    """`griddepcontrol.launch_dependents`: the dependent grid may be scheduled now."""

    name = "ptx.griddepcontrol_launch_dependents"
    MNEMONIC: ClassVar[str] = "griddepcontrol.launch_dependents"


GRID_DEPENDENCY_OPS = [GridDepWaitOp, GridDepLaunchDependentsOp]
