"""The ``python -m bench.<script>`` entry points as a user meets them: ``--help`` explains and exits 0
without doing the work (``bench.prepare --help`` used to start compiling), bad arguments get one line and
a non-zero status, and a GPU step run on a machine without one says so in one line — never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ("compile_latency", "conversion_throughput", "decode_sweep", "kernel_resources", "mmq", "mx_gemm",
           "ncu_summary", "prepare", "report", "sass_census")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QDOT_KERNEL_CACHE": "/nonexistent/qdot-cache-not-used"}
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_explains_and_does_nothing_else(script: str) -> None:
    done = _run(f"bench.{script}", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:") and "Traceback" not in done.stderr, (done.stdout[:200], done.stderr)
    assert "kernel cache ready" not in done.stdout


@pytest.mark.parametrize("argv,message", [
    (("bench.prepare", "no_such_bench"), "error: no benchmark bench.no_such_bench"),
    (("bench.prepare", "gpu_common"), "error: bench.gpu_common has no compile_all()"),
    (("bench.kernel_resources", "no_such_bench"), "invalid choice: 'no_such_bench'"),
    (("bench.report", "/nonexistent/results.jsonl"), "error: /nonexistent/results.jsonl: [Errno 2]"),
    (("bench.mmq", "--label", "mmq 64x128 w4 s2 b2 wt", "--label", "mmq 64x128 w4"),
     "error: bench.mmq: no kernel is labelled 'mmq 64x128 w4'"),
])
def test_bad_arguments_get_one_line(argv: tuple[str, ...], message: str) -> None:
    done = _run(*argv)
    assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_mmq_labels_select_exactly_those_kernels() -> None:
    """``--label`` names whole labels: the q4_K goal kernel's label is a prefix of other weights' ("… wt q5_K"),
    which ``--only`` would time too."""
    import bench.mmq as bm

    goal = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"
    assert len(bm.selected(goal)) > 1
    assert [label for label, _cfg, _stages in bm.selected(None, [goal, "mmq 64x128 w4 s2 b2 wt"])] == [
        "mmq 64x128 w4 s2 b2 wt", goal]
    assert bm.selected(" q5_K", [goal]) == []


def _has_gpu() -> bool:
    from targets.ptx.runner import GpuUnavailable, require_cupy

    try:
        require_cupy()
    except GpuUnavailable:
        return False
    return True


@pytest.mark.skipif(_has_gpu(), reason="with a GPU these would run the benchmarks (checked on the CPU machine)")
@pytest.mark.parametrize("script", ["mmq", "mx_gemm", "decode_sweep", "conversion_throughput"])
def test_a_gpu_step_without_a_gpu_says_so(script: str) -> None:
    done = _run(f"bench.{script}")
    assert done.returncode == 1, done.stderr
    assert f"python -m bench.{script}: error: this step runs on a GPU" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_row_line_summarises_a_measured_row(capsys: pytest.CaptureFixture[str]) -> None:
    """The experiments' one-line summary of a ``bench.mmq.measure`` row (what RESULTS.md tables are read from)."""
    import json

    from bench.gpu_common import row_line

    row = {"shape": "M=1 N=64 K=256", "ok": True, "grid": (1, 1, 1), "launch_shared_bytes": 24960,
           "us_mul_mat": 1.234, "us_mul_mat_no_pdl": 1.5, "us_kernel": 1.0, "us_quantize": 0.25}
    row_line("small_m", row, variant="now")
    line = capsys.readouterr().out
    assert line.startswith("ROW ") and json.loads(line[4:]) == {
        "kernel": "small_m", "variant": "now", "shape": "M=1 N=64 K=256", "ok": True, "grid": [1, 1, 1],
        "launch_shared": 24960, "mul_mat": 1.23, "no_pdl": 1.5, "kernel_us": 1.0, "quantize_us": 0.25}


def test_compile_latency_breakdown_times_each_phase() -> None:
    """``--breakdown`` runs qdot-translate's steps in an instrumented child (which must fill in the flags' defaults as
    qdot-translate does: it once built the pipeline from ``num_stages=None`` and failed, unnoticed)."""
    done = _run("bench.compile_latency", "--runs", "1", "--breakdown", "--no-code-cache-line")
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    for phase in ("import qdot-translate", "pass qdot-to-llvm", "LLVM NVPTX code generation", "in-process total"):
        assert phase in done.stdout, done.stdout


def test_report_names_rows_it_does_not_tabulate(tmp_path) -> None:  # noqa: ANN001
    """An experiment's rows (their own columns) are counted and named, not dropped into an empty table; the
    benchmark rows beside them are tabulated as ever."""
    import json

    rows = [{"experiment": "stream_k_fixup --formats", "us_mul_mat_atomic": 29.3, "us_mul_mat_fixup": 27.5},
            {"experiment": "stream_k_fixup --formats", "us_mul_mat_atomic": 28.4, "us_mul_mat_fixup": 27.8},
            {"what": "device-to-device copy (HBM reference)", "GB/s": 4096.0}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = _run("bench.report", str(path))
    assert done.returncode == 0, done.stderr
    assert "device-to-device copy (HBM reference): 4096 GB/s" in done.stdout
    assert "(2 rows of a kind this report does not tabulate — stream_k_fixup --formats; the rows are in the file)" \
        in done.stdout
