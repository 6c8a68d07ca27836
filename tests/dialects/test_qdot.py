"""The qdot dialect from Python: the format table, builders, verifiers, parsing and printing."""

from __future__ import annotations

import re
from fractions import Fraction
from io import StringIO

import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.test_value import create_ssa_value

from compiler.registry import make_context
from dialects.qdot import (
    BLOCK_PAIRS,
    Axis,
    AxisAttr,
    BlockType,
    DescType,
    DotScaledOp,
    Format,
    FormatAttr,
    LoadOp,
    MakeDescOp,
    NumProgramsOp,
    ProgramIdOp,
    PtrType,
    QDot,
    QuantizeOp,
    ScaleKind,
    StoreOp,
    TransOp,
    format_info,
    is_kernel,
    mark_kernel,
    num_warps,
    scale_info,
    scale_kind_of,
)
from dialects.qdot.formats import formats_of, is_supported_pair

I8 = IntegerType(8)
I32 = IntegerType(32)
F32 = Float32Type()
E4M3 = Float8E4M3FNType()
UE8M0 = Float8E8M0FNUType()


def tensor(shape: list[int], element: Attribute, encoding: Attribute | None = None):
    t = TensorType(element, shape) if encoding is None else TensorType(element, shape, encoding)
    return create_ssa_value(t)


# --- the format table -------------------------------------------------------------


def test_format_table_element_types() -> None:
    assert format_info(Format.E4M3).element_type == E4M3
    assert format_info(Format.E2M1).element_type == I8
    assert format_info(Format.BF16).element_type == BFloat16Type()
    assert format_info(Format.FP16).element_type == Float16Type()
    assert format_info(Format.Q4_K).element_type == BlockType(Format.Q4_K)
    assert format_info("q8_1_mmq").element_type == BlockType("q8_1_mmq")


def test_format_table_sizes() -> None:
    e2m1 = format_info(Format.E2M1)
    assert (e2m1.bits_per_value, e2m1.values_per_element, e2m1.element_bytes) == (4, 2, 1)
    assert e2m1.is_packed and not e2m1.is_block
    assert e2m1.values_per_byte == 2
    q4k = format_info(Format.Q4_K)
    assert (q4k.values_per_element, q4k.element_bytes, q4k.is_block) == (256, 144, True)
    assert q4k.storage_bits_per_value == Fraction(9, 2)
    assert format_info(Format.Q8_1).element_bytes == 36
    assert format_info(Format.Q8_0).element_bytes == 34
    assert format_info(Format.Q8_1_MMQ).values_per_element == 128
    assert format_info(Format.BF16).values_per_byte == Fraction(1, 2)
    assert format_info(Format.E2M3).element_bytes == 1


def test_format_view_is_read_from_the_format_table() -> None:
    """Every IR format and scale kind is an entry of compiler/format_table.py (the one table,
    also ``compiler.numerics``'s), and the view's packing rule keeps its memory per value."""
    from compiler.format_table import FORMATS, SCALE_GROUP

    for fmt in Format:
        entry = FORMATS[str(fmt)]
        ours = format_info(fmt)
        assert (ours.bits_per_value, ours.is_block) == (entry.bits, entry.is_block), fmt
        # two derivations of the same number: element bytes / values vs container bits / block sizes
        assert ours.storage_bits_per_value == entry.storage_bits_per_value, fmt
    for kind in ScaleKind:
        assert scale_info(kind).group_size == SCALE_GROUP[str(kind)]


def test_format_table_imports_without_numpy() -> None:
    """The reason the table lives outside ``compiler.numerics``: the dialects stay cheap to import."""
    import subprocess
    import sys
    from pathlib import Path

    code = "import sys, dialects.qdot.formats; assert 'numpy' not in sys.modules, 'numpy was imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


def test_unknown_format_name() -> None:
    with pytest.raises(ValueError, match="^'iq3_xxs' is not a valid Format$"):
        format_info("iq3_xxs")


def test_scale_kinds() -> None:
    assert scale_info(ScaleKind.UE8M0).group_size == 32
    assert scale_info("ue4m3").group_size == 16
    assert scale_info(ScaleKind.UE4M3).only_format == Format.E2M1
    assert scale_kind_of(UE8M0) == ScaleKind.UE8M0
    assert scale_kind_of(E4M3) == ScaleKind.UE4M3
    assert scale_kind_of(F32) is None


def test_pairings() -> None:
    assert len(BLOCK_PAIRS) == 65
    assert is_supported_pair(Format.Q6_K, Format.Q8_1_MMQ) and is_supported_pair(Format.Q8_1, Format.Q6_K)
    assert not is_supported_pair(Format.Q6_K, Format.Q8_0) and not is_supported_pair(Format.Q6_K, Format.Q4_K)
    assert is_supported_pair(Format.Q5_K, Format.Q8_1) and is_supported_pair(Format.Q8_1_MMQ, Format.Q5_K)
    assert not is_supported_pair(Format.Q5_K, Format.Q8_0) and not is_supported_pair(Format.Q5_K, Format.Q5_K)
    assert is_supported_pair(Format.Q4_K, Format.Q8_1_MMQ)
    assert is_supported_pair(Format.Q4_1, Format.Q8_1) and is_supported_pair(Format.Q8_1_MMQ, Format.Q4_1)
    assert not is_supported_pair(Format.Q4_1, Format.Q8_0) and not is_supported_pair(Format.Q4_1, Format.Q4_0)
    assert is_supported_pair(Format.Q5_0, Format.Q8_0) and is_supported_pair(Format.Q8_1_MMQ, Format.Q5_0)
    assert is_supported_pair(Format.Q5_1, Format.Q8_1) and not is_supported_pair(Format.Q5_1, Format.Q8_0)
    assert is_supported_pair(Format.MXFP4, Format.Q8_0) and is_supported_pair(Format.Q8_1_MMQ, Format.MXFP4)
    assert not is_supported_pair(Format.MXFP4, Format.Q4_0) and not is_supported_pair(Format.MXFP4, Format.E4M3)
    assert is_supported_pair(Format.Q3_K, Format.Q8_1_MMQ) and is_supported_pair(Format.Q8_1, Format.Q3_K)
    assert not is_supported_pair(Format.Q3_K, Format.Q8_0) and not is_supported_pair(Format.Q3_K, Format.Q6_K)
    assert is_supported_pair(Format.Q2_K, Format.Q8_1_MMQ) and is_supported_pair(Format.Q8_1, Format.Q2_K)
    assert not is_supported_pair(Format.Q2_K, Format.Q8_0) and not is_supported_pair(Format.Q2_K, Format.Q3_K)
    assert is_supported_pair(Format.IQ4_NL, Format.Q8_0) and is_supported_pair(Format.Q8_1_MMQ, Format.IQ4_NL)
    assert not is_supported_pair(Format.IQ4_NL, Format.Q4_0) and not is_supported_pair(Format.IQ4_NL, Format.IQ4_NL)
    assert is_supported_pair(Format.IQ4_XS, Format.Q8_1_MMQ) and is_supported_pair(Format.Q8_1, Format.IQ4_XS)
    assert not is_supported_pair(Format.IQ4_XS, Format.Q8_0) and not is_supported_pair(Format.IQ4_XS, Format.IQ4_NL)
    assert is_supported_pair(Format.Q8_1_MMQ, Format.Q8_1)
    assert not is_supported_pair(Format.Q4_K, Format.Q4_K)
    assert is_supported_pair(Format.Q8_1_MMQ, Format.Q4_0) and is_supported_pair(Format.Q4_0, Format.Q8_0)
    assert not is_supported_pair(Format.Q4_0, Format.Q4_0) and not is_supported_pair(Format.Q4_0, Format.Q4_K)
    assert not is_supported_pair(Format.Q4_K, Format.BF16)
    assert not is_supported_pair(Format.I8, Format.E4M3)
    assert is_supported_pair(Format.BF16, Format.E2M1)
    assert formats_of(I8) == (Format.E2M1, Format.I8)


# --- dot_scaled built from Python ----------------------------------------------------


def test_dot_scaled_builds_and_verifies() -> None:
    a, b = tensor([128, 128], E4M3), tensor([64, 128], I8)
    a_scale, b_scale = tensor([128, 4], UE8M0), tensor([128, 4], UE8M0)
    acc = tensor([128, 128], F32)
    op = DotScaledOp(a, b, acc, lhs=Format.E4M3, rhs=Format.E2M1, a_scale=a_scale, b_scale=b_scale)
    op.verify()
    assert op.result.type == acc.type
    assert (op.lhs, op.rhs) == (Format.E4M3, Format.E2M1)
    assert op.lhs_k_packed and op.rhs_k_packed and not op.is_fast_math
    problem = op.problem()
    assert (problem.m, problem.n, problem.k) == (128, 128, 128)
    assert problem.scale_kind == ScaleKind.UE8M0


def test_dot_scaled_problem_of_packed_and_blocked_shapes() -> None:
    # lhs packed along M: [M/2, K]
    op = DotScaledOp(tensor([64, 64], I8), tensor([64, 32], BFloat16Type()), tensor([128, 32], F32),
                     lhs="e2m1", rhs="bf16", lhs_k_pack=False)
    op.verify()
    assert (op.problem().m, op.problem().k) == (128, 64)
    # q4_K x q8_1: [M, K/256] x [K/32, N]
    op = DotScaledOp(tensor([16, 4], BlockType("q4_K")), tensor([32, 64], BlockType("q8_1")),
                     tensor([16, 64], F32), lhs="q4_K", rhs="q8_1")
    op.verify()
    assert (op.problem().m, op.problem().n, op.problem().k) == (16, 64, 1024)
    # i8 x i8 accumulates in i32
    op = DotScaledOp(tensor([16, 32], I8), tensor([32, 8], I8), tensor([16, 8], I32), lhs="i8", rhs="i8")
    op.verify()


def test_dot_scaled_ignores_encodings() -> None:
    op = DotScaledOp(tensor([32, 64], BFloat16Type(), StringAttr("dot_a")),
                     tensor([32, 16], I8, StringAttr("dot_b")),
                     tensor([32, 16], F32, StringAttr("acc")),
                     lhs=Format.BF16, rhs=Format.E2M1, b_scale=tensor([16, 2], UE8M0, StringAttr("s")))
    op.verify()


def _dot(a: tuple[list[int], Attribute], b: tuple[list[int], Attribute], acc: tuple[list[int], Attribute],
         lhs: str, rhs: str, a_scale: tuple[list[int], Attribute] | None = None,
         b_scale: tuple[list[int], Attribute] | None = None, **kwargs: bool) -> DotScaledOp:
    return DotScaledOp(
        tensor(*a), tensor(*b), tensor(*acc), lhs=lhs, rhs=rhs,
        a_scale=tensor(*a_scale) if a_scale else None,
        b_scale=tensor(*b_scale) if b_scale else None, **kwargs)


BF16 = BFloat16Type()
Q4K = BlockType("q4_K")
Q81 = BlockType("q8_1")

INVALID_DOTS = [
    (lambda: _dot(([2, 8, 8], BF16), ([8, 8], BF16), ([8, 8], F32), "bf16", "bf16"),
     "lhs must have rank 2, got rank 3 ([2, 8, 8])"),
    (lambda: _dot(([8, 8], E4M3), ([8, 8], BF16), ([8, 8], F32), "e4m3", "bf16", lhs_k_pack=False),
     "lhs_k_pack = false needs lhs = e2m1, got lhs = e4m3"),
    (lambda: _dot(([8, 8], BF16), ([8, 8], BF16), ([8, 8], F32), "e4m3", "bf16"),
     "lhs = e4m3 needs element type f8E4M3FN, got bf16"),
    (lambda: _dot(([8, 8], BF16), ([8, 8], Float4E2M1FNType()), ([8, 8], F32), "bf16", "e2m1"),
     "rhs = e2m1 needs element type i8 (2 values per byte), got f4E2M1FN"),
    (lambda: _dot(([8, 8], I8), ([8, 8], E4M3), ([8, 8], F32), "i8", "e4m3"),
     "i8 pairs only with i8: lhs = i8, rhs = e4m3"),
    (lambda: _dot(([16, 4], Q4K), ([1024, 8], BF16), ([16, 8], F32), "q4_K", "bf16"),
     "block formats pair only with block formats: lhs = q4_K, rhs = bf16"),
    (lambda: _dot(([16, 4], Q4K), ([4, 8], Q4K), ([16, 8], F32), "q4_K", "q4_K"),
     "unsupported block pair lhs = q4_K, rhs = q4_K"),
    (lambda: _dot(([16, 4], Q4K), ([32, 8], Q81), ([16, 8], F32), "q4_K", "q8_1", a_scale=([16, 32], UE8M0)),
     "lhs = q4_K carries its scales inside its blocks and takes no lhs scale"),
    (lambda: _dot(([8, 64], BF16), ([64, 8], BF16), ([8, 8], F32), "bf16", "bf16", b_scale=([8, 2], UE8M0)),
     "rhs scale needs a scalable rhs format (e4m3, e5m2, e2m3, e3m2, e2m1), got rhs = bf16"),
    (lambda: _dot(([8, 64], E4M3), ([64, 8], BF16), ([8, 8], F32), "e4m3", "bf16", a_scale=([8, 2], F32)),
     "lhs scale must have element type f8E8M0FNU (ue8m0) or f8E4M3FN (ue4m3), got f32"),
    (lambda: _dot(([8, 64], E4M3), ([64, 8], BF16), ([8, 8], F32), "e4m3", "bf16", a_scale=([8, 4], E4M3)),
     "lhs scale of element type f8E4M3FN (ue4m3) needs lhs = e2m1, got lhs = e4m3"),
    (lambda: _dot(([8, 32], I8), ([32, 8], I8), ([8, 8], F32), "e2m1", "e2m1",
                  a_scale=([8, 4], E4M3), b_scale=([8, 2], UE8M0)),
     "lhs scale and rhs scale must use the same scale kind, got ue4m3 and ue8m0"),
    (lambda: _dot(([8, 33], BF16), ([16, 8], I8), ([8, 8], F32), "bf16", "e2m1"),
     "K = 33 from lhs [M, K] = [8, 33] must be a multiple of 2, rhs = e2m1 packed 2 per byte along K"),
    (lambda: _dot(([16, 3], Q81), ([1, 8], Q4K), ([16, 8], F32), "q8_1", "q4_K"),
     "K = 96 from lhs [M, K/32] = [16, 3] must be a multiple of 256, the q4_K block size of rhs"),
    (lambda: _dot(([128, 128], E4M3), ([32, 128], I8), ([128, 128], F32), "e4m3", "e2m1"),
     "K of lhs and rhs must match: lhs [M, K] = [128, 128] gives K = 128, rhs [K/2, N] = [32, 128] gives K = 64"),
    (lambda: _dot(([8, 48], E4M3), ([48, 8], BF16), ([8, 8], F32), "e4m3", "bf16", a_scale=([8, 1], UE8M0)),
     "K = 48 must be a multiple of 32 for ue8m0 scales (lhs scale)"),
    (lambda: _dot(([128, 128], E4M3), ([64, 128], I8), ([128, 128], F32), "e4m3", "e2m1",
                  a_scale=([128, 4], UE8M0), b_scale=([128, 8], UE8M0)),
     "rhs scale must have shape [N, K/32] = [128, 4], got [128, 8]"),
    (lambda: _dot(([8, 16], BF16), ([16, 8], BF16), ([8, 16], F32), "bf16", "bf16"),
     "acc must have shape [M, N] = [8, 8], got [8, 16]"),
    (lambda: _dot(([8, 16], BF16), ([16, 8], BF16), ([8, 8], Float16Type()), "bf16", "bf16"),
     "acc must have element type f32, got f16"),
    (lambda: _dot(([8, 16], I8), ([16, 8], I8), ([8, 8], F32), "i8", "i8"),
     "acc must have element type i32 for i8 × i8, got f32"),
]


@pytest.mark.parametrize(("build", "message"), INVALID_DOTS, ids=[m[:40] for _, m in INVALID_DOTS])
def test_dot_scaled_verifier_rejects(build, message: str) -> None:
    op = build()
    with pytest.raises(VerifyException, match=re.escape(message)):
        op.verify()


def test_dot_scaled_result_type_must_match_acc() -> None:
    op = DotScaledOp(tensor([8, 16], BF16), tensor([16, 8], BF16), tensor([8, 8], F32), lhs="bf16", rhs="bf16",
                     result_type=TensorType(F32, [8, 16]))
    with pytest.raises(VerifyException, match="expected from variable 'T'"):
        op.verify()


# --- types ---------------------------------------------------------------------------


def test_block_type_rejects_element_formats() -> None:
    with pytest.raises(VerifyException, match=r"!qdot.block needs a block format .*, got e4m3"):
        BlockType(Format.E4M3)


def test_ptr_and_desc_types() -> None:
    assert PtrType(Q4K).pointee == Q4K
    with pytest.raises(VerifyException, match="!qdot.ptr element type must be"):
        PtrType(IndexType())
    desc = DescType([64, 128], E4M3)
    assert (desc.get_shape(), desc.rank, desc.element_type) == ((64, 128), 2, E4M3)
    with pytest.raises(VerifyException, match="tile dimensions must be static and positive, got 0x4"):
        DescType([0, 4], F32)


# --- kernel ops ------------------------------------------------------------------------


def test_kernel_ops_build_and_verify() -> None:
    pid = ProgramIdOp("x")
    assert pid.axis == AxisAttr(Axis.X) and pid.axis.index == 0 and pid.result.type == IndexType()
    NumProgramsOp(Axis.Z).verify()
    index = create_ssa_value(IndexType())
    ptr = create_ssa_value(PtrType(E4M3))
    make = MakeDescOp(ptr, [index, index], [index, index], DescType([64, 128], E4M3))
    make.verify()
    load = LoadOp(make.result, [index, index], TensorType(E4M3, [64, 128]))
    load.verify()
    StoreOp(make.result, [index, index], load.result).verify()
    trans = TransOp(load.result, [1, 0])
    trans.verify()
    assert trans.result.type == TensorType(E4M3, [128, 64])
    assert trans.permutation() == (1, 0)


def test_kernel_op_verifiers() -> None:
    index = create_ssa_value(IndexType())
    ptr = create_ssa_value(PtrType(Float16Type()))
    with pytest.raises(VerifyException, match=re.escape("strides must have one value per tile dimension: 2, got 1")):
        MakeDescOp(ptr, [index, index], [index], DescType([64, 64], Float16Type())).verify()
    with pytest.raises(VerifyException, match="descriptor element type must match the pointer's: f16, got bf16"):
        MakeDescOp(ptr, [index, index], [index, index], DescType([64, 64], BF16)).verify()
    desc = create_ssa_value(DescType([64, 64], Float16Type()))
    with pytest.raises(VerifyException, match=re.escape("result must have the tile shape [64, 64], got [64, 32]")):
        LoadOp(desc, [index, index], TensorType(Float16Type(), [64, 32])).verify()
    with pytest.raises(VerifyException, match="expected one offset per tile dimension: 2, got 1"):
        StoreOp(desc, [index], tensor([64, 64], Float16Type())).verify()
    with pytest.raises(VerifyException, match=re.escape("order must be a permutation of [0, 2)")):
        TransOp(tensor([4, 8], F32), [0, 0], TensorType(F32, [4, 4])).verify()


def test_quantize_infers_and_checks_block_count() -> None:
    x = tensor([16, 4096], F32)
    q = QuantizeOp(x, Format.Q8_1)
    q.verify()
    assert q.result.type == TensorType(BlockType("q8_1"), [16, 128])
    mmq = QuantizeOp(x, "q8_1_mmq")
    mmq.verify()
    assert mmq.result.type == TensorType(BlockType("q8_1_mmq"), [16, 32])
    with pytest.raises(VerifyException, match=re.escape("result must have shape [16, 128]")):
        QuantizeOp(x, Format.Q8_1, TensorType(BlockType("q8_1"), [16, 64])).verify()
    with pytest.raises(VerifyException, match="format must be q8_1 or q8_1_mmq, got q8_0"):
        QuantizeOp(x, Format.Q8_0).verify()
    with pytest.raises(VerifyException, match="must be a multiple of 32, the q8_1 block size"):
        QuantizeOp(tensor([4, 100], F32), Format.Q8_1, TensorType(BlockType("q8_1"), [4, 3])).verify()


def test_kernel_marking() -> None:
    func = FuncOp("k", ((), ()))
    assert not is_kernel(func)
    assert num_warps(func) == 4
    mark_kernel(func, warps=8)
    assert is_kernel(func) and num_warps(func) == 8


# --- text: parse, print, round trip -------------------------------------------------------


def _parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _print(op: Operation, generic: bool = False) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(op)
    return stream.getvalue()


DESIGN_EXAMPLE = """
func.func @f(%a: tensor<128x128xf8E4M3FN>, %as: tensor<128x4xf8E8M0FNU>, %b: tensor<64x128xi8>,
             %bs: tensor<128x4xf8E8M0FNU>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %d = qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e2m1
       : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x4xf8E8M0FNU>
       -> tensor<128x128xf32>
  func.return %d : tensor<128x128xf32>
}
"""


def test_parse_design_example_and_round_trip() -> None:
    module = _parse(DESIGN_EXAMPLE)
    dot = next(op for op in module.walk() if isinstance(op, DotScaledOp))
    assert (dot.problem().m, dot.problem().n, dot.problem().k) == (128, 128, 128)
    custom = _print(module)
    assert ("qdot.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e2m1 : tensor<128x128xf8E4M3FN>, "
            "tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x4xf8E8M0FNU> -> tensor<128x128xf32>") in custom
    generic = _print(module, generic=True)
    assert _print(_parse(generic)) == custom
    assert _print(_parse(custom)) == custom


def test_built_op_prints_like_parsed_op() -> None:
    op = DotScaledOp(tensor([32, 64], BF16), tensor([32, 16], I8), tensor([32, 16], F32),
                     lhs=Format.BF16, rhs=Format.E2M1, b_scale=tensor([16, 2], UE8M0), fast_math=True)
    text = _print(op)
    assert "lhs = bf16 rhs = e2m1 {fast_math = true} : tensor<32x64xbf16> * tensor<32x16xi8>, " \
           "tensor<16x2xf8E8M0FNU> -> tensor<32x16xf32>" in text
    assert "k_pack" not in text


def test_format_attr_prints_standalone() -> None:
    module = _parse('"test.op"() {f = #qdot<format e2m1>} : () -> ()')
    op = next(iter(module.body.block.ops))
    assert op.attributes["f"] == FormatAttr(Format.E2M1)
    assert "#qdot<format e2m1>" in _print(module)


def test_bad_block_name_is_a_parse_error_listing_choices() -> None:
    choices = "`q4_K`, `q4_0`, `q4_1`, `q5_0`, `q5_1`, `q5_K`, `q6_K`, `q3_K`, `q2_K`, `iq4_nl`, `iq4_xs`, `mxfp4`, `q8_1`, `q8_0`, `q8_1_mmq`"
    with pytest.raises(ParseError, match=f"expected a block format: one of {choices}, got `iq3_xxs`"):
        _parse("func.func @f(%x: tensor<4x!qdot.block<iq3_xxs>>) { func.return }")


def test_dialect_lists_everything() -> None:
    names = {op.name for op in QDot.operations}
    assert names == {"qdot.dot_scaled", "qdot.program_id", "qdot.num_programs", "qdot.make_desc",
                     "qdot.load", "qdot.store", "qdot.prefetch", "qdot.trans", "qdot.quantize", "qdot.last_arrival",
                     "qdot.barrier"}
    assert {attr.name for attr in QDot.attributes} == {"qdot.format", "qdot.axis", "qdot.block", "qdot.ptr",
                                                       "qdot.desc"}
