"""Optimization remarks from Python (``compiler.compile(..., remarks=True)``) and the tools'
``--remarks``, beyond what tests/lit/tools/remarks.mlir checks: off by default, and the output
is the same with them or without."""

from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler import remarks
from compiler.cli import opt, translate

ROOT = Path(__file__).resolve().parent.parent.parent
MX = ROOT / "examples" / "mx_gemm_e4m3_e2m1.mlir"
AGX = ROOT / "examples" / "agx_tile_fp16.mlir"


def test_compile_keeps_the_remarks_located_in_ir_order() -> None:
    kernel = compiler.compile(MX, arch="sm_120a", remarks=True)
    assert kernel.remarks and all(isinstance(line, str) and " remark: " in line for line in kernel.remarks)
    assert all(line.startswith(f"{MX}:") for line in kernel.remarks)
    dot = f"{MX}:56:5: remark: "
    assert f"{dot}qdot-accelerate-matmul: strategy native for e4m3 × e2m1: auto on sm_120a" in kernel.remarks[2]
    assert any(line.startswith(f"{dot}qdot-lower-local-load: rhs operand 32x128xi8 (kWidth 2, fp4Unpacked): 8 × "
                               "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64") for line in kernel.remarks)
    lines = [int(line.split(":")[1]) for line in kernel.remarks]
    assert lines == sorted(lines)  # the kernel (line 14), the loop (49), the dot (56), the store (61)
    assert lines[0] == 14 and 49 in lines and lines[-1] == 61


def test_remarks_change_nothing_in_the_artifact() -> None:
    plain = compiler.compile(MX, arch="sm_90")
    noted = compiler.compile(MX, arch="sm_90", remarks=True)
    assert plain.remarks == ()
    assert noted.ptx == plain.ptx
    assert any("strategy dequant-bf16" in line for line in noted.remarks)


def test_remarks_of_the_agx_pipeline() -> None:
    kernel = compiler.compile(AGX, target="agx3b", remarks=True)
    assert [line.split(" remark: ")[1].split(":")[0] for line in kernel.remarks] == [
        "agx-allocate-registers", "agx-hints-and-waits"]
    assert kernel.data == compiler.compile(AGX, target="agx3b").data


def test_remarks_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="remarks must be True or False, got str"):
        compiler.compile(MX, remarks="yes")  # type: ignore[arg-type]


def test_off_outside_a_compile_that_asks() -> None:
    """No collector: nothing is enabled, and a remark (even an unguarded one) is dropped without
    building its message."""
    assert not remarks.enabled("qdot-lower-mma")
    remarks.remark(None, "qdot-lower-mma", lambda: pytest.fail("the message was built"))
    found = remarks.Remarks(frozenset({"qdot-pipeline"}))
    with remarks.collecting(found):
        assert remarks.enabled("qdot-pipeline") and not remarks.enabled("qdot-lower-mma")
        remarks.remark(None, "qdot-lower-mma", lambda: pytest.fail("a filtered remark was built"))
        remarks.remark(None, "qdot-pipeline", "kept")
    assert found.lines() == ("<unknown>: remark: qdot-pipeline: kept",)
    assert not remarks.enabled("qdot-pipeline")


@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "examples").glob("*.mlir")))
def test_translate_without_the_flag_prints_no_remark_and_the_same_output(
        example: str, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Every example: nothing on stderr without --remarks, and stdout the same with it."""
    path = str(ROOT / "examples" / example)
    args = [path, "--target", "agx3b"] if example.startswith("agx") else [path, "--arch", "sm_120a"]
    status = translate.run(args)
    plain = capsysbinary.readouterr()
    assert b"remark" not in plain.err
    noted_status = translate.run([*args, "--remarks"])
    noted = capsysbinary.readouterr()
    assert noted_status == status and noted.out == plain.out
    assert b": remark: " in noted.err


def test_opt_bare_flag_leaves_the_input_file_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """``--remarks FILE`` reads FILE (a list of passes needs ``--remarks=``), and the remarks go
    to stderr, or with --verify-diagnostics to stdout before the IR."""
    assert opt.run(["--remarks", str(MX), "-p", "qdot-accelerate-matmul{arch=sm_90}"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("builtin.module") and err.count(": remark: qdot-accelerate-matmul: ") == 3
    assert opt.run([str(MX), "-p", "qdot-accelerate-matmul{arch=sm_90},qdot-pipeline", "--remarks=qdot-pipeline",
                    "--verify-diagnostics"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{MX}:49:3: remark: qdot-pipeline: 3 stages") and err == ""
    assert out.splitlines()[1].startswith("builtin.module")
