"""qdot: a compiler for quantized dot products, on xDSL.

The Python API is loaded lazily so that ``import compiler`` stays cheap for the
command-line tools: ``compiler.compile``, ``compiler.run`` and ``compiler.emulate`` live in
``compiler.api``; the format references live in ``compiler.numerics``.
"""

from __future__ import annotations

from typing import Any

from compiler import code_cache

code_cache.install()  # before xDSL's and our dataclasses are defined

__all__ = ["compile", "emulate", "run", "numerics"]


def __getattr__(name: str) -> Any:
    if name in ("compile", "emulate", "run"):
        from compiler import api

        return getattr(api, name)
    if name == "numerics":
        import compiler.numerics as numerics

        return numerics
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")
