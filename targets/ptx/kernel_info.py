"""Kernel metadata that travels with PTX (and must load without xDSL on a GPU machine)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class KernelInfo:
    name: str
    num_warps: int
    shared_bytes: int
    arg_kinds: tuple[str, ...]  # "ptr", "i32", "i64", "index", "f32" per argument
    waits_previous_grid: bool = False
    """It starts with ``griddepcontrol.wait`` (``qdot.wait_previous_grid``): only such a kernel
    may be launched programmatically (``LoadedKernel.launch(..., programmatic=True)``)."""
    arg_divisibility: tuple[int, ...] = ()
    """Per argument, the ``qdot.divisibility`` the kernel was compiled to assume (1: none). The
    code relies on it (paired stores, 16-byte copies), so a launch checks it."""

    def check_divisibility(self, args: Sequence[Any]) -> None:
        """``ValueError`` for a scalar argument that is not a multiple of the ``qdot.divisibility``
        the kernel was compiled to assume (its paired stores and 16-byte copies rely on it), on
        the GPU (``targets.ptx.runner``) and the emulator (``compiler.emulate``) alike."""
        divisors = self.arg_divisibility or (1,) * len(args)
        for index, (kind, value, divisor) in enumerate(zip(self.arg_kinds, args, divisors, strict=False)):
            if kind != "ptr" and divisor > 1 and int(value) % divisor:
                raise ValueError(f"argument {index} of '{self.name}' must be a multiple of {divisor} "
                                 f"(the kernel was compiled with qdot.divisibility = {divisor}), got {value}")

    @property
    def block(self) -> tuple[int, int, int]:
        """Threads per CTA as a launch's block shape: 32 per warp of ``num_warps``, all along x,
        the shape ``compiler.run`` and ``compiler.emulate`` launch the kernel with."""
        return (32 * self.num_warps, 1, 1)

    # json is imported where it is used: a compile never serialises its kernels, and the
    # import is a few milliseconds of every cold qdot-translate run.
    def to_json(self) -> str:
        import json

        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> "KernelInfo":
        import json

        data = json.loads(text)
        return KernelInfo(data["name"], data["num_warps"], data["shared_bytes"], tuple(data["arg_kinds"]),
                          bool(data.get("waits_previous_grid", False)), tuple(data.get("arg_divisibility", ())))
