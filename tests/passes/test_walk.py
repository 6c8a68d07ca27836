"""``passes.support.walk.ops_in`` and ``dialects.ptx.check``'s op collection agree with ``Operation.walk()``.

Both replace xDSL's generator walk for speed (docs in the modules); a different order or a
missed nesting level would change which op a diagnostic names or which ops a clean-up sees.
"""

from __future__ import annotations

from pathlib import Path

from compiler import registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from compiler.pipelines import PtxOptions, ptx_pipeline
from dialects.ptx.check import _ptx_instructions
from dialects.ptx.ops import PtxInstruction
from passes.support.walk import ops_in

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "q4k_decode.mlir"


def _modules():
    """The decode example before any pass (scf loops, nested regions) and fully lowered to ptx ops."""
    ctx = registry.make_context()
    text = split_chunks(EXAMPLE.read_text(), False)[0]
    yield parse_module(ctx, text, EXAMPLE.name)
    lowered = parse_module(ctx, text, EXAMPLE.name)
    build_pipeline(registry.pass_factories(), ptx_pipeline(PtxOptions(arch="sm_90")), verify_each=False).apply(
        ctx, lowered)
    yield lowered


def test_ops_in_is_walk_order() -> None:
    for module in _modules():
        walked = list(module.walk())
        assert len(walked) > 10
        assert [id(op) for op in ops_in(module)] == [id(op) for op in walked]


def test_check_arch_collects_every_ptx_op_in_walk_order() -> None:
    *_, lowered = _modules()
    walked = [op for op in lowered.walk() if isinstance(op, PtxInstruction)]
    assert len(walked) > 100
    assert [id(op) for op in _ptx_instructions(lowered, [])] == [id(op) for op in walked]
