"""Experiment: a one-token q4_K GEMV that reads its weights straight into registers (GPU machine).

    python -m bench.experiments.decode_direct --prepare   # here: compile the qdot kernel it is compared with
    python -m bench.experiments.decode_direct             # on the GPU machine

The one-token decode kernel reaches 61 % (4096 × 14336) and 76 % (32768 × 8192) of copy
bandwidth, short of the 80 % goal; runs 40–106 found neither ring depth, occupancy, two tiles
in flight nor the copy order to be the lever, and its copies alone (same grid, cp.async ring)
reach 87–98 %. What is left is the chain each program runs per K step: wait for the copy, a
barrier, the scale decode through shared memory, ldmatrix / ld.shared, an m16n8k32 mma of
which one token column of eight is used. This measures the other design, llama.cpp's MMVQ
shape: no shared memory, no barrier, no mma — each warp owns one weight row, each lane loads
16 bytes of nibbles, its super-block's 16-byte header and 32 activation bytes with plain
16-byte global loads, multiplies with ``dp4a`` and folds the two 32-value sub-blocks' scales
(the same float64 meaning: ``d · sc · d_a · Σ q·x − dmin · m · s``), then the warp sums its lanes.
If this stream reaches 80 % where the compiled kernel does not, a "direct" lowering for M = 1
(global loads in a dot-operand-like layout and ``dp4a``) is the next thing to build; if not,
the 80 % goal is out of reach of either design on this GPU.

The kernel is CUDA C compiled by NVRTC (CuPy): a measuring stick, not qdot output. Each variant
(loop unrolled 1, 2 or 4 times; 4 or 8 warps per block) is checked against ``compiler.numerics``
(float64, relative error ≤ 1e-5) on fresh random inputs before it is timed; the compiled kernel
and the copy bandwidth are measured in the same run.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

SOURCE = r"""
#include <cuda_fp16.h>

struct Scales {
    // scales[12] of a q4_K header as three words; byte i without a local-memory array
    unsigned a, b, c;
    __device__ __forceinline__ int operator[](int i) const {
        const unsigned word = i < 4 ? a : i < 8 ? b : c;
        return (word >> ((i & 3) * 8)) & 0xFF;
    }
};

template <int UNROLL>
__device__ __forceinline__ void gemv_row(const unsigned char* __restrict__ row, const unsigned char* __restrict__ x,
                                         int kw, int lane, int part, int parts, float* out) {
    // lane: super-block group g (4 per warp-iteration), 16-byte part p of the 128 qs bytes
    const int g = lane >> 3, p = lane & 7, c = p >> 1, h = p & 1;
    const int off = (c & 1) * 64 + h * 16;          // low values' offset in their q8_1_mmq block
    const int j = 2 * c;                            // their sub-block; the high values' is j + 1
    float acc = 0.f;
#pragma unroll UNROLL
    for (int sb = 4 * part + g; sb < kw; sb += 4 * parts) {
        const unsigned char* blk = row + (long)sb * 144;
        const uint4 head = *(const uint4*)blk;                                // d, dmin, scales[12]
        const uint4 q = *(const uint4*)(blk + 16 + 32 * c + 16 * h);
        const unsigned char* xb = x + (long)(2 * sb + (c >> 1)) * 144;
        const uint4 xl = *(const uint4*)(xb + 16 + off);
        const uint4 xh = *(const uint4*)(xb + 16 + off + 32);
        const float2 ds_lo = __half22float2(((const __half2*)xb)[off >> 5]);
        const float2 ds_hi = __half22float2(((const __half2*)xb)[(off >> 5) + 1]);
        int lo = 0, hi = 0;
        lo = __dp4a((int)(q.x & 0x0F0F0F0Fu), (int)xl.x, lo); hi = __dp4a((int)((q.x >> 4) & 0x0F0F0F0Fu), (int)xh.x, hi);
        lo = __dp4a((int)(q.y & 0x0F0F0F0Fu), (int)xl.y, lo); hi = __dp4a((int)((q.y >> 4) & 0x0F0F0F0Fu), (int)xh.y, hi);
        lo = __dp4a((int)(q.z & 0x0F0F0F0Fu), (int)xl.z, lo); hi = __dp4a((int)((q.z >> 4) & 0x0F0F0F0Fu), (int)xh.z, hi);
        lo = __dp4a((int)(q.w & 0x0F0F0F0Fu), (int)xl.w, lo); hi = __dp4a((int)((q.w >> 4) & 0x0F0F0F0Fu), (int)xh.w, hi);
        // get_scale_min_k4 for sub-blocks j and j + 1 from scales[12] (bytes 4..15 of the header)
        const Scales s{head.y, head.z, head.w};
        int sc0, m0, sc1, m1;
        if (j < 4) {
            sc0 = s[j] & 63; m0 = s[j + 4] & 63; sc1 = s[j + 1] & 63; m1 = s[j + 5] & 63;
        } else {
            sc0 = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4); m0 = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
            sc1 = (s[j + 5] & 0xF) | ((s[j - 3] >> 6) << 4); m1 = (s[j + 5] >> 4) | ((s[j + 1] >> 6) << 4);
        }
        const float2 dd = __half22float2(*(const __half2*)&head.x);     // (d, dmin)
        acc += ds_lo.x * (dd.x * sc0) * (float)lo + ds_hi.x * (dd.x * sc1) * (float)hi;
        if (h == 0) acc -= dd.y * (m0 * ds_lo.y + m1 * ds_hi.y);      // the min term once per sub-block
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    *out = acc;
}

template <int UNROLL>
__device__ void gemv(const unsigned char* __restrict__ w, const unsigned char* __restrict__ x,
                     float* __restrict__ y, int n, int kw) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (warp >= n) return;
    float r;
    gemv_row<UNROLL>(w + (long)warp * kw * 144, x, kw, lane, 0, 1, &r);
    if (lane == 0) y[warp] = r;
}

template <int UNROLL>
__device__ void gemv_parts(const unsigned char* __restrict__ w, const unsigned char* __restrict__ x,
                           float* __restrict__ y, int n, int kw, int parts) {
    // `parts` consecutive warps of a block share a row, each taking every parts-th group of four
    // super-blocks: a block reads whole rows, consecutive blocks consecutive rows
    __shared__ float partial[32];
    const int wib = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int rows = (blockDim.x >> 5) / parts, row = blockIdx.x * rows + wib / parts;
    float r = 0.f;
    if (row < n) gemv_row<UNROLL>(w + (long)row * kw * 144, x, kw, lane, wib % parts, parts, &r);
    if (lane == 0) partial[wib] = r;
    __syncthreads();
    if (lane == 0 && wib % parts == 0 && row < n) {
        float sum = 0.f;
        for (int i = 0; i < parts; ++i) sum += partial[wib + i];
        y[row] = sum;
    }
}

template <int ROWS>
__device__ void gemv_rows(const unsigned char* __restrict__ w, const unsigned char* __restrict__ x,
                          float* __restrict__ y, int n, int kw) {
    // the warps of a block read ROWS consecutive rows one after the other, all of them on each
    // row at once (warp i takes every nw-th group of four super-blocks): a block streams one
    // contiguous stretch of ROWS whole rows, and keeps ROWS partial sums per lane
    __shared__ float partial[32][ROWS];
    const int wib = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    const int row0 = blockIdx.x * ROWS;
    float r[ROWS];
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
        r[i] = 0.f;
        if (row0 + i < n) gemv_row<1>(w + (long)(row0 + i) * kw * 144, x, kw, lane, wib, nw, &r[i]);
    }
    if (lane == 0) {
#pragma unroll
        for (int i = 0; i < ROWS; ++i) partial[wib][i] = r[i];
    }
    __syncthreads();
    if (threadIdx.x < ROWS && row0 + threadIdx.x < n) {
        float sum = 0.f;
        for (int i = 0; i < nw; ++i) sum += partial[i][threadIdx.x];
        y[row0 + threadIdx.x] = sum;
    }
}

extern "C" __global__ void gemv_u1(const unsigned char* w, const unsigned char* x, float* y, int n, int kw) { gemv<1>(w, x, y, n, kw); }
extern "C" __global__ void gemv_u2(const unsigned char* w, const unsigned char* x, float* y, int n, int kw) { gemv<2>(w, x, y, n, kw); }
extern "C" __global__ void gemv_u4(const unsigned char* w, const unsigned char* x, float* y, int n, int kw) { gemv<4>(w, x, y, n, kw); }
extern "C" __global__ void gemv_rows4(const unsigned char* w, const unsigned char* x, float* y, int n, int kw, int rows) { gemv_rows<4>(w, x, y, n, kw); }
extern "C" __global__ void gemv_rows8(const unsigned char* w, const unsigned char* x, float* y, int n, int kw, int rows) { gemv_rows<8>(w, x, y, n, kw); }
extern "C" __global__ void gemv_parts_u1(const unsigned char* w, const unsigned char* x, float* y, int n, int kw, int parts) { gemv_parts<1>(w, x, y, n, kw, parts); }
extern "C" __global__ void gemv_parts_u2(const unsigned char* w, const unsigned char* x, float* y, int n, int kw, int parts) { gemv_parts<2>(w, x, y, n, kw, parts); }
"""

SHAPES = ((4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584))
VARIANTS = [(f"gemv_u{unroll}", warps, 0, warps) for unroll in (1, 2, 4) for warps in (4, 8)]
VARIANTS += [(f"gemv_parts_u{unroll}", 8, parts, 8 // parts) for unroll in (1, 2) for parts in (2, 4, 8)]
VARIANTS += [(f"gemv_rows{rows}", warps, 0, rows) for rows in (4, 8) for warps in (4, 8)]
"""(kernel, warps per block, K parts per row — 0: the kernel takes no such argument —, rows per
block): one warp per row; a row shared by ``parts`` warps; the whole block on each of ``rows``
consecutive rows in turn."""
COMPARED = "small_m 64 w2 splitk s2 m1 fold=fma pdl l2p128"
"""The best one-token kernel of the benchmark (bench.mmq.DECODE), measured in the same run."""


def _compared():  # noqa: ANN202 - bench.mmq.compile_kernels rows
    from bench.mmq import DECODE, compile_kernels

    return compile_kernels([entry for entry in DECODE if entry[0] == COMPARED])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the qdot kernel into the cache")
    args = parser.parse_args()
    if args.prepare:
        from bench.mmq import compile_quantizers

        _compared()
        compile_quantizers()
        return
    _run()


def _run() -> None:
    import cupy

    from bench.gpu_common import time_graph
    from bench.mmq import QUANTIZERS, copy_bandwidth, compile_quantizers, measure, measuring_setup
    from compiler import numerics
    from compiler.quantize_template import quantize_grid
    from targets.ptx.runner import load
    from tests.gpu.mmq_harness import random_weight_blocks

    module = cupy.RawModule(code=SOURCE, options=("-arch=sm_90", "-std=c++17"))
    copy_gbs = copy_bandwidth(cupy)
    print(json.dumps({"copy_GBs": copy_gbs}), flush=True)
    quantizers, rng, flush = measuring_setup(cupy, compile_quantizers())
    assert (False, False) in QUANTIZERS
    quantize = quantizers[(False, False)]
    label, cfg, stages, compiled = _compared()[0]
    qdot_kernel = load(compiled.ptx, compiled.kernels[0])
    for n, k in SHAPES:
        kw = k // 256
        weight_bytes = n * kw * 144
        row = measure(cupy, qdot_kernel, quantizers, label, cfg, stages, compiled.kernels[0], 1, n, k, rng, flush)
        print(json.dumps({"kernel": label, "shape": f"N={n} K={k}", "ok": row["ok"],
                          "us_kernel": row["us_kernel"], "us_mul_mat": row["us_mul_mat"],
                          "of_copy_kernel": weight_bytes / row["us_kernel"] / 1e3 / copy_gbs,
                          "of_copy_mul_mat": weight_bytes / row["us_mul_mat"] / 1e3 / copy_gbs}), flush=True)
        w_host = random_weight_blocks(n, k, rng)
        x_host = rng.standard_normal((1, k)).astype(np.float32)
        xq_host = numerics.quantize("q8_1_mmq", x_host).reshape(1, k // 128, 144)
        ref = numerics.dot_scaled(xq_host, w_host.transpose(1, 0, 2), lhs="q8_1_mmq", rhs="q4_K",
                                  use_block_sums=True)[0]
        w, x = cupy.asarray(w_host), cupy.asarray(x_host)
        xq = cupy.asarray(xq_host)
        y = cupy.full((n,), cupy.nan, dtype=cupy.float32)
        for name, warps, parts, rows in VARIANTS:
            fn = module.get_function(name)
            grid = (-(-n // rows),)
            extra = (np.int32(parts),) if parts else (np.int32(rows),) if name.startswith("gemv_rows") else ()

            def kernel_only(fn=fn, warps=warps, grid=grid, extra=extra) -> None:  # noqa: ANN001
                fn(grid, (32 * warps,), (w, xq, y, np.int32(n), np.int32(kw), *extra))

            def mul_mat(kernel_only=kernel_only) -> None:  # noqa: ANN001
                quantize.launch(x, xq, 1, k, grid=quantize_grid(1, k), sync=False)
                kernel_only()

            y.fill(cupy.nan)
            mul_mat()
            cupy.cuda.get_current_stream().synchronize()
            out = cupy.asnumpy(y).astype(np.float64)
            err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
            quant_ok = bool(np.array_equal(cupy.asnumpy(xq), xq_host))
            us_kernel, us_mul_mat = time_graph(cupy, kernel_only), time_graph(cupy, mul_mat)
            variant = f"direct dp4a {name} w{warps}" + (f" parts {parts}" if parts else "")
            print(json.dumps({"kernel": variant, "shape": f"N={n} K={k}",
                              "rel_err": err, "quantize_bit_exact": quant_ok, "ok": err <= 1e-5 and quant_ok,
                              "us_kernel": us_kernel, "us_mul_mat": us_mul_mat,
                              "of_copy_kernel": weight_bytes / us_kernel / 1e3 / copy_gbs,
                              "of_copy_mul_mat": weight_bytes / us_mul_mat / 1e3 / copy_gbs}), flush=True)


if __name__ == "__main__":
    main()
