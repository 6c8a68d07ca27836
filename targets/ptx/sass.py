"""SASS, the machine code ptxas makes of our PTX, as text: ``qdot-translate --target sass``.

What a kernel engineer reads last — which instructions the K loop became, where the spills
are — comes from NVIDIA's disassembler: ``cuobjdump -sass`` on the cubin (it runs nvdisasm,
which must be next to it or on the PATH). Both come with a CUDA toolkit or as pip wheels
(``nvidia-cuda-cuobjdump``, ``nvidia-cuda-nvdisasm``: the ``dev`` extra installs them).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from compiler.tools import ToolUnavailable, find_tool

INSTALL_HINT = "put a CUDA toolkit on the PATH or pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm"


def disassemble(cubin: bytes) -> str:
    """``cuobjdump -sass`` of ``cubin``; ``ToolUnavailable`` without cuobjdump and nvdisasm."""
    cuobjdump, nvdisasm = find_tool("cuobjdump"), find_tool("nvdisasm")
    if cuobjdump is None or nvdisasm is None:
        missing = " and ".join(n for n, p in (("cuobjdump", cuobjdump), ("nvdisasm", nvdisasm)) if p is None)
        raise ToolUnavailable(f"{missing} not found: {INSTALL_HINT}")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(nvdisasm).parent), os.environ.get("PATH", "")]))
    with tempfile.TemporaryDirectory(prefix="qdot-sass-") as scratch:
        path = Path(scratch) / "kernel.cubin"
        path.write_bytes(cubin)
        try:
            done = subprocess.run([cuobjdump, "-sass", str(path)], capture_output=True, encoding="utf-8",
                                  errors="replace", env=env, timeout=300, check=False)
        except OSError as err:
            raise ToolUnavailable(f"cannot run cuobjdump '{cuobjdump}': {err}") from None
    if done.returncode != 0:
        raise ToolUnavailable(f"cuobjdump failed: {done.stderr.strip()}")
    return done.stdout
