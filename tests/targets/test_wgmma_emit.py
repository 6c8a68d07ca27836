"""ptx-level wgmma kernels -> LLVM IR -> PTX -> ptxas (sm_90a).

The warpgroup sequence of a pipelined K step — stores to shared memory, the async-proxy
fence, the barrier, `wgmma.fence`, two chained `wgmma.mma_async`, commit, `wait_group 1`
then `0` — must come out as exactly those PTX instructions in that order, with the
descriptors built from the op's layout fields, the dynamic shared memory aligned to the
1024-byte swizzle period, and ptxas accepting the result; every other target refuses the
wgmma ops with a diagnostic before LLVM sees them. (There is no lit RUN-line pattern for
ptx-level input, so these are pytest cases.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from compiler.cli import translate
from compiler.diagnostics import QdotError
from compiler.registry import make_context
from compiler.tools import find_ptxas
from dialects.ptx import check_arch
from targets.ptx.llvm_ir import emit_llvm_ir
from targets.ptx.nvptx import llvm_ir_to_ptx
from targets.ptx.ptxas import assemble
from tests.ptxas_checks import needs_ptxas


DESC_A = "desc_a<swizzle = 128, lbo = 16, sbo = 1024>"
DESC_B = "desc_b<swizzle = 32, lbo = 16, sbo = 256>"

KERNEL = f"""
func.func @k(%p: i64) attributes {{qdot.kernel, qdot.num_warps = 4 : i64}} {{
  %a = arith.constant 0 : i32
  %b = arith.constant 8192 : i32
  %z = arith.constant 0.0 : f32
  %x = ptx.ld_global %p : i32
  %v = ptx.pack %x, %x, %x, %x : i32, i32, i32, i32 -> vector<4xi32>
  ptx.st_shared %a, %v : vector<4xi32>
  ptx.fence_proxy_async
  ptx.bar_sync
  ptx.wgmma_fence
  %d:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%b] C[%z, %z, %z, %z] {DESC_A} {DESC_B}
  %e:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%b] C[%d#0, %d#1, %d#2, %d#3] {DESC_A} {DESC_B}
  ptx.wgmma_commit
  ptx.wgmma_wait 1
  ptx.wgmma_wait 0
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %c12 = arith.constant 12 : i64
  %p1 = arith.addi %p, %c4 : i64
  %p2 = arith.addi %p, %c8 : i64
  %p3 = arith.addi %p, %c12 : i64
  ptx.st_global %p, %e#0 : f32
  ptx.st_global %p1, %e#1 : f32
  ptx.st_global %p2, %e#2 : f32
  ptx.st_global %p3, %e#3 : f32
  func.return
}}
"""

PACK_ONLY = """
func.func @k(%p: i64) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %off = arith.constant 64 : i32
  %h = ptx.ld_global %p : vector<2xbf16>
  %w = ptx.pack %h, %h : vector<2xbf16>, vector<2xbf16> -> vector<2xi32>
  ptx.st_shared %off, %w : vector<2xi32>
  func.return
}
"""

WGMMA_ONLY = f"""
func.func @k(%a: i32, %z: f32, %p: i64) attributes {{qdot.kernel, qdot.num_warps = 4 : i64}} {{
  %d:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%a] C[%z, %z, %z, %z] {DESC_A} {DESC_B}
  ptx.st_global %p, %d#0 : f32
  func.return
}}
"""


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def squash(text: str) -> str:
    """PTX with each run of spaces and tabs as one space (LLVM separates operands with " \\t")."""
    return re.sub(r"[ \t]+", " ", text)


@pytest.fixture(scope="module")
def compiled() -> tuple[str, str]:
    ir = emit_llvm_ir(parse(KERNEL), "sm_90a")
    return ir, squash(llvm_ir_to_ptx(ir, "sm_90a"))


def signed64(value: int) -> int:
    """How LLVM and PTX print an i64 immediate."""
    return value - (1 << 64) if value >> 63 else value


def hand_high_bits(layout_type: int, lbo: int, sbo: int) -> int:
    """Descriptor bits 16-63 ([ISA] 9.7.15.5.1): lbo/16 at 16, sbo/16 at 32, layout type at 62."""
    return (layout_type << 62) | ((sbo >> 4) << 32) | ((lbo >> 4) << 16)


def position(pattern: str, ptx: str, start: int = 0) -> int:
    match = re.compile(pattern).search(ptx, start)
    assert match, f"no {pattern!r} after offset {start} in:\n{ptx}"
    return match.start()


WGMMA = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n8k16\.f32\.bf16\.bf16 "
                   r"\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}, (%rd\d+), (%rd\d+), (%\w+), 1, 1, 0, 0;")


def test_shared_memory_is_aligned_to_the_swizzle_period(compiled: tuple[str, str]) -> None:
    ir, ptx = compiled
    assert re.search(r"^@\w+ = external addrspace\(3\) global \[0 x i8\], align 1024$", ir, re.M), ir
    assert re.search(r"^\.extern \.shared \.align 1024 \.b8 \w+\[\];$", ptx, re.M), ptx


def test_without_wgmma_shared_memory_keeps_align_16() -> None:
    ir = emit_llvm_ir(parse(PACK_ONLY), "sm_90a")
    assert re.search(r"global \[0 x i8\], align 16$", ir, re.M), ir


def test_fences_barrier_wgmma_groups_in_order(compiled: tuple[str, str]) -> None:
    _, ptx = compiled
    store = position(r"st\.shared\.v4\.b32 \[", ptx)
    fence = position(r"fence\.proxy\.async\.shared::cta;", ptx, store)
    barrier = position(r"bar\.sync 0;", ptx, fence)
    wgmma_fence = position(r"wgmma\.fence\.sync\.aligned;", ptx, barrier)
    first = position(WGMMA.pattern, ptx, wgmma_fence)
    second = position(WGMMA.pattern, ptx, first + 1)
    commit = position(r"wgmma\.commit_group\.sync\.aligned;", ptx, second)
    wait1 = position(r"wgmma\.wait_group\.sync\.aligned 1;", ptx, commit)
    wait0 = position(r"wgmma\.wait_group\.sync\.aligned 0;", ptx, wait1)
    position(r"st\.global\.b32 \[", ptx, wait0)
    assert len(WGMMA.findall(ptx)) == 2
    assert ptx.count("wgmma.commit_group") == 1 and ptx.count("wgmma.wait_group") == 2
    # Nothing reads the accumulators before the last wait.
    assert "st.global" not in ptx[:wait0]


def test_chained_wgmma_ties_accumulators_and_sets_scale_d(compiled: tuple[str, str]) -> None:
    _, ptx = compiled
    first, second = WGMMA.findall(ptx)
    # The second reads the first's D registers as its C: the same four registers, in order.
    assert first[:4] == second[:4] and len(set(first[:4])) == 4
    predicate = first[6]
    assert second[6] == predicate
    # scale-d = 1: the predicate is set from a register holding 1 (D = A·B + C).
    set_from = re.search(rf"setp\.ne\.b32 {re.escape(predicate)}, (%r\d+), 0;", ptx)
    assert set_from, ptx
    assert re.search(rf"mov\.b32 {re.escape(set_from.group(1))}, 1;", ptx), ptx


def test_descriptors_carry_the_layout_fields(compiled: tuple[str, str]) -> None:
    ir, ptx = compiled
    high_a = signed64(hand_high_bits(1, 16, 1024))   # 128B swizzle
    high_b = signed64(hand_high_bits(3, 16, 256))    # 32B swizzle
    assert (high_a, high_b) == (4611686293305360384, -4611685949707845632)
    assert re.search(rf"= or i64 %\S+, {high_a}$", ir, re.M), ir
    assert re.search(rf"= or i64 %\S+, {high_b}$", ir, re.M), ir
    # The address field is (shared-window address & 0x3FFFF) >> 4.
    assert re.search(r"= and i64 %\S+, 262143$", ir, re.M) and re.search(r"= lshr i64 %\S+, 4$", ir, re.M), ir
    for wgmma in WGMMA.findall(ptx):
        for register, high in ((wgmma[4], high_a), (wgmma[5], high_b)):
            assert re.search(rf"or\.b64 {re.escape(register)}, %rd\d+, {high};", ptx), (register, ptx)


def test_pack_feeds_vector_shared_stores(compiled: tuple[str, str]) -> None:
    _, ptx = compiled
    v4 = re.search(r"st\.shared\.v4\.b32 \[\w+\], \{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\};", ptx)
    assert v4 and len(set(v4.groups())) == 1, ptx
    ptx2 = squash(llvm_ir_to_ptx(emit_llvm_ir(parse(PACK_ONLY), "sm_90a"), "sm_90a"))
    assert re.search(r"st\.shared\.v2\.b32 \[\w+\+64\], \{(%r\d+), \1\};", ptx2), ptx2


@needs_ptxas
def test_ptxas_accepts_the_kernel_for_sm_90a(compiled: tuple[str, str]) -> None:
    _, ptx = compiled
    result = assemble(ptx, "sm_90a")
    assert result.ok, f"ptxas rejected the PTX for sm_90a:\n{result.log}\n{ptx}"
    assert result.errors == ()
    assert result.cubin


EIGHT_BIT = """
func.func @k(%p: i64) attributes {{qdot.kernel, qdot.num_warps = 4 : i64}} {{
  %a = arith.constant 0 : i32
  %b = arith.constant 8192 : i32
  %z = arith.constant {zero} : {acc}
  ptx.wgmma_fence
  %d:4 = ptx.wgmma m64n8k32 {acc_name}.{a}.{b} A[%a] B[%b] C[%z, %z, %z, %z] {desc_a} {desc_b}
  ptx.wgmma_commit
  ptx.wgmma_wait 0
  ptx.st_global %p, %d#0 : {acc}
  func.return
}}
"""


@pytest.mark.parametrize("a,b,immediates", [("e4m3", "e4m3", ", 1, 1;"), ("e4m3", "e5m2", ", 1, 1;"),
                                             ("s8", "s8", ";")])
def test_eight_bit_wgmma_forms(a: str, b: str, immediates: str) -> None:
    """The 8-bit forms: k32, f32 accumulators for fp8 and s32 for s8, and only the immediates the
    form has (the fp8 forms no transposes, the integer form no operand scales either); ptxas
    accepts each for sm_90a."""
    integer = a == "s8"
    text = EIGHT_BIT.format(acc="i32" if integer else "f32", acc_name="s32" if integer else "f32",
                            zero="0" if integer else "0.0", a=a, b=b, desc_a=DESC_A, desc_b=DESC_B)
    ptx = squash(llvm_ir_to_ptx(emit_llvm_ir(parse(text), "sm_90a"), "sm_90a"))
    acc = "s32" if integer else "f32"
    pattern = (rf"wgmma\.mma_async\.sync\.aligned\.m64n8k32\.{acc}\.{a}\.{b} \{{%r\d+, %r\d+, %r\d+, %r\d+\}}, "
               rf"%rd\d+, %rd\d+, %\w+{re.escape(immediates)}")
    assert re.search(pattern, ptx), ptx
    if find_ptxas() is not None:
        result = assemble(ptx, "sm_90a")
        assert result.ok, result.log


def test_wgmma_without_c_sets_scale_d_to_zero() -> None:
    """``C[]``: D = A·B. The predicate comes from 0 and nothing is tied to the outputs (no C
    registers to read); ptxas accepts it."""
    text = EIGHT_BIT.format(acc="i32", acc_name="s32", zero="0", a="s8", b="s8", desc_a=DESC_A,
                            desc_b=DESC_B).replace("C[%z, %z, %z, %z]", "C[]")
    ir = emit_llvm_ir(parse(text), "sm_90a")
    call = next(line for line in ir.splitlines() if "wgmma.mma_async" in line)
    assert '"=r,=r,=r,=r,l,l,r"' in call and call.rstrip().endswith("i32 0)"), call
    ptx = squash(llvm_ir_to_ptx(ir, "sm_90a"))
    assert re.search(r"mov\.b32 (%r\d+), 0;\s*// begin inline asm\s*\{\s*\.reg \.pred %qdot_p;\s*"
                     r"setp\.ne\.b32 %qdot_p, \1, 0;", ptx), ptx
    if find_ptxas() is not None:
        result = assemble(ptx, "sm_90a")
        assert result.ok, result.log


@needs_ptxas
def test_ptxas_accepts_the_pack_kernel_for_sm_90a() -> None:
    ptx = llvm_ir_to_ptx(emit_llvm_ir(parse(PACK_ONLY), "sm_90a"), "sm_90a")
    result = assemble(ptx, "sm_90a")
    assert result.ok, result.log


@pytest.mark.parametrize("arch", ["sm_90", "sm_100a", "sm_120a", "sm_89"])
def test_wgmma_refused_off_sm_90a(arch: str) -> None:
    with pytest.raises(QdotError) as info:
        check_arch(parse(WGMMA_ONLY), arch)
    assert info.value.op is not None and info.value.op.name == "ptx.wgmma"
    assert info.value.message == f"wgmma.mma_async requires sm_90a, got {arch}"


def test_emitter_refuses_wgmma_on_sm_90_before_llvm() -> None:
    with pytest.raises(QdotError) as info:
        emit_llvm_ir(parse(WGMMA_ONLY), "sm_90")
    assert str(info.value) == "<unknown>: error: 'ptx.wgmma' op wgmma.mma_async requires sm_90a, got sm_90"


@pytest.mark.parametrize(("op", "mnemonic"), [
    ("ptx.wgmma_fence", "wgmma.fence.sync.aligned"),
    ("ptx.wgmma_commit", "wgmma.commit_group.sync.aligned"),
    ("ptx.wgmma_wait 0", "wgmma.wait_group"),
])
def test_wgmma_bookkeeping_refused_on_sm_90(op: str, mnemonic: str) -> None:
    module = parse(f"func.func @k() attributes {{qdot.kernel}} {{\n  {op}\n  func.return\n}}")
    with pytest.raises(QdotError) as info:
        check_arch(module, "sm_90")
    assert info.value.op is not None and info.value.op.name == op.split()[0]
    assert info.value.message == f"{mnemonic} requires sm_90a, got sm_90"
    check_arch(module, "sm_90a")


def test_fence_proxy_async_needs_only_sm_90() -> None:
    module = parse("func.func @k() attributes {qdot.kernel} {\n  ptx.fence_proxy_async\n  func.return\n}")
    check_arch(module, "sm_90")
    assert "fence.proxy.async.shared::cta;" in llvm_ir_to_ptx(emit_llvm_ir(module, "sm_90"), "sm_90")
    with pytest.raises(QdotError) as info:
        check_arch(module, "sm_89")
    assert info.value.message == "fence.proxy.async.shared::cta requires sm_90 or later, got sm_89"


def test_translate_reports_wgmma_on_sm_90_as_a_diagnostic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "wgmma.mlir"
    source.write_text(WGMMA_ONLY.lstrip("\n"))
    status = translate.run([str(source), "--pipeline", "", "--arch", "sm_90", "-o", str(tmp_path / "out.ptx")])
    err = capsys.readouterr().err
    assert status == 1
    assert err == f"{source}:2:3: error: 'ptx.wgmma' op wgmma.mma_async requires sm_90a, got sm_90\n"
    assert not (tmp_path / "out.ptx").exists()
