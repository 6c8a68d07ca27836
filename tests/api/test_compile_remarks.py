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
    assert any(line.startswith(f"{dot}qdot-accelerate-matmul: strategy native for e4m3 × e2m1: auto on sm_120a")
               for line in kernel.remarks)
    assert f"{MX}:52:5: remark: qdot-to-llvm: copy of a 128x64xf8E4M3FN tile: 16-byte cp.async" in "\n".join(
        kernel.remarks)
    assert any(line.startswith(f"{dot}qdot-lower-local-load: rhs operand 32x128xi8 (kWidth 2, fp4Unpacked): 8 × "
                               "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64") for line in kernel.remarks)
    lines = [int(line.split(":")[1]) for line in kernel.remarks]
    assert lines == sorted(lines)  # the kernel (14), the loop (49), its loads (52–55), the dot (56), the store (61)
    assert lines[0] == 14 and 49 in lines and 52 in lines and lines[-1] == 61


def test_remarks_change_nothing_in_the_artifact() -> None:
    plain = compiler.compile(MX, arch="sm_90")
    noted = compiler.compile(MX, arch="sm_90", remarks=True)
    assert plain.remarks == ()
    assert noted.ptx == plain.ptx
    assert any("strategy dequant-bf16" in line for line in noted.remarks)


def test_remarks_of_the_agx_pipeline() -> None:
    kernel = compiler.compile(AGX, target="agx3b", remarks=True)
    # in the order of the ops they are at: the tile function's two, then the dot's (qdot-to-agx's chain)
    assert [line.split(" remark: ")[1].split(":")[0] for line in kernel.remarks] == [
        "agx-allocate-registers", "agx-hints-and-waits", "qdot-to-agx"]
    assert kernel.remarks[-1].endswith("2 K steps of 8, each 1x2 agx.mma8 in serpentine order (4 in all); "
                                       "C fragments loaded from acc")
    assert kernel.data == compiler.compile(AGX, target="agx3b").data


def test_the_same_remark_at_the_same_place_is_kept_once() -> None:
    """A pipelined copy is lowered twice (the prologue's and the loop's) to the same decision at the same
    qdot.load: said once; the same words at another place, or other words at the same place, are kept."""
    found = remarks.Remarks()
    with remarks.collecting(found):
        for _ in range(2):
            remarks.remark(None, "qdot-to-llvm", "copy of a 4x8 tile: 16-byte cp.async, 9 per thread")
        remarks.remark(None, "qdot-to-llvm", "copy of a 4x8 tile: 4-byte cp.async, 36 per thread")
    assert found.lines() == ("<unknown>: remark: qdot-to-llvm: copy of a 4x8 tile: 16-byte cp.async, 9 per thread",
                             "<unknown>: remark: qdot-to-llvm: copy of a 4x8 tile: 4-byte cp.async, 36 per thread")


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


def _remarks_of(source: str | Path, pass_name: str, **options: object) -> list[str]:
    """The messages of ``pass_name``'s remarks for one compile, without their locations."""
    kernel = compiler.compile(source, remarks=True, **options)  # type: ignore[arg-type]
    prefix = f" remark: {pass_name}: "
    return [line.split(prefix, 1)[1] for line in kernel.remarks if prefix in line]


def test_sixteen_bit_floats_are_said_to_need_no_conversion() -> None:
    """dequant-bf16 is the strategy that runs fp16 × fp16, but nothing is dequantized."""
    from compiler.templates import GemmConfig, gemm_kernel

    source = gemm_kernel(GemmConfig(lhs="fp16", rhs="fp16", lhs_scale=None, rhs_scale=None))
    strategy, mma, operands = _remarks_of(source, "qdot-accelerate-matmul", arch="sm_90")
    assert strategy.startswith("strategy dequant-bf16 for fp16 × fp16 (16-bit float operands need no conversion: "
                               "the fp16 mma reads them as they are; nothing is dequantized): auto on sm_90")
    assert "would refuse fp16 × fp16 there too: strategy 'native' takes fp8/fp6/fp4 operands" in strategy
    assert mma.startswith("mma.sync fp16 ")
    assert operands == "lhs fp16: no conversion, read as it is; rhs fp16: no conversion, read as it is"


def test_native_not_asked_names_the_kind_the_formats_would_run_on() -> None:
    nvfp4 = _remarks_of(ROOT / "examples" / "nvfp4_gemm_e2m1.mlir", "qdot-accelerate-matmul", arch="sm_90")[0]
    assert "native not asked (the kind::mxf4nvf4 mma.sync it would run e2m1 × e2m1 on is sm_120a, sm_120f, " \
           "sm_121a only)" in nvfp4
    mx = _remarks_of(MX, "qdot-accelerate-matmul", arch="sm_90")[0]
    assert "native not asked (the kind::mxf8f6f4 mma.sync it would run e4m3 × e2m1 on" in mx


def test_the_epilogue_names_the_accumulator_element_type() -> None:
    stores = [text for text in _remarks_of(ROOT / "examples" / "int8_gemm.mlir", "qdot-to-llvm", arch="sm_90")
              if text.startswith("epilogue")]
    assert stores == ["epilogue direct: st.global.v2.b32 per pair of i32 registers, under a run-time test that N, "
                      "the row pitch and the column origin are even (single stores otherwise)"]


def test_epilogue_staged_says_which_condition_failed() -> None:
    pipeline = ("qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_90},qdot-optimize-dot-operands,qdot-pipeline,"
                "qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90 epilogue=staged}")
    store = _remarks_of(MX, "qdot-to-llvm", pipeline=pipeline)[-1]
    assert store.endswith("; not staged (epilogue=staged): the row pitch and N are not known to be multiples of 4, "
                          "as 16-byte row vectors need (aligned, never straddling N; qdot.divisibility on the "
                          "argument says so)")
    decode = _remarks_of(ROOT / "examples" / "q4k_decode.mlir", "qdot-to-llvm", pipeline=pipeline)[-1]
    assert decode.endswith("; not staged (epilogue=staged): a reduction (red.global.add) is never staged")


def test_an_ldmatrix_misfit_is_said_plainly_before_its_offsets() -> None:
    loads = _remarks_of(ROOT / "examples" / "q4k_decode.mlir", "qdot-lower-local-load", arch="sm_90")
    assert "lhs scales 64x8xf32: scalar ld.shared fallback: ldmatrix .m8n8.x4.b16 does not fit: the form reads " \
           "16-byte rows that must each begin at a multiple of 16 bytes, and this operand's bytes are not laid out " \
           "that way: lane 1 register 0 byte 0 comes from offset 0, but the form gives that lane byte 4 of a row, " \
           "so that row would begin at offset -4; 32 wavefronts, no bank conflict per warp" in loads
