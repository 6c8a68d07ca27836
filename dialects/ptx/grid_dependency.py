"""Programmatic dependent launch (Hopper): `griddepcontrol` ([ISA] 9.7.13.x, PTX 7.8, sm_90+).

A kernel launched with programmatic stream serialization may start while the kernel before
it in the stream still runs; it must then execute `griddepcontrol.wait` before it touches
what that kernel writes — the wait returns once the prerequisite grids have completed and
their memory is visible. `griddepcontrol.launch_dependents` lets the dependent grid be
scheduled before this one ends (it only schedules it: the dependent's wait still waits for
completion). Launched normally, both are no-ops, so a kernel carrying them is correct either
way; what they buy is the dependent kernel's launch and set-up overlapping the previous one.

    ptx.griddepcontrol_wait
    ptx.griddepcontrol_wait {not_written_by_previous_grid = array<i64: 1>}
    ptx.griddepcontrol_launch_dependents

The wait's optional ``not_written_by_previous_grid`` lists the kernel arguments (by position) that
qdot-to-llvm let be read before it (``qdot.not_written_by_previous_grid``): it changes no PTX, and
tells the emulator which arrays a CTA may touch before it has waited.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, opt_attr_def
from xdsl.utils.exceptions import VerifyException

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

    not_written_by_previous_grid = opt_attr_def(Attribute)

    def __init__(self, not_written_by_previous_grid: Sequence[int] = ()) -> None:
        super().__init__()
        if not_written_by_previous_grid:
            self.attributes["not_written_by_previous_grid"] = DenseArrayBase.from_list(
                i64, list(not_written_by_previous_grid))

    def verify_(self) -> None:
        attr = self.not_written_by_previous_grid
        if attr is None:
            return
        values = attr.get_values() if isinstance(attr, DenseArrayBase) and attr.elt_type == i64 else None
        if values is None or any(v < 0 for v in values) or list(values) != sorted(set(values)):
            raise VerifyException(f"not_written_by_previous_grid must list argument positions, increasing, as "
                                  f"array<i64: ...>, got {attr}")

    def read_before_wait(self) -> tuple[int, ...]:
        """The argument positions the kernel may read before this wait."""
        attr = self.not_written_by_previous_grid
        return tuple(int(v) for v in attr.get_values()) if isinstance(attr, DenseArrayBase) else ()


@irdl_op_definition
class GridDepLaunchDependentsOp(_GridDependencyInstruction):
    """`griddepcontrol.launch_dependents`: the dependent grid may be scheduled now."""

    name = "ptx.griddepcontrol_launch_dependents"
    MNEMONIC: ClassVar[str] = "griddepcontrol.launch_dependents"


GRID_DEPENDENCY_OPS = [GridDepWaitOp, GridDepLaunchDependentsOp]
