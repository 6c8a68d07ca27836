"""Run 157: the decode kernels with W as ggml lays it out against W repacked by ``tile_weights``
(``MmqConfig(tiled_weights=True)``), in one process, the list run forwards then backwards.

    python -m bench.prepare mmq      # here (the kernels below are bench.mmq's, or compiled on first use)
    PYTHONPATH=$PWD python bench/experiments/tiled_weights_ab.py   # on the GPU machine

Each row is bench.mmq's ``measure``: checked against ``compiler.numerics`` first, then MUL_MAT,
GEMM, kernel alone and MUL_MAT with L2 flushed."""

from dataclasses import replace

import bench.mmq as b
from compiler.mmq_template import MmqConfig

ONE_TOKEN = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, max_m=1, wait_previous_grid=True)
M8 = MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True, wait_previous_grid=True)
ENTRIES = [
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128", replace(ONE_TOKEN, l2_prefetch=128), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128 wt", replace(ONE_TOKEN, l2_prefetch=128, tiled_weights=True), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl l2p256 wt", replace(ONE_TOKEN, l2_prefetch=256, tiled_weights=True), 2),
    ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt", replace(ONE_TOKEN, tiled_weights=True), 2),
    ("small_m 64 w2 splitk s2 pdl", M8, 2),
    ("small_m 64 w2 splitk s2 pdl wt", replace(M8, tiled_weights=True), 2),
]

if __name__ == "__main__":
    b.PREFILL, b.OTHER_WEIGHTS = [], []
    for rep in range(2):
        b.DECODE = ENTRIES if rep == 0 else ENTRIES[::-1]
        b.run(False)
