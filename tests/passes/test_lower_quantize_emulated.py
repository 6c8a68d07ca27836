"""qdot-lower-quantize without a GPU: the compiled quantize kernels run in the PTX emulator.

Each kernel goes through the default PTX pipeline (the same IR the GPU test turns into
PTX) and runs CTA by CTA in ``targets.ptx.emulator``, whose shuffles, conversions and
predicated memory ops follow the PTX ISA and whose f32 arithmetic is IEEE. The bytes
must equal ``compiler.numerics.quantize`` (method "cuda") exactly, on the inputs and
checks of ``tests/gpu/quantize_harness.py``.

Before emulation the ``!qdot.ptr`` → i64 casts the pass leaves (identity casts once
``qdot-to-llvm`` has retyped the kernel arguments) are removed with xDSL's
reconcile-unrealized-casts; the emulator does not execute casts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass

from compiler import numerics, registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from compiler.numerics.f32ops import fp16_bits, sequential_sum
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.quantize_template import QuantizeConfig, quantize_grid, quantize_kernel
from targets.ptx.emulator import emulate
from tests.gpu.quantize_harness import QuantizeCase, activations, check, poisoned_output, reference

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quantize_q8_1_mmq.mlir"

CASES = [
    QuantizeCase("q8_1_mmq", 1, 4096),
    QuantizeCase("q8_1_mmq", 7, 1000),  # ragged K: the last block is padded with zeros
    QuantizeCase("q8_1_mmq", 512, 128),
    QuantizeCase("q8_1_mmq", 5, 640, rows_per_program=4, block_k=256, num_warps=2),  # an scf.for of steps
    QuantizeCase("q8_1", 7, 300),
    QuantizeCase("q8_1", 3, 5),  # K shorter than one block
    QuantizeCase("q8_1", 7, 200, rows_per_program=3, block_k=128),  # 12 groups for 16 slots: idle lanes
]


def lowered(case: QuantizeCase) -> ModuleOp:
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(case.source(), False)[0], case.label)
    build_pipeline(registry.pass_factories(), ptx_pipeline(PtxOptions(arch=case.arch))).apply(ctx, module)
    ReconcileUnrealizedCastsPass().apply(ctx, module)
    return module


def emulated(case: QuantizeCase, x: np.ndarray) -> np.ndarray:
    out = poisoned_output(case)
    emulate(lowered(case), case.config.name, [x, out, case.m, case.k], grid=case.grid[0])
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_emulated_kernel_matches_numerics(case: QuantizeCase) -> None:
    x = activations(case.m, case.k, np.random.default_rng())
    problem = check(case, emulated(case, x), reference(case, x))
    assert problem is None, problem


def test_inputs_tell_the_ggml_quantizers_apart() -> None:
    """The inputs are sharp enough that llama.cpp's other roundings (x · 1/d, a per-thread
    sum order) or another order of the additions would fail the comparison, so the tests
    above check the arithmetic, not only the layout."""
    x = activations(16, 1024, np.random.default_rng(1))
    cuda = numerics.quantize("q8_1_mmq", x)
    for method in ("cuda_mmq", "ref"):
        assert not np.array_equal(cuda, numerics.quantize("q8_1_mmq", x, method=method)), method
    # and the stored sums depend on the order of the additions: a plain loop gives other f16 bits
    groups = x.reshape(16, -1, 32)
    in_loop_order = sequential_sum(np.moveaxis(groups, -1, 0))
    stored = numerics.block_fields("q8_1_mmq", cuda).s.reshape(in_loop_order.shape)
    assert (fp16_bits(in_loop_order) != fp16_bits(stored)).any()


def test_rounding_is_half_away_from_zero() -> None:
    """d = 1 and x = n + 0.5: roundf, not cvt.rni's half to even."""
    case = QuantizeCase("q8_1", 1, 32, block_k=32, num_warps=1)
    x = np.array([[127.0, -127.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5] + [0.0] * 24], dtype=np.float32)
    out = emulated(case, x)
    quants = out[0, 4:12].view(np.int8)
    assert quants.tolist() == [127, -127, 1, -1, 2, -2, 3, -3]


def test_example_is_the_template_output() -> None:
    assert EXAMPLE.read_text(encoding="utf-8") == quantize_kernel()


def test_grid_covers_every_tile() -> None:
    assert quantize_grid(7, 1000) == (7 * 2, 1, 1)
    assert quantize_grid(5, 640, rows_per_program=4, block_k=256) == (2 * 3, 1, 1)


@pytest.mark.parametrize("kwargs,message", [
    ({"fmt": "q4_K"}, "fmt must be one of q8_1, q8_1_mmq"),
    ({"block_k": 96}, "block_k must be a positive multiple of 128"),
    ({"rows_per_program": 0}, "must be positive"),
])
def test_config_rejects_bad_requests(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QuantizeConfig(**kwargs)
