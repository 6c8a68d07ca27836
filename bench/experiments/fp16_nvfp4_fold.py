"""Experiment: fp16 × NVFP4 with the ue4m3 scales folded into the fp16 values (run 150).

    python -m bench.experiments.fp16_nvfp4_fold --prepare   # here: into $QDOT_KERNEL_CACHE (+ FINGERPRINT)
    python -m bench.experiments.fp16_nvfp4_fold             # on the GPU machine, from that cache

Until commit 530967f dequant-bf16 with an fp16 operand (fp16 compute, the f16 mma) applied NVFP4's
ue4m3 scales to the f32 accumulator per 16-value block — an mma per block and an FMA per
accumulator register — because ue8m0 scales do not fit fp16's range; ue4m3 ones times e2m1 do,
exactly, and are now folded into the converted values as bf16 compute always did. Prepared once
with the compiler before and once after (each into its own cache), this times both builds'
fp16 × e2m1 kernel and, as the same run's reference, bf16 × e2m1 (which folded in both builds),
each checked first against a float64 GEMM of the decoded operands on fresh random inputs
(fp16_ldmatrix's loop, ``bench.mx_gemm.measure``: ue4m3 scale codes 0.125 … 4).
"""

from __future__ import annotations

import argparse

from bench.experiments.fp16_ldmatrix import compiled, prepare, run
from compiler.templates import GemmConfig

KERNELS = [  # (label, config): sm_90, strategy auto (dequant-bf16), 3 stages
    ("fp16 x nvfp4 128x128x64 w8", GemmConfig(lhs="fp16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3",
                                               block_k=64, num_warps=8)),
    ("bf16 x nvfp4 128x128x64 w8", GemmConfig(lhs="bf16", rhs="e2m1", lhs_scale=None, rhs_scale="ue4m3",
                                               block_k=64, num_warps=8)),
]


def compile_all() -> list:
    """Both kernels into the cache (``python -m bench.prepare experiments.fp16_nvfp4_fold``)."""
    return [compiled(cfg) for _, cfg in KERNELS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="compile the kernels into $QDOT_KERNEL_CACHE")
    args = parser.parse_args()
    if args.prepare:
        prepare(KERNELS)
    else:
        run(KERNELS)


if __name__ == "__main__":
    main()
