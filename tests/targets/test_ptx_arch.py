"""Targets: `check_arch` diagnostics instead of LLVM aborts, PTX version choice, determinism."""

from __future__ import annotations

import subprocess
import sys

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from compiler.diagnostics import QdotError
from compiler.registry import make_context
from compiler.tools import find_ptxas
from dialects.ptx import check_arch
from dialects.ptx.arch import Arch, Feature, PtxVersion, check_ptx_version
from targets.ptx.llvm_ir import emit_llvm_ir
from targets.ptx.nvptx import NvptxError, llvm_ir_to_ptx, resolve_ptx_version
from targets.ptx.ptxas import assemble


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


F8F6F4 = """
func.func @k(%p: i64) attributes {qdot.kernel} {
  %a = ptx.ld_global %p : i32
  %c = arith.constant 0.0 : f32
  %d:4 = ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e4m3.e2m1.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
  ptx.st_global %p, %d#0 : f32
  func.return
}
"""

LDMATRIX_M8N16 = """
func.func @k(%p: i64, %off: i32) attributes {qdot.kernel} {
  %r:4 = ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64 %off
  ptx.st_global %p, %r#0 : i32
  func.return
}
"""

FP8_F16_ACCUMULATE = """
func.func @k(%p: i64) attributes {qdot.kernel} {
  %a = ptx.ld_global %p : i32
  %c = ptx.ld_global %p : vector<2xf16>
  %d:2 = ptx.mma_sync m16n8k32 f16.e4m3.e4m3.f16 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c]
  ptx.st_global %p, %d#1 : vector<2xf16>
  func.return
}
"""

CVT_E2M1 = """
func.func @k(%p: i64) attributes {qdot.kernel} {
  %b = ptx.ld_global %p : i8
  %h = ptx.cvt f16x2.e2m1x2 %b
  ptx.st_global %p, %h : vector<2xf16>
  func.return
}
"""


def test_f8f6f4_rejected_on_sm_90() -> None:
    with pytest.raises(QdotError) as info:
        check_arch(parse(F8F6F4), Arch.SM_90)
    assert info.value.op is not None and info.value.op.name == "ptx.mma_sync"
    assert info.value.message == ("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32 requires "
                                  "sm_120a or sm_120f/sm_121a, got sm_90")


@pytest.mark.parametrize("arch", [Arch.SM_100A, Arch.SM_120, Arch.SM_90A, Arch.SM_89])
def test_f8f6f4_rejected_off_the_sm_120_family(arch: Arch) -> None:
    with pytest.raises(QdotError, match=f"requires sm_120a or sm_120f/sm_121a, got {arch}"):
        check_arch(parse(F8F6F4), arch)


@pytest.mark.parametrize("arch", [Arch.SM_120A, Arch.SM_120F, Arch.SM_121A])
def test_f8f6f4_accepted_on_the_sm_120_family(arch: Arch) -> None:
    check_arch(parse(F8F6F4), arch)


def test_subbyte_ldmatrix_rejected_on_sm_90a() -> None:
    with pytest.raises(QdotError) as info:
        check_arch(parse(LDMATRIX_M8N16), "sm_90a")
    assert info.value.message == ("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64 requires "
                                  "sm_100a, sm_120a or sm_120f/sm_121a, got sm_90a")
    check_arch(parse(LDMATRIX_M8N16), "sm_100a")


def test_fp4_cvt_rejected_on_plain_sm_120_and_sm_90() -> None:
    for arch in (Arch.SM_120, Arch.SM_90):
        with pytest.raises(QdotError, match=f"cvt.rn.f16x2.e2m1x2 requires sm_100a, sm_120a or sm_120f/sm_121a, got {arch}"):
            check_arch(parse(CVT_E2M1), arch)


def test_fp8_mma_needs_sm_89_and_ptx_87_with_f16_accumulators() -> None:
    module = parse(FP8_F16_ACCUMULATE)
    with pytest.raises(QdotError, match="requires sm_89 or later, got sm_86"):
        check_arch(module, Arch.SM_86)
    with pytest.raises(QdotError, match=r"requires PTX ISA 8\.7 or later, got 8\.4"):
        check_arch(module, Arch.SM_89, PtxVersion(8, 4))
    check_arch(module, Arch.SM_89, Arch.SM_89.default_ptx)


def test_cp_async_l2_prefetch_needs_ptx_74() -> None:
    # ptxas 13.0 on .version 7.3: "Feature 'cache prefetching' requires PTX ISA .version 7.4 or later"
    module = parse("""
func.func @stage(%src: i64, %dst: i32) attributes {qdot.kernel} {
  ptx.cp_async cg l2_prefetch 128 %dst, %src, 16
  func.return
}
""")
    with pytest.raises(QdotError, match=r"cp\.async\.cg\.shared\.global\.L2::128B requires PTX ISA 7\.4 or later, "
                                        r"got 7\.0"):
        check_arch(module, Arch.SM_80, PtxVersion(7, 0))
    check_arch(module, Arch.SM_80, PtxVersion(7, 4))


def test_every_feature_is_legal_at_its_targets_default_ptx() -> None:
    # The default PTX version of a target must satisfy every instruction the target accepts.
    from dialects.ptx.arch import _FEATURE_TARGETS  # the table itself, to cover every feature

    assert set(_FEATURE_TARGETS) == set(Feature)
    for arch in Arch:
        assert arch.min_ptx <= arch.default_ptx <= PtxVersion(9, 0)
        assert check_ptx_version(arch, arch.default_ptx) is None


def test_emitter_checks_an_explicit_ptx_version() -> None:
    # LLVM 22 would emit this with +ptx84 and ptxas reject it; with +ptx78 LLVM would abort.
    with pytest.raises(QdotError, match=r"requires PTX ISA 8\.7 or later, got 8\.4"):
        emit_llvm_ir(parse(FP8_F16_ACCUMULATE), Arch.SM_90, "8.4")
    assert "mma.m16n8k32.row.col.f16.e4m3.e4m3.f16" in emit_llvm_ir(parse(FP8_F16_ACCUMULATE), Arch.SM_90, "8.7")


def test_emitter_reports_instead_of_aborting() -> None:
    # LLVM would kill the process ("Cannot select: intrinsic ... kind.f8f6f4") for sm_90.
    with pytest.raises(QdotError, match="got sm_90"):
        emit_llvm_ir(parse(F8F6F4), Arch.SM_90)
    with pytest.raises(QdotError, match="unknown target 'sm_91'"):
        emit_llvm_ir(parse(F8F6F4), "sm_91")


def test_unverified_module_is_a_diagnostic() -> None:
    text = """
func.func @k(%o: i32) attributes {qdot.kernel} {
  %r:3 = "ptx.ldmatrix"(%o) <{shape = #ptx<ldmatrix_shape m8n8>, num = 3 : i32, elt = #ptx<ldmatrix_elt b16>}> : (i32) -> (i32, i32, i32)
  func.return
}
"""
    with pytest.raises(QdotError, match="num must be 1, 2 or 4, got 3"):
        emit_llvm_ir(parse(text), Arch.SM_80)


@pytest.mark.parametrize(("text", "message"), [
    ("""
func.func @k(%a: i32) attributes {qdot.kernel} {
  %b = "test.op"(%a) : (i32) -> i32
  func.return
}
""", "'test.op' has no translation to LLVM IR"),
    ("""
func.func @k(%a: i32) -> i32 attributes {qdot.kernel} {
  func.return %a : i32
}
""", r"a kernel \(qdot.kernel\) must return nothing, got 1 results"),
    ("""
func.func @k(%a: i32) -> i64 {
  %b = builtin.unrealized_conversion_cast %a : i32 to i64
  func.return %b : i64
}
""", "only identity casts"),
    ("""
func.func @k() attributes {qdot.kernel, qdot.num_warps = 0 : i64} {
  func.return
}
""", "qdot.num_warps must be an integer from 1 to 32, got 0 : i64"),
    ("""
func.func @k(%a: tensor<4xi32>) -> tensor<4xi32> {
  func.return %a : tensor<4xi32>
}
""", r"type tensor<4xi32> has no LLVM IR equivalent"),
])
def test_untranslatable_input_is_a_diagnostic(text: str, message: str) -> None:
    with pytest.raises(QdotError, match=message):
        emit_llvm_ir(parse(text), Arch.SM_80)


def test_scf_hint() -> None:
    text = """
func.func @k(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  func.return
}
"""
    with pytest.raises(QdotError, match=r"'scf.for' has no translation to LLVM IR \(run convert-scf-to-cf first\)"):
        emit_llvm_ir(parse(text), Arch.SM_80)


# -- PTX versions ---------------------------------------------------------------------------

def test_default_ptx_versions() -> None:
    assert resolve_ptx_version("sm_90") == (Arch.SM_90, PtxVersion(8, 7))
    assert resolve_ptx_version("sm_120a") == (Arch.SM_120A, PtxVersion(8, 7))
    assert resolve_ptx_version("sm_121a") == (Arch.SM_121A, PtxVersion(8, 8))
    assert resolve_ptx_version("sm_90", "8.4") == (Arch.SM_90, PtxVersion(8, 4))
    assert PtxVersion.parse("+ptx90") == PtxVersion(9, 0)


@pytest.mark.parametrize(("arch", "version", "message"), [
    ("sm_121a", "8.7", r"target sm_121a requires PTX ISA 8\.8 or later, got 8\.7"),
    ("sm_120a", "8.6", r"target sm_120a requires PTX ISA 8\.7 or later, got 8\.6"),
    ("sm_90", "9.1", r"PTX ISA 9\.1 is not one LLVM 22 can emit"),
    ("sm_90", "7.9", r"PTX ISA 7\.9 is not one LLVM 22 can emit"),
    ("sm_90", "eight", r"not a PTX ISA version: 'eight'"),
    ("sm_99", None, r"unknown target 'sm_99'"),
])
def test_bad_target_pairs_are_errors_not_aborts(arch: str, version: str | None, message: str) -> None:
    # sm_121a with +ptx87 is a fatal LLVM error that would kill this process.
    ir = 'target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() {\n  ret void\n}\n'
    with pytest.raises(NvptxError, match=message):
        llvm_ir_to_ptx(ir, arch, version)


def test_ptx_version_is_emitted() -> None:
    ir = 'target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() {\n  ret void\n}\n'
    assert ".version 8.4\n.target sm_90\n" in llvm_ir_to_ptx(ir, "sm_90", "8.4")
    assert ".version 8.8\n.target sm_121a\n" in llvm_ir_to_ptx(ir, "sm_121a")
    assert ".version 7.8\n.target sm_80\n" in llvm_ir_to_ptx(ir, Arch.SM_80)


def test_unknown_intrinsic_is_an_error() -> None:
    ir = """target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.no.such.thing(i32)
@out = addrspace(1) global i32 0
define ptx_kernel void @k(i32 %x) {
  %y = call i32 @llvm.nvvm.no.such.thing(i32 %x)
  store i32 %y, ptr addrspace(1) @out
  ret void
}
"""
    with pytest.raises(NvptxError, match="'llvm.nvvm.no.such.thing' is not an intrinsic LLVM 22 knows"):
        llvm_ir_to_ptx(ir, "sm_90")


def test_invalid_ir_is_an_error() -> None:
    with pytest.raises(NvptxError, match="LLVM rejected the IR"):
        llvm_ir_to_ptx("define void @k( {", "sm_90")
    with pytest.raises(NvptxError, match="opt_level must be 0, 1, 2 or 3, got 4"):
        llvm_ir_to_ptx("", "sm_90", opt_level=4)


# -- determinism ----------------------------------------------------------------------------

DETERMINISM = """
func.func @k(%p: i64, %n: i32) attributes {qdot.kernel, qdot.num_warps = 2 : i64} {
  %lane = ptx.special_reg laneid
  %c16 = arith.constant 16 : i32
  %off = arith.muli %lane, %c16 : i32
  %a:4 = ptx.ldmatrix m8n8 x4 b16 %off
  %b:2 = ptx.ldmatrix m8n8 x2 trans b16 %off
  %zero = arith.constant 0 : i32
  cf.br ^loop(%zero, %zero, %zero : i32, i32, i32)
^loop(%i: i32, %c0: i32, %c1: i32):
  %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%a#0, %a#1, %a#2, %a#3] B[%b#0, %b#1] C[%c0, %c1, %c0, %c1]
  %one = arith.constant 1 : i32
  %next = arith.addi %i, %one : i32
  %more = arith.cmpi slt, %next, %n : i32
  cf.cond_br %more, ^loop(%next, %d#0, %d#3 : i32, i32, i32), ^done
^done:
  %in = arith.cmpi ult, %lane, %n : i32
  ptx.st_global %p, %d#1 if %in : i32
  func.return
}
"""


def test_emission_is_deterministic() -> None:
    first = emit_llvm_ir(parse(DETERMINISM), Arch.SM_90)
    second = emit_llvm_ir(parse(DETERMINISM), Arch.SM_90)
    assert first == second
    assert llvm_ir_to_ptx(first, Arch.SM_90) == llvm_ir_to_ptx(second, Arch.SM_90)


def test_emission_is_deterministic_across_processes() -> None:
    # Hash randomisation differs per process: any dict/set order leaking into the text shows here.
    script = (
        "import sys\n"
        "from xdsl.parser import Parser\n"
        "from compiler.registry import make_context\n"
        "from targets.ptx.llvm_ir import emit_llvm_ir\n"
        "from targets.ptx.nvptx import llvm_ir_to_ptx\n"
        "ir = emit_llvm_ir(Parser(make_context(), sys.stdin.read()).parse_module(), 'sm_90')\n"
        "sys.stdout.write(ir + llvm_ir_to_ptx(ir, 'sm_90'))\n"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", script], input=DETERMINISM, capture_output=True, text=True,
                       check=True, env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
def test_determinism_kernel_assembles() -> None:
    result = assemble(llvm_ir_to_ptx(emit_llvm_ir(parse(DETERMINISM), Arch.SM_90), Arch.SM_90), Arch.SM_90)
    assert result.ok, result.log
