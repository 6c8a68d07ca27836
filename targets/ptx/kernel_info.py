"""Kernel metadata that travels with PTX (and must load without xDSL on a GPU machine)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class KernelInfo:
    name: str
    num_warps: int
    shared_bytes: int
    arg_kinds: tuple[str, ...]  # "ptr", "i32", "i64", "index", "f32" per argument

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> "KernelInfo":
        data = json.loads(text)
        return KernelInfo(data["name"], data["num_warps"], data["shared_bytes"], tuple(data["arg_kinds"]))
