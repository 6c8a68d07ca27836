"""W repacked once on the host into the order the ``tiled_weights`` kernels read (``tile_weights``).

The blocks stay ggml's, byte for byte; only their order changes, so that a program's tile of one K step is one
contiguous run of memory (one long copy instead of one per weight row).
"""

from __future__ import annotations

import numpy as np

from compiler.format_table import FORMATS
from compiler.mmq_config import K_STEP_VALUES, MmqConfig


def tile_weights(blocks: np.ndarray, cfg: MmqConfig) -> np.ndarray:
    """W's blocks (a uint8 array [N, K/bv, bytes] or [N, K/bv · bytes], ggml's row-major array of
    ``cfg.weights`` blocks) in the order ``cfg`` (``tiled_weights=True``) reads:
    [ceil(N / block_n), K/256, block_n, the bytes of one row's 256-value K step] (q4_K: one
    144-byte super-block, q4_0: eight 18-byte blocks, q8_0: eight 34-byte ones), rows past N
    zero blocks (d = 0: they add nothing, and their outputs are not stored). Each block's bytes
    are ggml's, unchanged. It takes the config, not its ``block_n``, because an array of
    another tile height has the same size and would be read without complaint.

    W's rows come first: an array whose first axis is not its outermost in memory — W viewed as
    [K/bv, N, bytes], the layout ``numerics.dot_scaled`` takes (``w.transpose(1, 0, 2)``) — is refused,
    as it would be read as K/bv rows of N blocks. A [K/bv, N, bytes] array copied into row-major order
    has a valid shape and cannot be told apart: pass W itself."""
    if not isinstance(cfg, MmqConfig):
        raise TypeError(f"tile_weights: cfg must be the MmqConfig that reads W (tiled_weights=True), got "
                        f"{type(cfg).__name__}")
    if not isinstance(blocks, np.ndarray):
        raise TypeError(f"tile_weights: blocks must be a numpy array, uint8 [N, K/bv, bytes] or [N, K/bv · bytes] "
                        f"(ggml's row-major {cfg.weights} blocks), got {type(blocks).__name__}")
    if not cfg.tiled_weights:
        raise ValueError(f"tile_weights: {cfg.name} reads W in ggml's order (tiled_weights=False): pass W as it is")
    size, values = FORMATS[cfg.weights].block_bytes, FORMATS[cfg.weights].block_values
    assert size is not None and values is not None
    step = K_STEP_VALUES // values * size
    row_bytes = blocks.shape[1] * (blocks.shape[2] if blocks.ndim == 3 else 1) if blocks.ndim >= 2 else 0
    if blocks.dtype != np.uint8 or blocks.ndim not in (2, 3) or (blocks.ndim == 3 and blocks.shape[2] != size) \
            or not blocks.shape[0] or not row_bytes or row_bytes % step:
        raise ValueError(f"tile_weights: expected {cfg.weights} blocks as uint8 [N, K/{values}, {size}] or "
                         f"[N, K/{values} · {size}] with N ≥ 1 and K a multiple of {K_STEP_VALUES}, got "
                         f"{blocks.dtype} {list(blocks.shape)}")
    if blocks.shape[0] > 1 and blocks.shape[1] > 1 and blocks.strides[0] < blocks.strides[1]:
        hint = (f": W seen as [K/{values}, N, {size}], as numerics.dot_scaled takes it? Pass W itself, not its "
                "transpose" if blocks.ndim == 3 else "")
        raise ValueError(f"tile_weights: expected {cfg.weights} blocks in ggml's order, uint8 [N, K/{values}, {size}] "
                         f"or [N, K/{values} · {size}] row-major (a row's blocks contiguous), got a "
                         f"{list(blocks.shape)} array whose second axis is its outermost (strides "
                         f"{list(blocks.strides)}){hint}")
    block_n = cfg.block_n
    n = blocks.shape[0]
    rows = blocks.reshape(n, -1, step)
    tiles = -(-n // block_n)
    padded = np.zeros((tiles * block_n, *rows.shape[1:]), dtype=np.uint8)
    padded[:n] = rows
    return np.ascontiguousarray(padded.reshape(tiles, block_n, *rows.shape[1:]).transpose(0, 2, 1, 3))
