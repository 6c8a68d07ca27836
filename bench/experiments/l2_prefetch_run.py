"""GPU side of run 31: the decode kernel and its hand-edited L2-prefetch variants, checked and timed alike.

    PYTHONPATH=$PWD QDOT_KERNEL_CACHE=$PWD/.devrun/kernels \
        QDOT_COMPILER_FINGERPRINT=$(cat .devrun/kernels/FINGERPRINT) \
        python bench/experiments/l2_prefetch_run.py DIR NAME...

Each variant DIR/NAME.ptx (from l2_prefetch_ptx.py) and the original run through
``bench.mmq.measure`` (checked against compiler.numerics, then timed), twice, interleaved.
"""
import json
import sys

import numpy as np
import cupy
from bench.mmq import DECODE, compile_quantizers, load_quantizers, measure, copy_bandwidth
from compiler.kernel_cache import get_or_compile
from compiler.mmq_template import mmq_kernel
from targets.ptx.runner import load

label, cfg, stages = DECODE[0]
compiled = get_or_compile(mmq_kernel(cfg), arch="sm_90", strategy="promote-int8", num_stages=stages)
info = compiled.kernels[0]
quantizers = load_quantizers(compile_quantizers())
rng = np.random.default_rng()
flush = cupy.empty(256 << 20, dtype=cupy.uint8)
print("copy", copy_bandwidth(cupy), flush=True)
variants = {"orig": compiled.ptx}
for name in sys.argv[2:]:
    variants[name] = open(f"{sys.argv[1]}/{name}.ptx").read()
shapes = [(1, 4096, 14336), (1, 32768, 8192), (1, 4096, 4096), (8, 4096, 14336), (8, 32768, 8192)]
for rep in range(2):
    for name, ptx in variants.items():
        kernel = load(ptx, info)
        for m, n, k in shapes:
            row = measure(cupy, kernel, quantizers, f"{name}", cfg, stages, info, m, n, k, rng, flush)
            print("ROW", json.dumps({"v": name, "rep": rep, "shape": row["shape"], "ok": row["ok"],
                                     "mul_mat": row["us_mul_mat"], "kernel": row["us_kernel"],
                                     "flushed": row.get("us_mul_mat_l2_flushed")}), flush=True)
