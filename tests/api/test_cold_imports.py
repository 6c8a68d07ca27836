"""A cold compile imports only what its kernel needs (docs/DEVELOPING.md, "Cold start").

xDSL's math dialect costs a fresh process about 16 ms to import, 3 % of the cold-compile goal;
only kernels with qdot-lower-mma's magic-number rescale hold a ``math.fma``, so the builder
imports it when it makes one and the LLVM translation finds it by name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

PROBE = """
import sys
import compiler
from compiler.mmq_template import MmqConfig, mmq_kernel
source = open("examples/mx_gemm_e4m3_e2m1.mlir").read()
compiler.compile(source, arch="sm_90")
print("after mx:", "xdsl.dialects.math" in sys.modules)
ptx = compiler.compile(mmq_kernel(MmqConfig(block_m=32, block_n=32, num_warps=4)), arch="sm_90").ptx
print("after q4_K:", "xdsl.dialects.math" in sys.modules, "fma.rn.f32" in ptx)
"""


def test_math_dialect_is_imported_only_by_kernels_that_use_it() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "after mx: False" in out, out
    assert "after q4_K: True True" in out, out
