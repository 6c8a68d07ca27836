"""Run 40: how fast can the decode kernel's data movement alone go? (experiment, GPU machine)

    PYTHONPATH=$PWD python bench/experiments/decode_stream.py            # run 40: stages
    PYTHONPATH=$PWD python bench/experiments/decode_stream.py --shapes   # run 41: rows × blocks
    PYTHONPATH=$PWD python bench/experiments/decode_stream.py --prefetch # run 59: L2 bulk prefetch

The decode kernel (``small_m 64 w2 splitk s2``) reached 69 % of copy bandwidth at M = 1,
32768 × 8192 (run 35), and cutting 18 % of its instructions (``max_m = 1``, run 38) did not
make it faster there, so its issue rate is not what bounds it. This times the kernel's copies
with no arithmetic: a program of 64 threads copies its 64 weight rows' q4_K blocks (144 bytes
each, rows 144 · K/256 bytes apart) for its share of K with cp.async into a ring of S stages
of shared memory, waits, reads one word per thread so that the copies are used, and moves on
— the same grid, split-K, stage count and shared memory per program as the real kernel.
Variants: the stage count, and the same bytes read contiguously (what the copy benchmark
does), so that the access pattern and the pipeline depth can be told apart. The kernel is CUDA
C compiled by NVRTC (CuPy), not qdot output: it is a measuring stick, not a candidate.

Run 59 (``--prefetch``): run 41 found that the 144-byte pieces of 64 rows cap the stream at
73–78 % and that runs of 576 bytes per row reach 91 %, but longer K steps cost shared memory.
Can the DRAM side see long runs while the copies stay 144 bytes? Each thread of the kernel's
pattern (64 rows × one block, 2 stages, the `.L2::128B` hint the compiled kernel uses) also asks
L2 for its row's next ``chunk`` blocks with one ``cp.async.bulk.prefetch.L2`` every ``chunk``
steps, ``ahead`` chunks before the copies reach them.
"""
from __future__ import annotations

import argparse
import json

import cupy

from bench.gpu_common import time_graph
from bench.mmq import copy_bandwidth

SOURCE = r"""
extern "C" __global__ void stream_rows(const unsigned char* __restrict__ w, unsigned int* out,
                                       int n, int kw, int contiguous, int stages, int pad_bytes,
                                       int rows, int kb) {
    // a stage: `rows` weight rows × `kb` q4_K blocks (144 · kb contiguous bytes per row)
    extern __shared__ __align__(16) unsigned char ring[];
    const int block = 144, per_row = 9 * kb, chunks = rows * per_row;   // 16-byte copies
    const int stage_bytes = rows * kb * block + pad_bytes;
    int splits = gridDim.y, per = (kw + splits - 1) / splits;
    int k_lo = blockIdx.y * per, k_hi = min(k_lo + per, kw);
    long row0 = (long)blockIdx.x * rows;
    unsigned int acc = 0;
    unsigned int base = (unsigned int)__cvta_generic_to_shared(ring);
    int steps = (k_hi - k_lo) / kb;
    for (int s = 0; s < steps + stages - 1; ++s) {
        if (s < steps) {
            int kk = k_lo + s * kb, slot = s % stages;
            for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
                int r = c / per_row, q = c % per_row;
                const unsigned char* src = contiguous
                    ? w + (((long)blockIdx.x * kw + kk) * rows * block) + (long)c * 16
                    : w + ((row0 + r) * kw + kk) * block + q * 16;
                unsigned int dst = base + slot * stage_bytes + c * 16;
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
            }
        }
        asm volatile("cp.async.commit_group;");
        if (s >= stages - 1) {
            // keep stages - 1 groups in flight (the compiled kernel at 2 stages: wait_group 1)
            if (stages == 2) asm volatile("cp.async.wait_group 1;");
            else if (stages == 3) asm volatile("cp.async.wait_group 2;");
            else if (stages == 4) asm volatile("cp.async.wait_group 3;");
            else asm volatile("cp.async.wait_group 5;");
            __syncthreads();
            int slot = (s - stages + 1) % stages;
            acc ^= *(const unsigned int*)(ring + slot * stage_bytes + threadIdx.x * 16);
            __syncthreads();
        }
    }
    out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void stream_rows_prefetch(const unsigned char* __restrict__ w, unsigned int* out,
                                                int n, int kw, int pad_bytes, int chunk, int ahead,
                                                int hint) {
    // the kernel's pattern: 64 rows × one q4_K block per stage, 2 stages, a row per thread for
    // the L2 prefetch (64 threads); `chunk` 0: no prefetch
    extern __shared__ __align__(16) unsigned char ring[];
    const int block = 144, rows = 64, per_row = 9, chunks = rows * per_row, stages = 2;
    const int stage_bytes = rows * block + pad_bytes;
    int splits = gridDim.y, per = (kw + splits - 1) / splits;
    int k_lo = blockIdx.y * per, k_hi = min(k_lo + per, kw);
    long row0 = (long)blockIdx.x * rows;
    unsigned int acc = 0;
    unsigned int base = (unsigned int)__cvta_generic_to_shared(ring);
    int steps = k_hi - k_lo;
    const unsigned char* my_row = w + (row0 + threadIdx.x) * kw * block;
    if (chunk > 0) {
        for (int c = 0; c < ahead; ++c) {
            int b0 = k_lo + c * chunk, b1 = min(b0 + chunk, k_hi);
            if (b0 < b1)
                asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(my_row + b0 * block),
                             "r"((b1 - b0) * block) : "memory");
        }
    }
    for (int s = 0; s < steps + stages - 1; ++s) {
        if (chunk > 0 && s < steps && s % chunk == 0) {
            int b0 = k_lo + s + ahead * chunk, b1 = min(b0 + chunk, k_hi);
            if (b0 < b1)
                asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(my_row + b0 * block),
                             "r"((b1 - b0) * block) : "memory");
        }
        if (s < steps) {
            int kk = k_lo + s, slot = s % stages;
            for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
                int r = c / per_row, q = c % per_row;
                const unsigned char* src = w + ((row0 + r) * kw + kk) * block + q * 16;
                unsigned int dst = base + slot * stage_bytes + c * 16;
                if (hint)
                    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" :: "r"(dst), "l"(src));
                else
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
            }
        }
        asm volatile("cp.async.commit_group;");
        if (s >= stages - 1) {
            asm volatile("cp.async.wait_group 1;");
            __syncthreads();
            int slot = (s - stages + 1) % stages;
            acc ^= *(const unsigned int*)(ring + slot * stage_bytes + threadIdx.x * 16);
            __syncthreads();
        }
    }
    out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = acc;
}
"""
# (2, 4480): two stages in 27.4 KB, the compiled kernel's shared memory per program, so 8
# programs per SM as there; (2, 0): the same ring without the scale/activation buffers.
STAGINGS = ((2, 4480), (2, 0), (3, 0), (4, 0), (6, 0))


def variants(shapes: bool, kw_per_split: int) -> list[tuple[int, int, int, int, int]]:
    """(contiguous, stages, pad, rows, blocks per row): run 40 the stage counts, run 41 (``--shapes``)
    the 9216-byte stage as rows × blocks per row, and two bigger stages."""
    if not shapes:
        return [(contiguous, stages, pad, 64, 1) for contiguous in (0, 1) for stages, pad in STAGINGS]
    return [(0, 2, 4480 if (rows, kb) == (64, 1) else 0, rows, kb)
            for rows, kb in ((64, 1), (32, 2), (16, 4), (8, 8), (64, 2), (32, 4)) if kw_per_split % kb == 0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", action="store_true", help="stage shapes (rows × blocks per row), not stage counts")
    parser.add_argument("--prefetch", action="store_true", help="the kernel's pattern with L2 bulk prefetches")
    args = parser.parse_args()
    module = cupy.RawModule(code=SOURCE, options=("-arch=sm_90",))
    if args.prefetch:
        _prefetch(module)
        return
    kernel = module.get_function("stream_rows")
    copy_gbs = copy_bandwidth(cupy)
    print(json.dumps({"copy_GBs": copy_gbs}), flush=True)
    for n, k, splits in ((32768, 8192, 2), (4096, 14336, 16)):
        kw = k // 256
        w = cupy.zeros(n * kw * 144, dtype=cupy.uint8)
        out = cupy.zeros(n * splits, dtype=cupy.uint32)
        for contiguous, stages, pad, rows, kb in variants(args.shapes, kw // splits):
            smem = stages * (rows * kb * 144 + pad)  # wait_group 5 at 6 stages: 5 in flight
            kernel.max_dynamic_shared_size_bytes = smem

            def launch() -> None:
                kernel((n // rows, splits, 1), (64, 1, 1),
                       (w, out, cupy.int32(n), cupy.int32(kw), cupy.int32(contiguous), cupy.int32(stages),
                        cupy.int32(pad), cupy.int32(rows), cupy.int32(kb)), shared_mem=smem)

            us = time_graph(cupy, launch)
            row = {"shape": f"N={n} K={k}", "splits": splits, "contiguous": bool(contiguous), "rows": rows,
                   "blocks_per_row": kb, "stages": stages, "smem": smem, "us": us,
                   "GBs": n * kw * 144 / us / 1e3, "of_copy": n * kw * 144 / us / 1e3 / copy_gbs}
            print(json.dumps(row), flush=True)


PREFETCHES = ((0, 0, 0), (0, 0, 1), (4, 1, 1), (4, 2, 1), (8, 1, 1), (8, 2, 1), (16, 1, 1), (4, 1, 0), (8, 1, 0))
"""(chunk blocks, chunks ahead, .L2::128B hint on the copies); chunk 0: no prefetch."""


def _prefetch(module: "cupy.RawModule") -> None:
    kernel = module.get_function("stream_rows_prefetch")
    copy_gbs = copy_bandwidth(cupy)
    print(json.dumps({"copy_GBs": copy_gbs}), flush=True)
    for n, k, splits in ((32768, 8192, 2), (32768, 8192, 4), (4096, 14336, 14)):
        kw = k // 256
        w = cupy.zeros(n * kw * 144, dtype=cupy.uint8)
        out = cupy.zeros(n * splits * 64, dtype=cupy.uint32)
        smem = 2 * (64 * 144 + 4480)
        kernel.max_dynamic_shared_size_bytes = smem
        for chunk, ahead, hint in PREFETCHES:
            def launch() -> None:
                kernel((n // 64, splits, 1), (64, 1, 1),
                       (w, out, cupy.int32(n), cupy.int32(kw), cupy.int32(4480), cupy.int32(chunk),
                        cupy.int32(ahead), cupy.int32(hint)), shared_mem=smem)

            us = time_graph(cupy, launch)
            row = {"shape": f"N={n} K={k}", "splits": splits, "chunk": chunk, "ahead": ahead, "hint": bool(hint),
                   "us": us, "GBs": n * kw * 144 / us / 1e3, "of_copy": n * kw * 144 / us / 1e3 / copy_gbs}
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
