"""Kernels written in the ptx dialect, run on a GPU through CuPy, compared with numpy.

ptxas only says the PTX is well formed; these say it computes the right thing: predicated
loads read 0 and predicated stores skip, cp.async's src-size zero-fills, ldmatrix feeds
mma.sync with the fragment layouts of ptx.md §3 (int8 and e4m3), a shuffle reduction loop
runs its phis, and cvt/prmt/lop3 match their definitions bit for bit. They need an
NVIDIA GPU of sm_89 or later (the FP8 cases) and CuPy; without them they skip.

What needs no GPU is checked everywhere (``test_kernel_compiles_and_assembles``): each kernel
lowers to PTX for sm_80, sm_89 and sm_90 with the instructions it is here to test, ptxas accepts
it, and the FP8 ones are refused below sm_89 by name.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.parser import Parser

from compiler.diagnostics import QdotError
from compiler.registry import make_context
from compiler.tools import find_ptxas
from dialects.ptx.arch import Arch
from targets.ptx.llvm_ir import emit_llvm_ir
from targets.ptx.nvptx import llvm_ir_to_ptx
from targets.ptx.ptxas import assemble

cupy = None
"""CuPy, imported by the ``arch`` fixture (a module-level importorskip skipped the CPU checks too)."""


def _device_arch() -> Arch:
    global cupy
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
        major, minor = divmod(int(cupy.cuda.Device().compute_capability), 10)
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no usable CUDA device")
    capability = f"sm_{major}{minor}"
    for candidate in (capability, capability + "a"):
        try:
            return Arch.parse(candidate)
        except ValueError:
            continue
    pytest.skip(f"device {capability} is not a qdot target")


@pytest.fixture(scope="module")
def arch() -> Arch:
    return _device_arch()


def to_ptx(text: str, arch: Arch) -> str:
    return llvm_ir_to_ptx(emit_llvm_ir(Parser(make_context(), text).parse_module(), arch), arch)


def load(text: str, arch: Arch, name: str):  # -> cupy.RawKernel
    ptx = to_ptx(text, arch)
    if find_ptxas() is not None:
        result = assemble(ptx, arch)
        assert result.ok, result.log
        module = _module_from_cubin(result.cubin)
    else:
        module = _module_from_ptx(ptx)
    return module.get_function(name)


def _module_from_cubin(cubin: bytes):
    module = cupy.cuda.function.Module()
    module.load(cubin)
    return module


def _module_from_ptx(ptx: str):
    module = cupy.cuda.function.Module()
    module.load(ptx.encode())
    return module


GUARDED = """
func.func @guarded(%src: i64, %dst: i64, %kept: i64, %n: i32, %m: i32) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %tid = ptx.special_reg tid.x
  %ctaid = ptx.special_reg ctaid.x
  %ntid = ptx.special_reg ntid.x
  %base = arith.muli %ctaid, %ntid : i32
  %i = arith.addi %base, %tid : i32
  %in = arith.cmpi slt, %i, %n : i32
  %i64 = arith.extui %i : i32 to i64
  %c4 = arith.constant 4 : i64
  %off = arith.muli %i64, %c4 : i64
  %s = arith.addi %src, %off : i64
  %d = arith.addi %dst, %off : i64
  %k = arith.addi %kept, %off : i64
  %v = ptx.ld_global nc %s if %in : i32
  %one = arith.constant 1 : i32
  %w = arith.addi %v, %one : i32
  ptx.st_global %d, %w : i32
  %store = arith.cmpi slt, %i, %m : i32
  ptx.st_global %k, %v if %store : i32
  func.return
}
"""


@pytest.mark.gpu
def test_predicated_load_reads_zero_and_predicated_store_skips(arch: Arch) -> None:
    kernel = load(GUARDED, arch, "guarded")
    total, n, m = 512, 300, 200
    src = cupy.arange(1, total + 1, dtype=cupy.int32) * 7
    dst = cupy.full(total, -1, dtype=cupy.int32)
    kept = cupy.full(total, -5, dtype=cupy.int32)
    kernel((total // 128,), (128,), (src, dst, kept, np.int32(n), np.int32(m)))
    expected_dst = np.where(np.arange(total) < n, src.get() + 1, 1)
    expected_kept = np.where(np.arange(total) < m, src.get(), -5)
    np.testing.assert_array_equal(dst.get(), expected_dst)
    np.testing.assert_array_equal(kept.get(), expected_kept)


CP_ASYNC = """
func.func @stage(%src: i64, %dst: i64, %rows: i32) attributes {qdot.kernel} {
  %tid = ptx.special_reg tid.x
  %c16 = arith.constant 16 : i32
  %c4 = arith.constant 4 : i32
  %c0 = arith.constant 0 : i32
  %slot = arith.muli %tid, %c16 : i32
  %full = arith.cmpi ult, %tid, %rows : i32
  %edge = arith.cmpi eq, %tid, %rows : i32
  %partial = arith.select %edge, %c4, %c0 : i32
  %size = arith.select %full, %c16, %partial : i32
  %tid64 = arith.extui %tid : i32 to i64
  %c16_64 = arith.constant 16 : i64
  %offset = arith.muli %tid64, %c16_64 : i64
  %from = arith.addi %src, %offset : i64
  ptx.cp_async cg %slot, %from, 16, %size
  ptx.cp_async_commit
  ptx.cp_async_wait 0
  ptx.bar_sync
  %c1 = arith.constant 1 : i32
  %neighbour = arith.xori %tid, %c1 : i32
  %theirs = arith.muli %neighbour, %c16 : i32
  %v = ptx.ld_shared %theirs : vector<4xi32>
  %to = arith.addi %dst, %offset : i64
  ptx.st_global %to, %v : vector<4xi32>
  func.return
}
"""


@pytest.mark.gpu
def test_cp_async_src_size_zero_fills(arch: Arch) -> None:
    kernel = load(CP_ASYNC, arch, "stage")
    threads, rows = 64, 37
    src = cupy.arange(1, threads * 4 + 1, dtype=cupy.int32)
    dst = cupy.full(threads * 4, -1, dtype=cupy.int32)
    kernel((1,), (threads,), (src, dst, np.int32(rows)), shared_mem=threads * 16)
    staged = src.get().reshape(threads, 4).copy()
    staged[rows, 1:] = 0  # 4 of 16 bytes read, the rest zero-filled
    staged[rows + 1:] = 0
    expected = staged[np.arange(threads) ^ 1]  # each thread reads its neighbour's slot (after the barrier)
    np.testing.assert_array_equal(dst.get().reshape(threads, 4), expected)


def _mma_kernel(name: str, types: str) -> str:
    """One warp: A (16x32 bytes, row-major) and B^T (8x32 bytes) staged with cp.async, read with
    ldmatrix (ptx.md §3.5), one m16n8k32 mma, D (16x8 of 4-byte values) stored row-major."""
    accumulator = "i32" if types.startswith("s32") else "f32"
    zero = "arith.constant 0 : i32" if accumulator == "i32" else "arith.constant 0.0 : f32"
    return f"""
func.func @{name}(%a: i64, %b: i64, %d: i64) attributes {{qdot.kernel, qdot.num_warps = 1 : i64}} {{
  %lane = ptx.special_reg laneid
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c15 = arith.constant 15 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %c512 = arith.constant 512 : i32
  %lane64 = arith.extui %lane : i32 to i64
  %c16_64 = arith.constant 16 : i64
  %chunk = arith.muli %lane64, %c16_64 : i64
  %slot = arith.muli %lane, %c16 : i32
  %a_src = arith.addi %a, %chunk : i64
  ptx.cp_async cg %slot, %a_src, 16
  %b_slot = arith.addi %slot, %c512 : i32
  %b_src = arith.addi %b, %chunk : i64
  %in_b = arith.cmpi ult, %lane, %c16 : i32
  %zero_size = arith.constant 0 : i32
  %b_size = arith.select %in_b, %c16, %zero_size : i32
  ptx.cp_async cg %b_slot, %b_src, 16, %b_size
  ptx.cp_async_commit
  ptx.cp_async_wait 0
  ptx.bar_sync
  %row = arith.andi %lane, %c15 : i32
  %half = arith.shrui %lane, %c4 : i32
  %row_bytes = arith.muli %row, %c32 : i32
  %half_bytes = arith.muli %half, %c16 : i32
  %a_off = arith.addi %row_bytes, %half_bytes : i32
  %av:4 = ptx.ldmatrix m8n8 x4 b16 %a_off
  %brow = arith.andi %lane, %c7 : i32
  %bsh = arith.shrui %lane, %c3 : i32
  %bhalf = arith.andi %bsh, %c1 : i32
  %brow_bytes = arith.muli %brow, %c32 : i32
  %bhalf_bytes = arith.muli %bhalf, %c16 : i32
  %b_rel = arith.addi %brow_bytes, %bhalf_bytes : i32
  %b_off = arith.addi %b_rel, %c512 : i32
  %bv:2 = ptx.ldmatrix m8n8 x2 b16 %b_off
  %z = {zero}
  %dv:4 = ptx.mma_sync m16n8k32 {types} A[%av#0, %av#1, %av#2, %av#3] B[%bv#0, %bv#1] C[%z, %z, %z, %z]
  %g = arith.shrui %lane, %c2 : i32
  %t = arith.andi %lane, %c3 : i32
  %col = arith.muli %t, %c2 : i32
  %row0 = arith.muli %g, %c8 : i32
  %e0 = arith.addi %row0, %col : i32
  %c64 = arith.constant 64 : i32
  %e2 = arith.addi %e0, %c64 : i32
  %e0_64 = arith.extui %e0 : i32 to i64
  %e2_64 = arith.extui %e2 : i32 to i64
  %c4_64 = arith.constant 4 : i64
  %o0 = arith.muli %e0_64, %c4_64 : i64
  %o2 = arith.muli %e2_64, %c4_64 : i64
  %p0 = arith.addi %d, %o0 : i64
  %p2 = arith.addi %d, %o2 : i64
  %c4_off = arith.constant 4 : i64
  %p1 = arith.addi %p0, %c4_off : i64
  %p3 = arith.addi %p2, %c4_off : i64
  ptx.st_global %p0, %dv#0 : {accumulator}
  ptx.st_global %p1, %dv#1 : {accumulator}
  ptx.st_global %p2, %dv#2 : {accumulator}
  ptx.st_global %p3, %dv#3 : {accumulator}
  func.return
}}
"""


@pytest.mark.gpu
def test_ldmatrix_and_int8_mma(arch: Arch) -> None:
    kernel = load(_mma_kernel("imma", "s32.s8.s8.s32"), arch, "imma")
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, size=(16, 32), dtype=np.int8)
    b_t = rng.integers(-128, 128, size=(8, 32), dtype=np.int8)
    d = cupy.zeros((16, 8), dtype=cupy.int32)
    kernel((1,), (32,), (cupy.asarray(a), cupy.asarray(b_t), d), shared_mem=1024)
    np.testing.assert_array_equal(d.get(), a.astype(np.int32) @ b_t.astype(np.int32).T)


@pytest.mark.gpu
def test_ldmatrix_and_e4m3_mma(arch: Arch) -> None:
    if arch.capability < 89:
        pytest.skip("FP8 mma.sync needs sm_89")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    kernel = load(_mma_kernel("qmma", "f32.e4m3.e4m3.f32"), arch, "qmma")
    rng = np.random.default_rng(11)
    a = rng.normal(size=(16, 32)).astype(ml_dtypes.float8_e4m3fn)
    b_t = rng.normal(size=(8, 32)).astype(ml_dtypes.float8_e4m3fn)
    d = cupy.zeros((16, 8), dtype=cupy.float32)
    kernel((1,), (32,), (cupy.asarray(a.view(np.uint8)), cupy.asarray(b_t.view(np.uint8)), d), shared_mem=1024)
    expected = a.astype(np.float64) @ b_t.astype(np.float64).T
    np.testing.assert_allclose(d.get(), expected, rtol=1e-5, atol=1e-5)


REDUCE = """
func.func @warp_sum(%src: i64, %dst: i64) attributes {qdot.kernel} {
  %lane = ptx.special_reg laneid
  %lane64 = arith.extui %lane : i32 to i64
  %c4 = arith.constant 4 : i64
  %off = arith.muli %lane64, %c4 : i64
  %from = arith.addi %src, %off : i64
  %x = ptx.ld_global %from : f32
  %c16 = arith.constant 16 : i32
  cf.br ^loop(%c16, %x : i32, f32)
^loop(%mask: i32, %acc: f32):
  %full = arith.constant -1 : i32
  %clamp = arith.constant 31 : i32
  %other = ptx.shfl_sync bfly %acc, %mask, %clamp, %full : f32
  %sum = arith.addf %acc, %other : f32
  %c1 = arith.constant 1 : i32
  %next = arith.shrui %mask, %c1 : i32
  %c0 = arith.constant 0 : i32
  %more = arith.cmpi ne, %next, %c0 : i32
  cf.cond_br %more, ^loop(%next, %sum : i32, f32), ^done(%sum : f32)
^done(%total: f32):
  %to = arith.addi %dst, %off : i64
  ptx.st_global %to, %total : f32
  func.return
}
"""


@pytest.mark.gpu
def test_shuffle_reduction_loop(arch: Arch) -> None:
    kernel = load(REDUCE, arch, "warp_sum")
    values = (np.arange(32, dtype=np.float32) * 0.5 - 3.0).astype(np.float32)
    dst = cupy.zeros(32, dtype=cupy.float32)
    kernel((1,), (32,), (cupy.asarray(values), dst))
    np.testing.assert_allclose(dst.get(), np.full(32, values.sum()), rtol=0, atol=1e-6)


BITS = """
func.func @bits(%src: i64, %dst: i64) attributes {qdot.kernel} {
  %tid = ptx.special_reg tid.x
  %tid64 = arith.extui %tid : i32 to i64
  %c4 = arith.constant 4 : i64
  %c12 = arith.constant 12 : i64
  %c16 = arith.constant 16 : i64
  %in = arith.muli %tid64, %c12 : i64
  %out = arith.muli %tid64, %c16 : i64
  %pa = arith.addi %src, %in : i64
  %pb = arith.addi %pa, %c4 : i64
  %c8 = arith.constant 8 : i64
  %pc = arith.addi %pa, %c8 : i64
  %a = ptx.ld_global %pa : i32
  %b = ptx.ld_global %pb : i32
  %c = ptx.ld_global %pc : i32
  %perm = ptx.prmt %a, %b, %c
  %mix = ptx.lop3 %a, %b, %c lut 0xe8
  %pair = arith.trunci %a : i32 to i16
  %halves = ptx.cvt f16x2.e4m3x2 %pair
  %halves_bits = ptx.bitcast %halves : vector<2xf16> -> i32
  %hi = ptx.bitcast %b : i32 -> f32
  %lo = ptx.bitcast %c : i32 -> f32
  %fp8 = ptx.cvt e4m3x2.f32 %hi, %lo
  %fp8_32 = arith.extui %fp8 : i16 to i32
  %q0 = arith.addi %dst, %out : i64
  %q1 = arith.addi %q0, %c4 : i64
  %q2 = arith.addi %q0, %c8 : i64
  %q3 = arith.addi %q0, %c12 : i64
  ptx.st_global %q0, %perm : i32
  ptx.st_global %q1, %mix : i32
  ptx.st_global %q2, %halves_bits : i32
  ptx.st_global %q3, %fp8_32 : i32
  func.return
}
"""


def _prmt(a: int, b: int, c: int) -> int:
    source = (b << 32 | a).to_bytes(8, "little")
    out = 0
    for j in range(4):
        selector = (c >> (4 * j)) & 0xF
        byte = source[selector & 7]
        if selector & 8:
            byte = 0xFF if byte & 0x80 else 0x00
        out |= byte << (8 * j)
    return out


@pytest.mark.gpu
def test_prmt_lop3_and_fp8_conversions(arch: Arch) -> None:
    if arch.capability < 89:
        pytest.skip("FP8 cvt needs sm_89")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    kernel = load(BITS, arch, "bits")
    threads = 256
    rng = np.random.default_rng(3)
    words = rng.integers(0, 2**32, size=(threads, 3), dtype=np.uint64).astype(np.uint32)
    words[:, 0] = (words[:, 0] & 0xFFFF0000) | (np.arange(threads) * 257 % 65536)  # every e4m3 code, both halves
    floats = rng.normal(scale=100.0, size=(threads, 2)).astype(np.float32)
    floats[:4] = [[1e6, -1e6], [np.inf, -0.0], [448.0, 464.0], [0.001, -0.0005]]
    words[:, 1:] = floats.view(np.uint32)
    dst = cupy.zeros((threads, 4), dtype=cupy.uint32)
    kernel((1,), (threads,), (cupy.asarray(words), dst))
    got = dst.get()
    for t in range(threads):
        a, b, c = (int(x) for x in words[t])
        assert got[t, 0] == _prmt(a, b, c), t
        assert got[t, 1] == (a & b) | (a & c) | (b & c), t  # lut 0xe8 = majority(a, b, c)
    codes = (words[:, 0] & 0xFFFF).astype(np.uint16).view(np.uint8).reshape(threads, 2)
    halves = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float16)
    nan = np.isnan(halves)
    expected_halves = np.where(nan, np.float16(np.nan), halves).view(np.uint16)
    got_halves = np.ascontiguousarray(got[:, 2]).view(np.uint16).reshape(threads, 2)
    assert np.array_equal(got_halves[~nan], expected_halves[~nan])
    assert np.all(np.isnan(got_halves[nan].view(np.float16)))
    # cvt.rn.satfinite.e4m3x2.f32 hi, lo: hi -> upper byte, saturating to +-448 (NaN only from NaN).
    clipped = np.clip(floats, -448.0, 448.0).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    expected_pairs = clipped[:, 1].astype(np.uint32) | clipped[:, 0].astype(np.uint32) << 8
    np.testing.assert_array_equal(got[:, 3], expected_pairs)


KERNELS = {
    # name: (IR, the first arch that has its instructions, patterns of the PTX the GPU test relies on)
    "guarded": (GUARDED, 80, [r"@%\w+ ld\.global\.nc\.b32", r"@%\w+ st\.global\.b32"]),
    "stage": (CP_ASYNC, 80, [r"cp\.async\.cg\.shared\.global", r"cp\.async\.commit_group", r"cp\.async\.wait_group",
                             r"bar\.sync", r"ld\.shared\.v4\.b32"]),
    "imma": (_mma_kernel("imma", "s32.s8.s8.s32"), 80,
             [r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", r"ldmatrix\.sync\.aligned\.m8n8\.x2\.shared\.b16",
              r"mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32"]),
    "qmma": (_mma_kernel("qmma", "f32.e4m3.e4m3.f32"), 89,
             [r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16",
              r"mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32"]),
    "warp_sum": (REDUCE, 80, [r"shfl\.sync\.bfly\.b32"]),
    "bits": (BITS, 89, [r"prmt\.b32", r"lop3\.b32", r"cvt\.rn\.f16x2\.e4m3x2", r"cvt\.rn\.satfinite\.e4m3x2\.f32"]),
}


@pytest.mark.parametrize("arch_name", ["sm_80", "sm_89", "sm_90"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_kernel_compiles_and_assembles(name: str, arch_name: str) -> None:
    """The CPU half of the tests above: the kernel they launch lowers to PTX holding the instructions
    they test, and ptxas accepts it; an FP8 kernel below sm_89 is refused by name."""
    text, first, instructions = KERNELS[name]
    arch = Arch.parse(arch_name)
    if arch.capability < first:
        with pytest.raises(QdotError, match=f"requires sm_{first} or later, got {arch_name}"):
            to_ptx(text, arch)
        return
    ptx = to_ptx(text, arch)
    assert f".target {arch_name}" in ptx and f".entry {name}(" in ptx
    missing = [i for i in instructions if not re.search(i, ptx)]
    assert not missing, f"{name} for {arch_name}: no {missing} in\n{ptx}"
    if find_ptxas() is not None:
        result = assemble(ptx, arch)
        assert result.ok, result.log
        assert [k.name for k in result.kernels] == [name]


def test_prmt_reference_follows_the_isa() -> None:
    """``_prmt``, the GPU test's reference, against bytes worked out by hand from the ISA's definition
    (default mode: {b, a} are bytes 7..0, a's low byte is byte 0; selector nibble j picks result
    byte j, and its bit 3 replaces the byte with its sign bit replicated)."""
    a, b = 0x8433_2211, 0x0877_6655
    assert _prmt(a, b, 0x3210) == a
    assert _prmt(a, b, 0x7654) == b
    assert _prmt(a, b, 0x0123) == 0x1122_3384
    assert _prmt(a, b, 0x4567) == 0x5566_7708
    assert _prmt(a, b, 0x000B) == 0x1111_11FF  # byte 3 (0x84) is negative: 0xFF
    assert _prmt(a, b, 0x000F) == 0x1111_1100  # byte 7 (0x08) is not: 0x00
    assert _prmt(a, b, 0xBBBB) == 0xFFFF_FFFF
    assert _prmt(a, b, 0xCCCC) == 0
