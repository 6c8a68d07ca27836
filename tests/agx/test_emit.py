"""targets.agx.emitter.emit: the instruction stream and the fragment map, in hex, bin and asm."""

from __future__ import annotations

import re

import pytest

from compiler.diagnostics import QdotError
from targets.agx import decode_mma8, emit, format_mma8, parse_mma8
from targets.agx.tiles import FULL_PIPELINE, Tile, compile_ir, tile_ir

TILE = Tile(16, 16, 32, "e2m1", "e4m3", "ue8m0")


@pytest.fixture(params=["agx3b", "agx3c"])
def lowered(request: pytest.FixtureRequest):
    return request.param, compile_ir(tile_ir(TILE), FULL_PIPELINE % request.param)


def test_bin_is_the_instructions_back_to_back(lowered) -> None:
    form, module = lowered
    data = emit(module, form, "bin")
    length = {"agx3b": 12, "agx3c": 14}[form]
    assert isinstance(data, bytes) and len(data) == 16 * length  # 2x2 blocks x 4 K steps
    assert [format_mma8(decode_mma8(data[i:], form)) for i in range(0, len(data), length)]


def test_hex_and_asm_say_the_same(lowered) -> None:
    form, module = lowered
    hex_lines = [line for line in emit(module, form, "hex").splitlines() if not line.startswith("//")]
    asm_lines = [line for line in emit(module, form, "asm").splitlines() if not line.startswith("//")]
    assert len(hex_lines) == len(asm_lines) == 16
    for hex_line, asm_line in zip(hex_lines, asm_lines, strict=True):
        assert format_mma8(decode_mma8(bytes.fromhex(hex_line), form)) == asm_line
        assert parse_mma8(asm_line) == decode_mma8(bytes.fromhex(hex_line), form)
    assert bytes.fromhex("".join(hex_lines)) == emit(module, form, "bin")


def test_the_map_names_every_fragment(lowered) -> None:
    form, module = lowered
    text = emit(module, form, "asm")
    assert "not a whole shader" in text
    assert "D[16x16] += A[16x32] * B[32x16] on one simdgroup, 16 mma8" in text
    loads = re.findall(r"^//   before (\d+)\s+(\S+)\s+(fp16|fp32)\s+(lhs|rhs|acc)\s+(\[\S+ \S+\])\s+(.*)$", text, re.M)
    assert len(loads) == 4 + 4 * (2 + 2)  # C blocks, then per K step 2 A and 2 B
    assert ("lhs", "[0:8, 8:16]", "%a (e2m1, scale %a_scale ue8m0)") in {(l[3], l[4], l[5].split("  ")[0]) for l in loads}
    stores = re.findall(r"^//   end\s+(\S+)\s+fp32\s+D\s+(\[.*\])$", text, re.M)
    assert [block for _, block in stores] == ["[0:8, 0:8]", "[0:8, 8:16]", "[8:16, 0:8]", "[8:16, 8:16]"]
    assert all(re.search(r"slot \d", line[5]) for line in loads)


def test_emit_needs_registers() -> None:
    module = compile_ir(tile_ir(TILE), "qdot-to-agx")
    with pytest.raises(QdotError, match="no register; run agx-allocate-registers before emitting"):
        emit(module, "agx3b", "hex")


def test_emit_needs_a_lowered_tile() -> None:
    module = compile_ir(tile_ir(TILE), "")
    with pytest.raises(QdotError, match="no agx.mma8 to emit; lower the dot with qdot-to-agx first"):
        emit(module, "agx3b", "hex")


def test_form_must_match_the_lowering() -> None:
    module = compile_ir(tile_ir(TILE), FULL_PIPELINE % "agx3c")
    with pytest.raises(QdotError, match=r"lowered for agx3c; emit it for agx3c or lower it with qdot-to-agx\{form=agx3b\}"):
        emit(module, "agx3b", "hex")


def test_encoder_refusal_becomes_a_diagnostic_on_the_op() -> None:
    text = """
    func.func @t(%x: tensor<8x8xf16>, %w: tensor<8x8xf16>) -> tensor<8x8xf32> {
      %a = agx.load_frag lhs %x[0, 0] slot 7 : tensor<8x8xf16> -> !agx.frag<fp16, r0>
      %b = agx.load_frag rhs %w[0, 0] slot 7 : tensor<8x8xf16> -> !agx.frag<fp16, r2>
      %d = agx.mma8 %a, %b, zero wait [7] : !agx.frag<fp16, r0>, !agx.frag<fp16, r2> -> !agx.frag<fp32, r4>
      %r = agx.store_tile %d : !agx.frag<fp32, r4> -> tensor<8x8xf32>
      func.return %r : tensor<8x8xf32>
    }
    """
    module = compile_ir(text, "")
    assert len(emit(module, "agx3c", "bin")) == 14
    with pytest.raises(QdotError, match=r"'agx.mma8' op cannot encode for agx3b: wait slot 7 does not exist on agx3b"):
        emit(module, "agx3b", "bin")


def test_unknown_output_format() -> None:
    module = compile_ir(tile_ir(TILE), FULL_PIPELINE % "agx3b")
    with pytest.raises(ValueError, match="unknown AGX output format 'elf', expected one of: hex, bin, asm"):
        emit(module, "agx3b", "elf")
