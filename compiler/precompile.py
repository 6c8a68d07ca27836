"""Write qdot's bytecode caches: ``python -m compiler.precompile`` (part of the README's install).

A cold ``qdot-translate`` is a fresh Python process; what it does not find cached it compiles
again every time: the ``.pyc`` files of our modules (an editable install under
``PYTHONDONTWRITEBYTECODE`` never writes them — 0.87–0.99 s instead of 0.62 s per compile in a
fresh checkout, bench/RESULTS.md) and the methods ``dataclasses`` generates for xDSL's and our
classes (``compiler.code_cache``, 0.1 s of a compile). This writes both, as ``compileall``
writes ``.pyc`` files, whatever ``PYTHONDONTWRITEBYTECODE`` says.
"""

from __future__ import annotations

import compileall
import importlib
import sys
from pathlib import Path

from compiler import code_cache

PACKAGES = ("compiler", "dialects", "passes", "targets")


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    ok = all([compileall.compile_dir(root / package, quiet=1) for package in PACKAGES])  # each, even after one fails
    code_cache.install()
    from compiler import registry

    for entry in (*registry.DIALECTS.values(), *registry.PASSES.values()):
        registry.load(entry)
    for module in ("compiler.cli.translate", "compiler.cli.opt", "targets.ptx.artifact"):  # the tools, the back end
        importlib.import_module(module)

    code_cache.save(force=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
