"""The ops a lowering builds in place of one keep its location (``Builder.before``), so a refusal of one of them
later — here the PTX of a kind::mxf8f6f4 mma.sync, planned for sm_120a, emitted for sm_90 — is reported at the
``qgpu.mma`` it came from, not at the enclosing ``func.func`` (found by a review that assembled every form)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_refused_mma_is_reported_at_the_op_it_lowers(tmp_path: Path) -> None:
    planned = tmp_path / "planned.mlir"
    done = subprocess.run([sys.executable, "-m", "compiler.cli.opt", "examples/mx_gemm_e4m3_e2m1.mlir", "-p",
                           "qdot-accelerate-matmul{arch=sm_120a}", "-o", str(planned)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = planned.read_text().splitlines()
    mma_line = next(i + 1 for i, line in enumerate(lines) if "qgpu.mma " in line)
    func_line = next(i + 1 for i, line in enumerate(lines) if "func.func" in line)
    done = subprocess.run([sys.executable, "-m", "compiler.cli.translate", str(planned), "--arch", "sm_90"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"{planned}:{mma_line}:"), (func_line, done.stderr)
    assert "'ptx.mma_sync' op mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4" in done.stderr
    assert "requires sm_120a" in done.stderr
