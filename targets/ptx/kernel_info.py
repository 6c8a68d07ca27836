"""Kernel metadata that travels with PTX (and must load without xDSL on a GPU machine)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


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
