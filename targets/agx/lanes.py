"""Metal's simdgroup 8x8 lane layout: which lane holds which two elements of a tile.

The one definition of the layout (reference/agx.md 4.2; MLX ``BaseMMAFrag::get_coord``,
metal-flash-attention ``morton_order``, aquarat/mesa ``lane_origin`` and
metal2vulkan agree). A, B, C and D all use it: lane ``l`` holds
``M[row][col0]`` and ``M[row][col0 + 1]`` of each 8x8 operand, two
horizontally adjacent elements, in one register pair. The lowering, the
emulator and the docs call these functions; nothing re-derives the map.
"""

from __future__ import annotations

import numpy as np

LANES = 32
ELEMENTS_PER_LANE = 2
TILE = 8


def lane_origin(lane: int) -> tuple[int, int]:
    """``(row, col0)`` of the first of the two elements lane ``lane`` holds."""
    if not 0 <= lane < LANES:
        raise ValueError(f"lane {lane} is outside a simdgroup of {LANES}")
    quad = lane // 4
    row = (quad & 4) + (lane // 2) % 4
    col0 = (quad & 2) * 2 + (lane % 2) * 2
    return row, col0


def element_coord(lane: int, element: int) -> tuple[int, int]:
    """``(row, col)`` of element ``element`` (0 or 1, ``thread_elements()[element]``) of a lane."""
    if element not in (0, 1):
        raise ValueError(f"element {element}: each lane holds elements 0 and 1")
    row, col0 = lane_origin(lane)
    return row, col0 + element


def owner(row: int, col: int) -> tuple[int, int]:
    """``(lane, element)`` holding tile element ``(row, col)``: the inverse of ``element_coord``."""
    for lane in range(LANES):
        lane_row, col0 = lane_origin(lane)
        if lane_row == row and col0 <= col < col0 + ELEMENTS_PER_LANE:
            return lane, col - col0
    raise ValueError(f"({row}, {col}) is outside an {TILE}x{TILE} tile")


def distribute(tile: np.ndarray) -> np.ndarray:
    """An 8x8 tile as ``(32, 2)`` per-lane elements."""
    if tile.shape != (TILE, TILE):
        raise ValueError(f"expected an {TILE}x{TILE} tile, got {tile.shape}")
    out = np.empty((LANES, ELEMENTS_PER_LANE), dtype=tile.dtype)
    for lane in range(LANES):
        for element in range(ELEMENTS_PER_LANE):
            out[lane, element] = tile[element_coord(lane, element)]
    return out


def gather(per_lane: np.ndarray) -> np.ndarray:
    """``(32, 2)`` per-lane elements back into the 8x8 tile: the inverse of ``distribute``."""
    if per_lane.shape != (LANES, ELEMENTS_PER_LANE):
        raise ValueError(f"expected ({LANES}, {ELEMENTS_PER_LANE}) lane elements, got {per_lane.shape}")
    tile = np.empty((TILE, TILE), dtype=per_lane.dtype)
    for lane in range(LANES):
        for element in range(ELEMENTS_PER_LANE):
            tile[element_coord(lane, element)] = per_lane[lane, element]
    return tile


def lane_grid() -> list[list[int]]:
    """The owning lane of every element, as reference/agx.md draws it (for docs and tests)."""
    return [[owner(row, col)[0] for col in range(TILE)] for row in range(TILE)]
