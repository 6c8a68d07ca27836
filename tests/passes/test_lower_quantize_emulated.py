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

import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass

from compiler import numerics, registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from compiler.numerics.f32ops import fp16_bits, roundf, sequential_sum
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.quantize_template import QuantizeConfig, quantize_grid, quantize_kernel
from dialects.qdot.formats import Format
from passes.lower_quantize import BELOW_HALF, Q8BlockLayout, QuantizePlan, Strategy
from targets.ptx.emulator import emulate
from tests.gpu.quantize_harness import (
    QuantizeCase,
    activations,
    check,
    check_zeroed,
    poisoned_output,
    poisoned_y,
    reference,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quantize_q8_1_mmq.mlir"

CASES = [
    # the default kernel (one-row tiles for M <= 32, 8x128 while M * K <= 2^21, 8x512 above): both strategies
    QuantizeCase("q8_1_mmq", 1, 4096),  # lanes
    QuantizeCase("q8_1_mmq", 7, 1000),  # lanes, ragged K: the last block is padded with zeros
    QuantizeCase("q8_1_mmq", 32, 640),  # the largest M of the one-row tile
    QuantizeCase("q8_1_mmq", 33, 640),  # the mid tile (lanes): ragged rows
    QuantizeCase("q8_1_mmq", 37, 1000),  # the mid tile: ragged rows and K
    QuantizeCase("q8_1", 41, 300),  # the mid tile, q8_1's 36-byte blocks
    QuantizeCase("q8_1_mmq", 37, 1000, mid_values=1 << 14),  # M * K past mid_values: the 8x512 tile of the same kernel
    QuantizeCase("q8_1_mmq", 20, 1000, mid_values=1 << 14),  # and its one-row tile
    # the 8x512 tile without a mid tile (mid_values = 0): the staged strategy at small M * K
    QuantizeCase("q8_1_mmq", 33, 640, mid_values=0),  # the smallest M of the staged one: a tile of one row
    QuantizeCase("q8_1_mmq", 37, 1000, mid_values=0),  # staged, 16-byte copies, ragged rows and K
    QuantizeCase("q8_1_mmq", 35, 998, mid_values=0),  # staged, K not a multiple of 4: the 4-byte copies
    QuantizeCase("q8_1_mmq", 512, 128, mid_values=0),  # staged, three quarters of every tile past K
    QuantizeCase("q8_1", 41, 300, mid_values=0),  # staged, 4-byte quant stores into 36-byte blocks
    QuantizeCase("q8_1", 33, 5, mid_values=0),  # staged, K shorter than one block
    QuantizeCase("q8_1", 7, 300),  # lanes
    QuantizeCase("q8_1", 3, 5),  # lanes, K shorter than one block
    # other tiles: every way the staged copy and the lanes loop walk them
    QuantizeCase("q8_1_mmq", 70, 1024, rows_per_program=16, mid_values=0),  # staged, two waves (barrier between)
    QuantizeCase("q8_1_mmq", 45, 1300, rows_per_program=8, block_k=640, small_m=4, mid_values=0),  # 20 groups per row:
    # chunk rows computed at run time, and a second wave with idle threads
    QuantizeCase("q8_1_mmq", 3, 5000, rows_per_program=1, block_k=4096, mid_values=0),  # staged, one row of 128 groups
    QuantizeCase("q8_1", 9, 2000, rows_per_program=2, block_k=1024, num_warps=2, small_m=0, mid_values=0),  # 64 threads
    # lanes, 32 groups in 4 steps of 8: emitted one after another, every step's loads first (UNROLLED_LANES_STEPS)
    QuantizeCase("q8_1_mmq", 5, 640, rows_per_program=4, block_k=256, num_warps=2, small_m=0, mid_values=0),
    QuantizeCase("q8_1_mmq", 7, 1100, rows_per_program=3, block_k=1024, small_m=0, mid_values=0),  # lanes: a loop of 6
    QuantizeCase("q8_1", 7, 200, rows_per_program=3, block_k=128, small_m=0, mid_values=0),  # lanes, idle slots
    # the kernels that also zero Y [M, N]: one-row and 8-row tiles, a ragged N, an N that
    # needs several steps of the programs of a row, an N below one zero tile
    QuantizeCase("q8_1_mmq", 3, 1000, zero_n=1001),
    QuantizeCase("q8_1_mmq", 34, 640, zero_n=2100),  # the mid tile's 20 programs of a row
    QuantizeCase("q8_1_mmq", 34, 640, zero_n=2100, mid_values=0),  # the 8x512 tile's 2
    QuantizeCase("q8_1_mmq", 2, 256, zero_n=7),
]


def lowered(case: QuantizeCase) -> ModuleOp:
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(case.source(), False)[0], case.label)
    build_pipeline(registry.pass_factories(), ptx_pipeline(PtxOptions(arch=case.arch))).apply(ctx, module)
    ReconcileUnrealizedCastsPass().apply(ctx, module)
    return module


def emulated(case: QuantizeCase, x: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    out = poisoned_output(case)
    y = poisoned_y(case) if y is None else y
    emulate(lowered(case), case.config.name, case.arguments(x, out, y), grid=case.grid)
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_emulated_kernel_matches_numerics(case: QuantizeCase) -> None:
    x = activations(case.m, case.k, np.random.default_rng())
    y = poisoned_y(case)
    problem = check(case, emulated(case, x, y), reference(case, x)) or check_zeroed(case, y)
    assert problem is None, problem


TWO_CHAINS = """
func.func @two_chains(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %pid = qdot.program_id x
  %even = arith.muli %pid, %c2 : index
  %odd = arith.addi %even, %c1 : index
  %kb = arith.ceildivui %k, %c128 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%even, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%even, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  %x2 = qdot.load %x_desc[%odd, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q2 = qdot.quantize %x2 format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%odd, %c0], %q2 : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}
"""


def test_two_staged_chains_share_the_buffer_safely() -> None:
    """Two chains of one kernel stage through one buffer; the emulator's race checks would
    reject the second copy if it could overwrite values the first chain still reads."""
    m, k = 6, 1024
    case = QuantizeCase("q8_1_mmq", m, k)
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(TWO_CHAINS, False)[0], "two_chains")
    build_pipeline(registry.pass_factories(), ptx_pipeline(PtxOptions(arch="sm_90"))).apply(ctx, module)
    ReconcileUnrealizedCastsPass().apply(ctx, module)
    x = activations(m, k, np.random.default_rng())
    out = poisoned_output(case)
    emulate(module, "two_chains", [x, out, m, k], grid=m // 2)
    problem = check(case, out, reference(case, x))
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


def test_roundf_is_truncation_after_adding_the_float_below_one_half() -> None:
    """The pass's roundf: trunc(q + copysign(0.49999997, q)) for the quotients it meets
    (|q| <= 190.5), checked on every float within 64 ulps of each n and n + 1/2."""
    below_half = np.float32(BELOW_HALF)
    assert below_half.view(np.uint32) == 0x3EFFFFFF
    centres = np.arange(0, 192, 0.5, dtype=np.float32)
    steps = np.arange(-64, 65, dtype=np.int32)
    bits = (centres.view(np.int32)[:, None] + steps[None, :]).ravel()
    q = bits[bits >= 0].view(np.float32)
    q = np.concatenate([q, -q])
    fast = np.trunc(q + np.copysign(below_half, q))
    assert np.array_equal(fast, roundf(q))
    # and why not 0.5: the largest float below one half would round up
    assert np.trunc(np.float32(below_half) + np.float32(0.5)) == 1.0


def test_plan_picks_the_strategy() -> None:
    mmq, q8_1 = Q8BlockLayout.of(Format.Q8_1_MMQ), Q8BlockLayout.of(Format.Q8_1)
    assert (mmq.store_bytes, q8_1.store_bytes) == (8, 4)
    assert QuantizePlan(8, 512, 4, mmq).strategy is Strategy.STAGED  # 128 groups, 128 threads
    assert QuantizePlan(16, 512, 4, mmq).steps == 2  # two waves
    assert QuantizePlan(1, 512, 4, mmq).strategy is Strategy.LANES  # 16 groups
    assert QuantizePlan(1, 512, 4, mmq).steps == 1
    assert QuantizePlan(8, 512, 12, mmq).strategy is Strategy.LANES  # fewer groups than threads
    # a wave of 384 threads needs 384 · 144 bytes, more than a kernel gets without opting in
    assert QuantizePlan(64, 512, 12, mmq).strategy is Strategy.LANES


def test_example_is_the_template_output() -> None:
    assert EXAMPLE.read_text(encoding="utf-8") == quantize_kernel()


def test_grid_covers_every_tile() -> None:
    assert quantize_grid(7, 1000) == (2, 7, 1)  # one row per program up to small_m = 32
    assert quantize_grid(32, 4096) == (8, 32, 1)
    assert quantize_grid(33, 4096) == (32, 5, 1)  # then 8 rows of 128 values while M * K <= 2^21
    assert quantize_grid(512, 4096) == (32, 64, 1)
    assert quantize_grid(512, 4097) == (9, 64, 1)  # then 8 rows of 512
    assert quantize_grid(512, 14336) == (28, 64, 1)
    assert quantize_grid(33, 4096, mid_values=0) == (8, 5, 1)
    assert quantize_grid(5, 640, rows_per_program=4, block_k=256, small_m=0, mid_values=0) == (3, 2, 1)
    assert quantize_grid(5, 640, rows_per_program=1, block_k=256, mid_values=0) == (3, 5, 1)
    assert quantize_grid(5, 640, rows_per_program=4, block_k=256, small_m=0) == (5, 1, 1)  # the mid tile 8x128


def test_the_three_signatures_share_one_set_of_defaults() -> None:
    """``QuantizeConfig``, ``quantize_kernel`` and ``quantize_grid`` default to the same tiles (the module's
    constants): a grid sized with other tiles than the kernel's would leave rows unwritten."""
    config = QuantizeConfig()
    for function in (quantize_kernel, quantize_grid):
        for name, parameter in inspect.signature(function).parameters.items():
            if hasattr(config, name) and parameter.default is not inspect.Parameter.empty:
                assert parameter.default == getattr(config, name), (function.__name__, name)
    assert quantize_kernel() == quantize_kernel(**{f.name: getattr(config, f.name) for f in dataclasses.fields(config)})


def test_a_config_gives_its_kernel_and_its_grid_together() -> None:
    """``QuantizeConfig.source`` and ``.grid`` take the tiles from one object: with other tiles than the defaults
    the default grid would be wrong (here 2 × 5 programs of one row for a kernel that takes 2-row tiles)."""
    config = QuantizeConfig(rows_per_program=4, block_k=256, small_m=0, mid_rows=2, mid_block_k=256, mid_values=4096)
    assert config.source() == quantize_kernel(rows_per_program=4, block_k=256, small_m=0, mid_rows=2, mid_block_k=256,
                                              mid_values=4096)
    assert config.grid(5, 640) == (3, 3, 1) != quantize_grid(5, 640) == (2, 5, 1)  # the mid tile, 2 x 256
    assert config.grid(100, 640) == (3, 25, 1)  # M * K past mid_values: 4 x 256
    for m, k in ((5, 640), (100, 640), (1, 4096)):
        rows, tile_k = config.tile_for(m, k)
        assert config.grid(m, k) == (-(-k // tile_k), -(-m // rows), 1)


def test_grid_refuses_too_many_row_tiles() -> None:
    with pytest.raises(ValueError, match="more than gridDim.y allows"):
        quantize_grid(65536, 128, rows_per_program=1, mid_values=0)


def test_kernel_dispatches_on_m_and_m_times_k_only_with_other_tiles() -> None:
    """The one-row tile is an scf.if on M, the mid tile one on M · K; a kernel without another tile
    has nothing to choose."""
    assert "scf.if %one_row" in quantize_kernel() and "scf.if %mid" in quantize_kernel()
    assert "scf.if %one_row" not in quantize_kernel(rows_per_program=1)
    assert "scf.if" not in quantize_kernel(small_m=0, mid_values=0)
    assert "scf.if" not in quantize_kernel(rows_per_program=8, block_k=128, small_m=0)  # the mid tile is the tile
    assert QuantizeConfig(small_m=0, mid_values=0).name == "quantize_q8_1_mmq_8x512_w4"
    assert QuantizeConfig().name == "quantize_q8_1_mmq_8x512_w4_m32_mid8x128le2097152"
    assert QuantizeConfig().tile_for(32, 1 << 20) == (1, 512)
    assert QuantizeConfig().tile_for(33, 4096) == (8, 128) and QuantizeConfig().tile_for(512, 8192) == (8, 512)


@pytest.mark.parametrize("kwargs,message", [
    ({"fmt": "q4_K"}, "fmt must be one of q8_1, q8_1_mmq"),
    ({"block_k": 96}, "block_k must be a positive multiple of 128"),
    ({"rows_per_program": 0}, "must be positive"),
    ({"small_m": -1}, "small_m must be 0 or more"),
    ({"mid_block_k": 96}, "mid_block_k a positive multiple of 128"),
    ({"mid_values": -1}, "mid_values ≥ 0"),
])
def test_config_rejects_bad_requests(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QuantizeConfig(**kwargs)
