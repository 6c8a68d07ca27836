"""The one exception the emulator raises: the kernel did something the PTX model forbids."""

from __future__ import annotations


class EmulationError(Exception):
    """A kernel broke a rule of the machine model (out-of-range or misaligned access,
    divergent branch, shared-memory race, padding bits set in an mma container, ...).

    The message names the op (with its source location when the IR has one), the CTA
    and the first offending thread, so that a failing test points at the instruction.
    """
