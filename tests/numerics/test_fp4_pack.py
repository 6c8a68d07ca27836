"""pack_fp4 / unpack_fp4: two e2m1 codes per byte, element 2i in the low nibble."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.numerics import pack_fp4, unpack_fp4


def test_low_nibble_holds_the_first_value() -> None:
    packed = pack_fp4(np.array([0x1, 0x2, 0x3, 0x4, 0xF, 0x0], dtype=np.uint8))
    np.testing.assert_array_equal(packed, [0x21, 0x43, 0x0F])
    np.testing.assert_array_equal(unpack_fp4(np.array([0x21, 0x43, 0x0F], dtype=np.uint8)), [1, 2, 3, 4, 0xF, 0])


def test_pack_along_axis_0() -> None:
    codes = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], dtype=np.uint8)
    packed = pack_fp4(codes, axis=0)
    np.testing.assert_array_equal(packed, [[0x31, 0x42], [0x75, 0x86]])
    np.testing.assert_array_equal(unpack_fp4(packed, axis=0), codes)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_round_trip_random(axis: int) -> None:
    rng = np.random.default_rng(axis + 10)
    codes = rng.integers(0, 16, (4, 6, 8), dtype=np.uint8)
    packed = pack_fp4(codes, axis=axis)
    assert packed.shape[axis] == codes.shape[axis] // 2
    np.testing.assert_array_equal(unpack_fp4(packed, axis=axis), codes)
    # the packed bytes as a plain loop would write them
    moved = np.moveaxis(codes, axis, -1).reshape(-1)
    want = [int(moved[i]) | (int(moved[i + 1]) << 4) for i in range(0, moved.size, 2)]
    assert np.moveaxis(packed, axis, -1).reshape(-1).tolist() == want


def test_unpack_accepts_int8() -> None:
    packed = np.array([-1, 0x21], dtype=np.int8)  # 0xFF
    np.testing.assert_array_equal(unpack_fp4(packed), [0xF, 0xF, 0x1, 0x2])


def test_errors() -> None:
    with pytest.raises(ValueError, match="even extent"):
        pack_fp4(np.zeros(3, dtype=np.uint8))
    with pytest.raises(ValueError, match="0..0xF"):
        pack_fp4(np.array([0x10, 0], dtype=np.uint8))
    with pytest.raises(ValueError, match="uint8 or int8"):
        unpack_fp4(np.zeros(2, dtype=np.int32))
