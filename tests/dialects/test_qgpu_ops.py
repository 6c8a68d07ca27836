"""qgpu ops built from Python (what passes do) verify, infer their result types and print as documented."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E8M0FNUType,
    Float32Type,
    IndexType,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from compiler import registry
from dialects.qgpu import (
    QGPU,
    AsyncWaitOp,
    ConvertLayoutOp,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    LocalAllocOp,
    LocalLoadOp,
    MemDescIndexOp,
    MemDescTransOp,
    MemDescType,
    MmaEncodingAttr,
    MmaOp,
    Rescale,
    SharedEncodingAttr,
    UpcastOp,
)
from dialects.qgpu.layouts import describe_module_layouts

I8 = IntegerType(8)
F32 = Float32Type()
MMA = MmaEncodingAttr([2, 2])


def printed(op) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def test_dialect_lists_every_op_and_attribute() -> None:
    names = {op.name for op in QGPU.operations}
    assert names == {"qgpu.local_alloc", "qgpu.local_load", "qgpu.local_store", "qgpu.async_copy",
                     "qgpu.async_commit", "qgpu.async_wait", "qgpu.memdesc_index", "qgpu.memdesc_trans",
                     "qgpu.convert_layout", "qgpu.mma", "qgpu.upcast", "qgpu.block_part",
                     "qgpu.warp_group_dot", "qgpu.warp_group_dot_wait"}
    assert {a.name for a in QGPU.attributes} >= {"qgpu.blocked", "qgpu.mma", "qgpu.dot_op", "qgpu.dot_scale",
                                                 "qgpu.shared", "qgpu.memdesc"}


def test_registry_loads_qgpu_lazily() -> None:
    ctx = registry.make_context()
    text = ('"test.op"() {e = #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, '
            'warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>} : () -> ()')
    module = Parser(ctx, text).parse_module()
    attr = next(iter(module.body.block.ops)).attributes["e"]
    assert isinstance(attr, DotOperandEncodingAttr) and attr.k_width == 4


def test_index_and_trans_infer_their_result_types() -> None:
    shared = SharedEncodingAttr(16, 2, 4, [1, 0], True)
    ring = create_ssa_value(MemDescType([3, 32, 64], I8, shared, mutable=True))
    stage = MemDescIndexOp(ring, create_ssa_value(IndexType()))
    stage.verify()
    assert stage.result.type == MemDescType([32, 64], I8, shared, mutable=True)
    view = MemDescTransOp(stage.result, [1, 0])
    view.verify()
    assert view.result.type == MemDescType([64, 32], I8, shared.with_order([0, 1]), mutable=True)
    assert view.permutation() == (1, 0)


def test_mma_builder_and_rescale_default() -> None:
    a = create_ssa_value(TensorType(Float8E4M3FNType(), [32, 64], DotOperandEncodingAttr(0, MMA, 4)))
    b = create_ssa_value(TensorType(I8, [32, 16], DotOperandEncodingAttr(1, MMA, 2, True)))
    c = create_ssa_value(TensorType(F32, [32, 16], MMA))
    plain = MmaOp(a, b, c, "e4m3", "e2m1")
    plain.verify()
    assert plain.rescale_mode == Rescale.NONE and plain.result.type == c.type
    sa = create_ssa_value(TensorType(Float8E8M0FNUType(), [32, 2], DotScaleEncodingAttr(0, MMA)))
    sb = create_ssa_value(TensorType(Float8E8M0FNUType(), [16, 2], DotScaleEncodingAttr(1, MMA, operand=True)))
    scaled = MmaOp(a, b, c, "e4m3", "e2m1", sa, sb, rescale="hw")
    scaled.verify()
    assert scaled.rescale_mode == Rescale.HW
    assert 'scale %' in printed(scaled) and '{rescale = "hw"}' in printed(scaled)
    with pytest.raises(VerifyException, match="rescale = \"hw\" needs scale operands"):
        MmaOp(a, b, c, "e4m3", "e2m1", rescale="hw").verify()


def test_upcast_and_convert_layout_builders() -> None:
    src = create_ssa_value(TensorType(I8, [32, 32], DotOperandEncodingAttr(0, MMA, 4)))
    up = UpcastOp(src, "e2m1", "bf16", TensorType(BFloat16Type(), [32, 64], DotOperandEncodingAttr(0, MMA, 8)))
    up.verify()
    assert (up.source, up.target) == ("e2m1", "bf16")
    cvt = ConvertLayoutOp(up.result, TensorType(BFloat16Type(), [32, 64], DotOperandEncodingAttr(0, MMA, 4)))
    cvt.verify()


def test_local_load_fallback_flag_and_async_wait() -> None:
    buffer = create_ssa_value(MemDescType([32, 64], I8, SharedEncodingAttr(16, 1, 4, [1, 0])))
    result = TensorType(I8, [32, 64], DotOperandEncodingAttr(0, MMA, 4, True))
    with pytest.raises(VerifyException, match="fp4Padded source buffer"):
        LocalLoadOp(buffer, result).verify()
    op = LocalLoadOp(buffer, result, fallback=True)
    op.verify()
    assert op.is_fallback and "{fallback}" in printed(op)
    wait = AsyncWaitOp(3)
    assert wait.num_pending == 3 and printed(wait).strip() == "qgpu.async_wait {pending = 3}"


def test_local_alloc_without_source_must_be_mutable() -> None:
    with pytest.raises(VerifyException, match="must be mutable"):
        LocalAllocOp(MemDescType([16, 64], I8, SharedEncodingAttr(16, 2, 4, [1, 0]))).verify()
    LocalAllocOp(MemDescType([2, 16, 64], I8, SharedEncodingAttr(16, 2, 4, [1, 0]), mutable=True)).verify()


def test_describe_lists_types_in_order_of_first_appearance() -> None:
    block = Block(arg_types=[TensorType(F32, [32, 16], MMA), MemDescType([8, 16], I8, SharedEncodingAttr(1, 1, 1, [1, 0]))])
    module = ModuleOp(Region(block))
    text = describe_module_layouts(module)
    first, second = text.index("tensor<32x16xf32"), text.index("!qgpu.memdesc<8x16xi8")
    assert first < second
    assert "warp 3 lane 31 reg 3: (31, 15)" in text
    assert "row 7 (d0=7): [0..15]@112" in text
    assert describe_module_layouts(ModuleOp([])).startswith("// no distributed tensor")
