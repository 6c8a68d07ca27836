"""The kernel templates' configs and grid helpers refuse arguments they cannot use, by name, where they are given.

Before, a zero, negative, float or str number reached the kernel text or the grid: ``MmqConfig(group_m=0)``
compiled and divided by zero when the kernel ran, ``block_m=64.0`` was an xDSL ParseError on the generated IR,
``block_m=-64`` a kernel name with a '-' in it, ``mmq_grid`` returned grids of 0 or of floats, a non-bool flag was
taken for True, an unknown GEMM format a bare KeyError, and ``tile_weights`` read W's transpose as W."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.mmq_choice import choose_mmq, m_ranges
from compiler.mmq_template import (MmqConfig, fixup_counters_shape, fixup_grid, fixup_kernel_name, fixup_scalars,
                                   fixup_workspace_shape, in_gemm_fixup_unroll, mmq_fixup_kernel, mmq_grid, mmq_kernel,
                                   quantize_scratch_shape, resident_programs, small_m_tokens, split_factor,
                                   spread_launch, spread_shared_bytes, tile_weights)
from compiler.quantize_template import QuantizeConfig, quantize_grid
from compiler.templates import GemmConfig, gemm_kernel, grid

POW2 = "must be a power of two"
DECODE = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True)
PREFILL = MmqConfig(block_m=64, block_n=128)
STREAM_K = MmqConfig(block_m=64, block_n=128, stream_k=True)
STREAM_K_FIXUP = MmqConfig(block_m=64, block_n=128, stream_k=True, fixup=True)
ONE_LAUNCH = MmqConfig(small_m=True, max_m=1, block_n=64, num_warps=2, split_k=True, fixup=True, fixup_in_gemm=True,
                       quantize_in_gemm=True)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"group_m": 0}, ValueError, "MmqConfig: group_m must be a positive int, got 0"),
    ({"group_m": -1}, ValueError, "MmqConfig: group_m must be a positive int, got -1"),
    ({"block_m": 0}, ValueError, f"MmqConfig: block_m {POW2} .*, got 0"),
    ({"block_n": 0}, ValueError, f"MmqConfig: block_n {POW2} .*, got 0"),
    ({"block_m": -64}, ValueError, f"MmqConfig: block_m {POW2} .*, got -64"),
    ({"block_n": 96}, ValueError, f"MmqConfig: block_n {POW2} \\(the register and shared layouts .*\\), got 96"),
    ({"num_warps": 0}, ValueError, f"MmqConfig: num_warps {POW2} from 1 to 32 .*, got 0"),
    ({"num_warps": 64}, ValueError, f"MmqConfig: num_warps {POW2} from 1 to 32 .*, got 64"),
    ({"num_warps": 3}, ValueError, f"MmqConfig: num_warps {POW2} from 1 to 32 .*, got 3"),
    ({"min_blocks_per_sm": -1}, ValueError, "MmqConfig: min_blocks_per_sm must be an int ≥ 0, got -1"),
    ({"block_m": 64.0}, TypeError, "MmqConfig: block_m must be an int, got float 64.0"),
    ({"block_m": "64"}, TypeError, "MmqConfig: block_m must be an int, got str '64'"),
    ({"small_m": True, "max_m": "8"}, TypeError, "MmqConfig: max_m must be an int, got str '8'"),
    ({"k_blocks": 2.0}, TypeError, "MmqConfig: k_blocks must be an int, got float 2.0"),
    ({"l2_prefetch": 128.0}, TypeError, "MmqConfig: l2_prefetch must be an int, got float 128.0"),
    ({"k_divisibility": 512.0}, TypeError, "MmqConfig: k_divisibility must be an int, got float 512.0"),
    ({"group_m": True}, TypeError, "MmqConfig: group_m must be an int, got bool True"),
    ({"weights": ["q4_K"]}, ValueError, "MmqConfig: weights must be one of q4_K, .*, got \\['q4_K'\\]"),
])
def test_mmq_config_refuses_bad_numbers_by_field(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        MmqConfig(**kwargs)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"group_m": 0}, ValueError, "GemmConfig: group_m must be a positive int, got 0"),
    ({"block_k": 96}, ValueError, f"GemmConfig: block_k {POW2} .*, got 96"),
    ({"block_m": 128.0}, TypeError, "GemmConfig: block_m must be an int, got float 128.0"),
    ({"num_warps": 6}, ValueError, f"GemmConfig: num_warps {POW2} from 1 to 32 .*, got 6"),
    ({"min_blocks_per_sm": -2}, ValueError, "GemmConfig: min_blocks_per_sm must be an int ≥ 0, got -2"),
    ({"k_divisibility": 48}, ValueError, f"GemmConfig: k_divisibility {POW2} \\(qdot.divisibility\\), got 48"),
    ({"n_divisibility": 0}, ValueError, f"GemmConfig: n_divisibility {POW2} \\(qdot.divisibility\\), got 0"),
])
def test_gemm_config_refuses_bad_numbers_by_field(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        GemmConfig(**kwargs)


def test_the_numbers_the_templates_take_still_make_kernels() -> None:
    """The boundaries of what is refused: any positive group_m (the tile order divides by it, no layout holds
    it), no occupancy request, numpy ints (from shapes and sweeps), a GEMM without scales."""
    assert "gemm_e4m3_e2m1_ue8m0_ue8m0_128x128x128_w4" in gemm_kernel(GemmConfig(group_m=3))
    assert "%c3 = arith.constant 3 : index" in mmq_kernel(MmqConfig(group_m=3, min_blocks_per_sm=0))
    from_numpy = MmqConfig(block_m=np.int64(32), num_warps=np.int32(2), small_m=True, max_m=np.int64(16))
    as_ints = MmqConfig(block_m=32, num_warps=2, small_m=True, max_m=16)
    assert from_numpy == as_ints and type(from_numpy.max_m) is int and mmq_kernel(from_numpy) == mmq_kernel(as_ints)
    assert small_m_tokens(np.int64(9)) == 16
    assert GemmConfig(lhs="bf16", rhs="bf16", lhs_scale=None, rhs_scale=None).name.startswith("gemm_bf16_bf16_noscale")


def test_split_k_without_small_m_is_refused_with_what_to_use() -> None:
    """The prefill kernel has no K split: split_k there only named the kernel ``_splitk`` and asked for a zeroed Y."""
    with pytest.raises(ValueError, match=r"split_k is an option of the small_m kernel \(small_m=True\); the mmq "
                                         r"kernel shares K among programs with stream_k=True"):
        MmqConfig(split_k=True)
    assert DECODE.needs_zeroed_output and DECODE.name.endswith("_splitk")


@pytest.mark.parametrize("cfg", [PREFILL, STREAM_K, MmqConfig(small_m=True, block_n=64, num_warps=2)],
                         ids=lambda c: c.name)
def test_guard_copies_off_is_refused_where_no_k_loop_is_guarded(cfg: MmqConfig) -> None:
    """qdot-pipeline guards only a K loop over a split's share (the small_m kernel with split_k): elsewhere
    ``guard_copies=False`` would only rename the kernel and change nothing."""
    with pytest.raises(ValueError, match=r"guard_copies=False is an option of the small_m kernel with split_k"):
        MmqConfig(**{**cfg.__dict__, "guard_copies": False})
    unguarded = MmqConfig(**{**DECODE.__dict__, "guard_copies": False})
    assert unguarded.name == DECODE.name + "_ug"
    assert "qdot.unguarded_copies" in mmq_kernel(unguarded) and "qdot.unguarded_copies" not in mmq_kernel(DECODE)


@pytest.mark.parametrize("cfg", [PREFILL, STREAM_K, DECODE, MmqConfig(small_m=True, block_n=64, num_warps=2, max_m=2)],
                         ids=lambda c: c.name)
def test_broadcast_rhs_is_refused_outside_the_one_token_kernel(cfg: MmqConfig) -> None:
    """``broadcast_rhs`` makes every column of the dots column 0's: right only where the kernel stores column 0
    alone, the small_m kernel with ``max_m = 1``; elsewhere it would compute wrong rows of Y, so it is refused."""
    with pytest.raises(ValueError, match=r"broadcast_rhs is an option of the one-token kernel \(small_m=True, "
                                         r"max_m=1\)"):
        MmqConfig(**{**cfg.__dict__, "broadcast_rhs": True})
    one_token = MmqConfig(**{**DECODE.__dict__, "max_m": 1})
    broadcast = MmqConfig(**{**one_token.__dict__, "broadcast_rhs": True})
    assert broadcast.name == one_token.name + "_bcast"
    assert "qdot.broadcast_rhs" in mmq_kernel(broadcast) and "qdot.broadcast_rhs" not in mmq_kernel(one_token)


def test_q4k_fold_is_refused_without_a_min_term_or_outside_its_values() -> None:
    """``q4k_fold`` writes ``qdot.q4k_fold``, which only the min term of q4_K, q5_K, q4_1 and q5_1 reads: on other
    weights it would only rename the kernel; a value the pass does not take is refused by name."""
    with pytest.raises(ValueError, match=r"q4k_fold is an option of the weights with a min term \(q4_K, q5_K, q4_1, "
                                         r"q5_1\); q6_K has none"):
        MmqConfig(weights="q6_K", q4k_fold="fma")
    with pytest.raises(ValueError, match=r"q4k_fold must be one of 'auto', 'mma', 'fma', got 'rank1'"):
        MmqConfig(q4k_fold="rank1")
    folded = MmqConfig(**{**DECODE.__dict__, "q4k_fold": "fma"})
    assert folded.name == DECODE.name + "_fma"
    assert 'qdot.q4k_fold = "fma"' in mmq_kernel(folded) and "qdot.q4k_fold" not in mmq_kernel(DECODE)


@pytest.mark.parametrize("make,field,value", [
    (MmqConfig, "small_m", "yes"), (MmqConfig, "split_k", 1), (MmqConfig, "tiled_weights", "no"),
    (MmqConfig, "stream_k", None), (MmqConfig, "guard_copies", 0), (GemmConfig, "persistent", 1),
    (GemmConfig, "b_k_major", "False"), (QuantizeConfig, "zero_output", 1),
])
def test_bool_fields_refuse_other_values(make: type, field: str, value: object) -> None:
    """``small_m="yes"`` was truthy, and ``b_k_major="False"`` too: a bool field takes True or False only."""
    who = "quantize_kernel" if make is QuantizeConfig else make.__name__
    with pytest.raises(TypeError, match=f"{who}: {field} must be a bool \\(True or False\\), got "
                                        f"{type(value).__name__} {value!r}"):
        make(**{field: value})


@pytest.mark.parametrize("kwargs,message", [
    ({"lhs": "e4m4"}, "GemmConfig: lhs must be one of e4m3, e5m2, e2m3, e3m2, e2m1, bf16, fp16, i8, got 'e4m4'"),
    ({"lhs": "q4_K"}, "lhs must be one of .*, got 'q4_K' \\(the ggml block formats, q4_K and the rest, are "
                      "MmqConfig's weights\\)"),
    ({"rhs": "e8m0"}, "GemmConfig: rhs must be one of e4m3, .*, got 'e8m0'"),
    ({"lhs_scale": "e8m0"}, "GemmConfig: lhs_scale must be one of ue8m0, ue4m3 or None \\(no scales\\), got 'e8m0'"),
    ({"rhs_scale": "ue5m3"}, "GemmConfig: rhs_scale must be one of ue8m0, ue4m3 or None"),
])
def test_gemm_config_refuses_unknown_formats_listing_the_accepted(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GemmConfig(**kwargs)


@pytest.mark.parametrize("call,error,message", [
    (lambda: mmq_grid(PREFILL, 0, 4096, 4096), ValueError, "mmq_grid: m must be a positive int, got 0"),
    (lambda: mmq_grid(PREFILL, -5, 4096, 4096), ValueError, "mmq_grid: m must be a positive int, got -5"),
    (lambda: mmq_grid(PREFILL, 8, -1, 4096), ValueError, "mmq_grid: n must be a positive int, got -1"),
    (lambda: mmq_grid(DECODE, 1, 0, 4096), ValueError, "mmq_grid: n must be a positive int, got 0"),
    (lambda: mmq_grid(DECODE, 1, 4096, -256), ValueError, "mmq_grid: k must be an int ≥ 0, got -256"),
    (lambda: mmq_grid(PREFILL, 8.5, 4096, 4096), TypeError, "mmq_grid: m must be an int, got float 8.5"),
    (lambda: mmq_grid(PREFILL, 512, 4096.0, 4096), TypeError, "mmq_grid: n must be an int, got float 4096.0"),
    (lambda: mmq_grid(STREAM_K, 512, 4096, 4096, programs=-3), ValueError,
     "mmq_grid: programs must be a positive int, got -3"),
    (lambda: mmq_grid(STREAM_K, 512, 4096, 4096, programs=0), ValueError,
     "mmq_grid: programs must be a positive int, got 0"),
    (lambda: mmq_grid(PREFILL, 512, 4096, 4096, programs=7), ValueError,
     "mmq_grid: programs is the size of a stream-K grid; mmq_q8_1_q4_K_64x128_w4 has one program per output tile"),
    (lambda: mmq_grid(DECODE, 1, 4096, 4096, programs=7), ValueError, "programs is the size of a stream-K grid"),
    (lambda: mmq_grid(PREFILL, 512, 4096, 4096, max_splits=2), ValueError,
     "mmq_grid: max_splits overrides the K split of a decode grid .* is a prefill kernel, which does not split K"),
    (lambda: mmq_grid(STREAM_K, 512, 4096, 4096, resident=1024), ValueError, "mmq_grid: resident overrides"),
    (lambda: mmq_grid(DECODE, 1, 4096, 4096, splits=4), TypeError,
     "mmq_grid: unexpected keyword argument 'splits' \\(the split-K grid's overrides: target, max_splits, "
     "min_blocks, resident\\)"),
    (lambda: mmq_grid(DECODE, 1, 4096, 4096, max_splits=0), ValueError,
     "split_factor: max_splits must be a positive int, got 0"),
    (lambda: mmq_grid(DECODE, 1, 4096, 4096, target=2.5), TypeError, "split_factor: target must be an int"),
    (lambda: mmq_grid(PREFILL, 512, 4096, 4096, max_splits=1.0), TypeError, "split_factor: max_splits must be an int"),
    (lambda: mmq_grid(None, 1, 4096, 4096), TypeError, "mmq_grid: cfg must be an MmqConfig, got NoneType"),
    (lambda: split_factor(0, 4096), ValueError, "split_factor: tiles must be a positive int, got 0"),
    (lambda: split_factor(64, 4096, min_blocks=0), ValueError, "split_factor: min_blocks must be a positive int"),
    (lambda: fixup_grid(DECODE, 1, 0), ValueError, "fixup_grid: n must be a positive int, got 0"),
    (lambda: mmq_grid(PREFILL, 2**32 + 64, 4096, 4096), ValueError,
     "mmq_grid: M = 4294967360, N = 4096 need 2147483680 programs \\(one per 64 × 128 output tile\\), more than a "
     "grid's x dimension holds \\(2147483647\\): split M or N"),
    (lambda: mmq_grid(DECODE, 1, 2**31 * DECODE.block_n + 1, 4096), ValueError,
     "mmq_grid: N = .* needs 2147483649 programs \\(one per .* weight rows\\), more than a grid's x dimension"),
    (lambda: fixup_grid(STREAM_K_FIXUP, 2**32 + 64, 4096), ValueError,
     "fixup_grid: M = 4294967360, N = 4096 need 2147483680 programs"),
    (lambda: small_m_tokens(8.0), TypeError, "small_m_tokens: max_m must be an int, got float 8.0"),
    (lambda: fixup_workspace_shape(DECODE, (64, 2, 1), 4096), ValueError,
     "fixup_workspace_shape: small_m_q8_1_q4_K_64_w2_splitk has no fix-up, so no workspace or fix-up arguments"),
    (lambda: fixup_scalars(PREFILL, (256, 1, 1), 512, 4096, 4096), ValueError, "fixup_scalars: .* has no fix-up"),
    (lambda: fixup_workspace_shape(STREAM_K_FIXUP, "x", 4096), TypeError,
     "fixup_workspace_shape: grid takes the number of programs or \\(x\\[, y\\[, z\\]\\]\\): one to three positive "
     "integers, got 'x'"),
    (lambda: fixup_workspace_shape(STREAM_K_FIXUP, (7, 0, 1), 4096), ValueError,
     "fixup_workspace_shape: grid takes .*, got \\(7, 0, 1\\): y = 0 is not from 1 to 65535"),
    (lambda: fixup_workspace_shape(STREAM_K_FIXUP, (2**31, 1, 1), 4096), ValueError,
     "fixup_workspace_shape: grid takes .*: x = 2147483648 is not from 1 to 2147483647"),
    (lambda: fixup_workspace_shape(STREAM_K_FIXUP, (), 4096), ValueError, "grid takes .* got 0 dimensions"),
    (lambda: fixup_workspace_shape(STREAM_K_FIXUP, (7, 1, 1), 4096.0), TypeError,
     "fixup_workspace_shape: n must be an int, got float 4096.0"),
    (lambda: fixup_scalars(STREAM_K_FIXUP, (7.0, 1, 1), 40, 72, 768), TypeError, "fixup_scalars: grid takes"),
    (lambda: quantize_scratch_shape(ONE_LAUNCH, (4,), 4096, -256), ValueError,
     "quantize_scratch_shape: k must be an int ≥ 0, got -256"),
    (lambda: quantize_scratch_shape(ONE_LAUNCH, [4, True], 4096, 4096), TypeError,
     "quantize_scratch_shape: grid takes"),
    (lambda: quantize_grid(-1, 4096), ValueError, "quantize_grid: m must be a positive int, got -1"),
    (lambda: quantize_grid(8, 0), ValueError, "quantize_grid: k must be a positive int, got 0"),
    (lambda: quantize_grid(8, 4096, block_k=0), ValueError, "quantize_grid: block_k must be a positive int, got 0"),
    (lambda: quantize_grid(8, 4096.0), TypeError, "quantize_grid: k must be an int, got float 4096.0"),
    (lambda: quantize_grid(40, 4096, mid_values=-1), ValueError, "quantize_grid: mid_values must be an int ≥ 0"),
    (lambda: QuantizeConfig(block_k=512.0), TypeError, "quantize_kernel: block_k must be an int, got float 512.0"),
    (lambda: grid(GemmConfig(), -1, 10), ValueError, "grid: m must be a positive int, got -1"),
    (lambda: grid(GemmConfig(), 128, 0), ValueError, "grid: n must be a positive int, got 0"),
    (lambda: grid(GemmConfig(), 1.5, 10), TypeError, "grid: m must be an int, got float 1.5"),
    (lambda: grid(GemmConfig(persistent=True), 128, 128, programs=0), ValueError,
     "grid: programs must be a positive int, got 0"),
    (lambda: grid(GemmConfig(persistent=True), 128, 128, programs=-3), ValueError,
     "grid: programs must be a positive int, got -3"),
    (lambda: grid(GemmConfig(), 128, 128, programs=4), ValueError,
     "grid: programs is the size of a persistent kernel's grid; .* has one program per tile"),
    (lambda: grid(MmqConfig(), 128, 128), TypeError, "grid: cfg must be a GemmConfig, got MmqConfig"),
    (lambda: grid(GemmConfig(), 2**31 * 128, 129), ValueError,
     "grid: M = 274877906944, N = 129 need 4294967296 programs \\(one per 128 × 128 tile\\), more than a grid's x "
     "dimension holds \\(2147483647\\): split M or N into launches that fit"),
    (lambda: quantize_grid(8, 2**45), ValueError,
     "quantize_grid: K = 35184372088832 needs 68719476736 programs \\(one per 512 values of a row\\), more than a "
     "grid's x dimension holds"),
    # found by tests/api/helper_fuzz.py: a fixed program count past a grid's x came back as the grid; a split count
    # past its y took split_factor's wave model through 2^31 candidates
    (lambda: split_factor(1, 2**39, resident=1, max_splits=2**31), ValueError,
     "split_factor: max_splits must be at most 65535 \\(the K splits are the grid's y dimension\\), got 2147483648"),
    (lambda: mmq_grid(DECODE, 1, 64, 2**24, max_splits=65536), ValueError, "split_factor: max_splits must be at most"),
    (lambda: grid(GemmConfig(persistent=True), 57206, 2**31 - 1, programs=2**63), ValueError,
     "grid: programs must be at most 2147483647, got 9223372036854775808"),
    (lambda: mmq_grid(STREAM_K, 33, 2**40, 1024, programs=2**70), ValueError,
     "mmq_grid: programs must be at most 2147483647, got 1180591620717411303424"),
])
def test_grid_helpers_refuse_arguments_by_name(call, error: type, message: str) -> None:  # noqa: ANN001
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("call", [
    lambda bad: mmq_kernel(bad), lambda bad: fixup_grid(bad, 8, 8), lambda bad: fixup_counters_shape(bad, 8, 8),
    lambda bad: fixup_kernel_name(bad), lambda bad: mmq_fixup_kernel(bad), lambda bad: in_gemm_fixup_unroll(bad),
    lambda bad: quantize_scratch_shape(bad, (1, 1, 1), 8, 256), lambda bad: fixup_scalars(bad, (1, 1, 1), 8, 8, 256),
    lambda bad: mmq_grid(bad, 8, 8, 256)])
@pytest.mark.parametrize("bad", [None, (1,), GemmConfig(), "MmqConfig()"], ids=repr)
def test_mmq_helpers_refuse_what_is_no_mmq_config(call, bad: object) -> None:  # noqa: ANN001
    """Found by tests/api/helper_fuzz.py: any other object failed as an AttributeError on its first field read."""
    with pytest.raises(TypeError, match=f": cfg must be an MmqConfig, got {type(bad).__name__}$"):
        call(bad)


def test_gemm_kernel_refuses_what_is_no_gemm_config() -> None:
    with pytest.raises(TypeError, match="^gemm_kernel: cfg must be a GemmConfig, got MmqConfig$"):
        gemm_kernel(MmqConfig())


@pytest.mark.parametrize("kwargs,error,message", [
    ({"unroll": 2**70}, ValueError, "unroll must be from 0 to 16 .*, got 1180591620717411303424"),
    ({"unroll": 17}, ValueError, "unroll must be from 0 to 16"),
    ({"unroll": -1}, ValueError, "unroll must be an int ≥ 0, got -1"),
    ({"unroll": 4.0}, TypeError, "unroll must be an int, got float 4.0"),
    ({"wait_previous_grid": "yes"}, TypeError, "wait_previous_grid must be a bool"),
])
def test_the_fixup_kernel_refuses_its_options_by_name(kwargs: dict, error: type, message: str) -> None:
    """Found by tests/api/helper_fuzz.py: an unroll of 2^70 wrote kernel text until memory ran out."""
    for helper in (mmq_fixup_kernel, fixup_kernel_name):
        with pytest.raises(error, match=f"^{helper.__name__}: {message}"):
            helper(STREAM_K_FIXUP, **kwargs)


@pytest.mark.parametrize("call,error,message", [
    (lambda: resident_programs(1024, 132, 233472, threads=0), ValueError,
     "resident_programs: threads must be a positive int, got 0"),
    (lambda: resident_programs(16384, 132, 232448, 8.0), TypeError,
     "resident_programs: reserved_per_program must be an int, got float 8.0"),
    (lambda: resident_programs(16384, "132", 232448), TypeError, "resident_programs: sms must be an int, got str"),
    (lambda: spread_launch(50000, 132, 132, 233472, b"x"), TypeError,
     "spread_launch: reserved_per_program must be an int, got bytes"),
    (lambda: spread_launch(50000, 132, 132, 233472, registers=-1), ValueError,
     "spread_launch: registers must be an int ≥ 0, got -1"),
    (lambda: spread_shared_bytes(1024, 7, (1,), 233472), TypeError,
     "spread_shared_bytes: sms must be an int, got tuple"),
    (lambda: spread_shared_bytes(1024, 7, 132, 233472, granularity=0), ValueError,
     "spread_shared_bytes: granularity must be a positive int, got 0"),
])
def test_residency_helpers_refuse_arguments_by_name(call, error: type, message: str) -> None:  # noqa: ANN001
    """Found by tests/api/helper_fuzz.py: a str or a tuple there was a Python TypeError from compiler.occupancy, a
    float a float program count."""
    with pytest.raises(error, match=message):
        call()


def test_grid_helpers_keep_what_the_kernels_take() -> None:
    """K = 0 stays: the stream-K and split-K kernels take it (empty shares, zeros from the fix-up). Decode
    overrides serve every decode grid, split or not; ``max_splits=1`` every grid. numpy ints are ints."""
    assert mmq_grid(STREAM_K, 40, 72, 0, programs=3) == (1, 1, 1)
    assert mmq_grid(DECODE, 1, 4096, 0) == (64, 1, 1)
    assert split_factor(64, 0) == 1
    no_split = MmqConfig(small_m=True, block_n=64, num_warps=2)
    assert mmq_grid(no_split, 1, 4096, 4096, target=1 << 20, max_splits=8, min_blocks=1) == (64, 1, 1)
    assert mmq_grid(PREFILL, 512, 4096, 4096, max_splits=1) == mmq_grid(PREFILL, 512, 4096, 4096) == (256, 1, 1)
    assert mmq_grid(STREAM_K, np.int64(512), np.int64(4096), np.int64(4096), programs=np.int32(7)) == (7, 1, 1)
    assert quantize_grid(np.int64(8), np.int64(4096)) == quantize_grid(8, 4096)
    assert grid(GemmConfig(persistent=True), 8192, 8192, programs=264) == (264, 1, 1)
    assert grid(GemmConfig(persistent=True), 100, 100) == (1, 1, 1)


@pytest.mark.parametrize("args,kwargs,message", [
    (("q4_K", 8.0, 4096, 4096), {}, "choose_mmq: M must be an int, got float 8.0"),
    (("q4_K", "8", 4096, 4096), {}, "choose_mmq: M must be an int, got str '8'"),
    (("q4_K", 8, 4096.0, 4096), {}, "choose_mmq: N must be an int, got float 4096.0"),
    (("q4_K", 8, 4096, "4096"), {}, "choose_mmq: K must be an int, got str '4096'"),
    (("q4_K", True, 4096, 4096), {}, "choose_mmq: M must be an int, got bool True"),
    (("q4_K", 8, 4096, 4096), {"tiled_weights": "yes"}, "choose_mmq: tiled_weights must be a bool"),
    (("q4_K", 8, 4096, 4096), {"reproducible": 1}, "choose_mmq: reproducible must be a bool"),
])
def test_choose_mmq_refuses_non_int_shapes_by_name(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        choose_mmq(*args, **kwargs)


def test_choose_mmq_takes_numpy_ints() -> None:
    assert choose_mmq("q4_K", np.int64(8), np.int32(4096), np.int64(4096)) == choose_mmq("q4_K", 8, 4096, 4096)
    with pytest.raises(TypeError, match="choose_mmq: max_m must be an int, got float 4.0"):
        m_ranges("q4_K", 4.0, 4096, 4096)


@pytest.mark.parametrize("max_m", [0, -3, 4097, 2**31])
def test_m_ranges_walks_a_bounded_m(max_m: int) -> None:
    """Each M is one ``choose_mmq`` call: ``m_ranges("q4_K", 2**31, …)`` ran on for more than a day."""
    with pytest.raises(ValueError, match=f"walks M = 1 to at most 4096, got M = {max_m}$"):
        m_ranges("q4_K", max_m, 4096, 4096)


TILED = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, tiled_weights=True)


def test_tile_weights_refuses_what_is_not_w_in_ggml_order() -> None:
    """W's rows come first: a list, a missing config, or W viewed as [K/256, N, 144] (``numerics.dot_scaled``'s
    rhs, ``w.transpose(1, 0, 2)``: read as K/256 rows of N super-blocks) are refused with the layout taken."""
    w = np.zeros((72, 4, 144), dtype=np.uint8)  # N = 72, K = 1024
    with pytest.raises(TypeError, match=r"tile_weights: blocks must be a numpy array, uint8 \[N, K/bv, bytes\] or "
                                        r"\[N, K/bv · bytes\] \(ggml's row-major q4_K blocks\), got list"):
        tile_weights(w.tolist(), TILED)
    with pytest.raises(TypeError, match=r"tile_weights: cfg must be the MmqConfig that reads W \(tiled_weights=True\), "
                                        "got NoneType"):
        tile_weights(w, None)
    with pytest.raises(ValueError, match=r"expected q4_K blocks in ggml's order, uint8 \[N, K/256, 144\] or "
                                         r"\[N, K/256 · 144\] row-major .* got a \[4, 72, 144\] array whose second "
                                         r"axis is its outermost .* W seen as \[K/256, N, 144\], as "
                                         r"numerics.dot_scaled takes it\? Pass W itself, not its transpose"):
        tile_weights(w.transpose(1, 0, 2), TILED)
    with pytest.raises(ValueError, match=r"got a \[8, 288\] array whose second axis is its outermost \(strides "
                                         r"\[1, 8\]\)$"):
        tile_weights(np.zeros((288, 8), dtype=np.uint8).T, TILED)
    assert tile_weights(w, TILED).shape == (2, 4, 64, 144)
    assert tile_weights(w[:1], TILED).shape == (1, 4, 64, 144)  # one row: no axis order to get wrong
    assert tile_weights(np.asfortranarray(w[:, :1]), TILED).shape == (2, 1, 64, 144)  # one step, likewise

