"""The emulator's register file, Metal's lane layout, one MMA at a time, and its hazard checks."""

from __future__ import annotations

import numpy as np
import pytest

from targets.agx import Mma8, encode_mma8
from targets.agx.emulator import EmulatorError, RegisterFile, execute_mma8, run_program
from targets.agx.lanes import distribute, element_coord, gather, lane_grid, lane_origin, owner
from targets.agx.mma8 import ElemType
from targets.agx.program import FragmentLoad, FragmentSource, FragmentStore, Operand, TileProgram

REFERENCE_GRID = [  # reference/agx.md 4.2: the owning lane of each element
    [0, 0, 1, 1, 8, 8, 9, 9],
    [2, 2, 3, 3, 10, 10, 11, 11],
    [4, 4, 5, 5, 12, 12, 13, 13],
    [6, 6, 7, 7, 14, 14, 15, 15],
    [16, 16, 17, 17, 24, 24, 25, 25],
    [18, 18, 19, 19, 26, 26, 27, 27],
    [20, 20, 21, 21, 28, 28, 29, 29],
    [22, 22, 23, 23, 30, 30, 31, 31],
]


def test_lane_layout_is_metals() -> None:
    assert lane_grid() == REFERENCE_GRID
    for lane in range(32):
        row, col0 = lane_origin(lane)
        # MLX BaseMMAFrag::get_coord and metal2vulkan's formula
        assert row == ((lane >> 4) & 1) * 4 + ((lane >> 1) & 3)
        assert col0 == ((lane >> 3) & 1) * 4 + (lane & 1) * 2
        assert element_coord(lane, 1) == (row, col0 + 1)
        assert owner(row, col0 + 1) == (lane, 1)
    with pytest.raises(ValueError):
        lane_origin(32)


def test_distribute_and_gather_are_inverse() -> None:
    tile = np.arange(64, dtype=np.float64).reshape(8, 8)
    lanes = distribute(tile)
    assert lanes.shape == (32, 2)
    assert list(lanes[9]) == [tile[0, 6], tile[0, 7]]
    assert list(lanes[26]) == [tile[5, 4], tile[5, 5]]
    assert np.array_equal(gather(lanes), tile)


def test_register_forms() -> None:
    regs = RegisterFile()
    values = np.arange(64, dtype=np.float64).reshape(32, 2) - 20.5
    regs.write_lanes(4, ElemType.FP16, values)
    assert np.array_equal(regs.read_lanes(4, ElemType.FP16), values)
    # fp16 pair rNl_rNh: element 0 in the low half of rN
    assert regs.words[3, 4] & 0xFFFF == np.float16(values[3, 0]).view(np.uint16)
    regs.write_lanes(10, ElemType.FP32, values)
    assert regs.words[3, 11] == np.float32(values[3, 1]).view(np.uint32)


def _filled(tiles: dict[int, tuple[ElemType, np.ndarray]]) -> RegisterFile:
    regs = RegisterFile()
    for register, (elem, tile) in tiles.items():
        regs.write_tile(register, elem, tile)
    return regs


@pytest.mark.parametrize(("a_type", "b_type"), [("fp16", "fp16"), ("fp32", "fp32"), ("fp16", "fp32"), ("fp32", "fp16")])
def test_one_mma_matches_numpy(a_type: str, b_type: str) -> None:
    rng = np.random.default_rng(1)
    a, b, c = (rng.integers(-8, 9, (8, 8)).astype(np.float64) for _ in range(3))
    regs = _filled({0: (ElemType(a_type), a), 2: (ElemType(b_type), b), 8: (ElemType.FP32, c)})
    execute_mma8(regs, Mma8(d=8, a=0, b=2, c=8, a_type=a_type, b_type=b_type))
    assert np.array_equal(regs.read_tile(8, ElemType.FP32), a @ b + c)
    execute_mma8(regs, Mma8(d=12, a=0, b=2, a_type=a_type, b_type=b_type, accumulate=False))
    assert np.array_equal(regs.read_tile(12, ElemType.FP32), a @ b)


def test_fp16_operands_convert_exactly_and_accumulate_in_fp32() -> None:
    a = np.full((8, 8), 2.0 ** -24)  # the smallest fp16 subnormal: exact in the register
    b = np.full((8, 8), 2.0 ** 14)
    regs = _filled({0: (ElemType.FP16, a), 2: (ElemType.FP16, b)})
    execute_mma8(regs, Mma8(d=4, a=0, b=2, accumulate=False))
    assert np.all(regs.read_tile(4, ElemType.FP32) == 8 * 2.0 ** -10)


def test_reading_a_discarded_register_is_an_error() -> None:
    regs = _filled({0: (ElemType.FP16, np.ones((8, 8))), 2: (ElemType.FP16, np.ones((8, 8)))})
    execute_mma8(regs, Mma8(d=4, a=0, b=2, accumulate=False, hints={"a": "discard"}))
    with pytest.raises(EmulatorError, match="reads r0, which an earlier discard hint invalidated"):
        execute_mma8(regs, Mma8(d=6, a=0, b=2, accumulate=False))


def test_in_place_accumulate_with_discarded_c() -> None:
    regs = _filled({0: (ElemType.FP16, np.eye(8)), 2: (ElemType.FP16, np.eye(8)), 8: (ElemType.FP32, np.ones((8, 8)))})
    execute_mma8(regs, Mma8(d=8, a=0, b=2, c=8, hints={"c": "discard"}))
    assert np.array_equal(regs.read_tile(8, ElemType.FP32), np.eye(8) + 1)


def _program(loads: tuple[FragmentLoad, ...], instructions: tuple[Mma8, ...]) -> TileProgram:
    return TileProgram("t", "agx3b", 8, 8, 8, instructions, loads, (FragmentStore(8, 0, 0),))


def _load(register: int, operand: Operand, slot: int | None) -> FragmentLoad:
    return FragmentLoad(register, ElemType.FP16, FragmentSource(operand, 0, 0, 0, "fp16"), slot, 0)


def test_pending_load_must_be_waited_for() -> None:
    loads = (_load(0, Operand.LHS, 0), _load(2, Operand.RHS, 1))
    good = (Mma8(d=8, a=0, b=2, accumulate=False, wait=(0, 1)),)
    values = lambda load: np.eye(8)  # noqa: E731
    stream = b"".join(encode_mma8(d, "agx3b") for d in good)
    assert np.array_equal(run_program(_program(loads, good), stream, values), np.eye(8))
    missing = (Mma8(d=8, a=0, b=2, accumulate=False, wait=(0,)),)
    stream = b"".join(encode_mma8(d, "agx3b") for d in missing)
    with pytest.raises(EmulatorError, match="B reads r2 while its load in scoreboard slot 1 is pending"):
        run_program(_program(loads, missing), stream, values)


def test_overwriting_a_pending_load_is_an_error() -> None:
    loads = (_load(0, Operand.LHS, 0), _load(2, Operand.RHS, 0), _load(8, Operand.LHS, 3))
    program = (Mma8(d=8, a=0, b=2, accumulate=False, wait=(0,)),)
    stream = encode_mma8(program[0], "agx3b")
    with pytest.raises(EmulatorError, match="D overwrites r8 while a load into it is pending in slot 3"):
        run_program(_program(loads, program), stream, lambda load: np.eye(8))


def test_loading_into_a_register_with_a_pending_load_is_an_error() -> None:
    """Two loads in flight into r0: the emulator kept only the newer slot, so an MMA waiting on that slot alone
    read r0 without error, though which load lands last is unknown."""
    loads = (_load(0, Operand.LHS, 0), _load(0, Operand.LHS, 1), _load(2, Operand.RHS, 2))
    program = (Mma8(d=8, a=0, b=2, accumulate=False, wait=(1, 2)),)
    stream = encode_mma8(program[0], "agx3b")
    with pytest.raises(EmulatorError, match="loads into r0 while the load in scoreboard slot 0 into it is pending"):
        run_program(_program(loads, program), stream, lambda load: np.eye(8))


@pytest.mark.parametrize(("register", "message"), [(-2, "r-2 is below r0"), (95, "r95 is odd"),
                                                   (96, r"r96 \(fp16\) is past r95")])
def test_a_map_register_the_pair_form_cannot_reach_is_an_error(register: int, message: str) -> None:
    """A load into r-2 used to wrap around to r94 through numpy's negative index; r95 / r96 gave an
    IndexError. The map is checked as the MMA's own operands are (A8)."""
    loads = (_load(register, Operand.LHS, None), _load(2, Operand.RHS, None))
    program = (Mma8(d=8, a=0, b=2, accumulate=False),)
    stream = encode_mma8(program[0], "agx3b")
    with pytest.raises(EmulatorError, match=f"fragment map: load before instruction 0 register {message}"):
        run_program(_program(loads, program), stream, lambda load: np.eye(8))
