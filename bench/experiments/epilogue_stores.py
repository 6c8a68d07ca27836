"""Experiment: what the MX GEMM's epilogue costs, and what a staged one would (GPU machine).

    PYTHONPATH=$PWD python bench/experiments/epilogue_stores.py

Run 50 left ~8.5 µs per wave of the 128×256 wgmma kernel outside its K loop, and run 48 showed
that halving the epilogue's store instructions (4-byte → paired 8-byte stores) bought 7 % at
4096³. Would fewer, wider, row-contiguous stores buy more? This times the epilogue alone: 256
threads per CTA holding a 128 × 256 f32 tile in the wgmma accumulator layout (warp group g,
warp w, lane l: rows 64g + 16(w mod 4) + l/4 + 8h, columns 8j + 2(l mod 4) + e), one CTA per SM
(150 KB of shared memory, as the kernel), each CTA first spinning for a fixed number of cycles
(the K loop's stand-in, so that the waves run in lockstep as the kernel's do), then writing its
tile in one of these ways:

- ``none``: no store (the spin and the CTA launches alone);
- ``v1``: one 4-byte store per element (qdot without a known-even N);
- ``v2``: one 8-byte store per column pair (qdot with ``n_divisibility``, today);
- ``warp_v4``: each warp stages 16 rows × 64 columns at a time in its own 4.5 KB of shared memory
  (``st.shared.v2``, rows padded to 72 words: no bank conflict), ``__syncwarp``, reads rows
  back as 16-byte vectors and stores them (``st.global.v4``: two 256-byte row pieces per
  instruction instead of eight 32-byte ones);
- ``cta_v4``: the whole tile staged in shared memory (rows padded to 264 words), one barrier,
  then each thread stores 16-byte vectors of whole rows;
- ``cta_bulk``: the same staging, then 128 threads each copy one 1 KB row with
  ``cp.async.bulk.global.shared::cta`` (the copy engine, not the LSU).

Every variant's C is checked against the values it should hold before it is timed. CUDA C
through NVRTC (CuPy): a measuring stick, not qdot output.
"""

from __future__ import annotations

import argparse
import json

import cupy
import numpy as np

from bench.gpu_common import time_graph

SOURCE = r"""
#define TN 256
__device__ __forceinline__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}

// the value of element (row, col): exact in f32 for the shapes used
__device__ __forceinline__ float base_value(int row, int col) { return (float)(row * 7 + col * 3); }

template <int V>
__device__ void epilogue(float* __restrict__ C, int M, int N, long long cycles) {
    extern __shared__ __align__(16) float smem[];
    spin(cycles);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int row0 = blockIdx.y * 128, col0 = blockIdx.x * TN;
    const int r_t = (warp >> 2) * 64 + (warp & 3) * 16 + (lane >> 2);   // + 8h
    const int c_t = 2 * (lane & 3);                                       // + 8j + e
    const float v0 = base_value(row0 + r_t, col0 + c_t);
    // register (j, h, e) holds base_value(row, col) = v0 + 7·8h + 3·(8j + e)
    if (V == 0) {
        if (v0 < -1.0f) C[0] = v0;  // never: keeps the spin
    } else if (V == 1 || V == 2) {
#pragma unroll
        for (int j = 0; j < TN / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                int row = row0 + r_t + 8 * h, col = col0 + c_t + 8 * j;
                float a = v0 + (float)(56 * h + 24 * j), b = a + 3.0f;
                if (row < M && col < N) {
                    float* p = C + (long)row * N + col;
                    if (V == 1) { p[0] = a; p[1] = b; }
                    else *(float2*)p = make_float2(a, b);
                }
            }
    } else if (V == 3) {
        float* s = smem + warp * 16 * 72;
#pragma unroll
        for (int q = 0; q < TN / 64; ++q) {
#pragma unroll
            for (int jj = 0; jj < 8; ++jj)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    float a = v0 + (float)(56 * h + 24 * (8 * q + jj));
                    *(float2*)(s + ((lane >> 2) + 8 * h) * 72 + jj * 8 + c_t) = make_float2(a, a + 3.0f);
                }
            __syncwarp();
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                int idx = i * 32 + lane, r = idx >> 4, c4 = idx & 15;
                float4 x = *(const float4*)(s + r * 72 + c4 * 4);
                int row = row0 + (warp >> 2) * 64 + (warp & 3) * 16 + r, col = col0 + q * 64 + c4 * 4;
                if (row < M && col < N) *(float4*)(C + (long)row * N + col) = x;
            }
            __syncwarp();
        }
    } else {
#pragma unroll
        for (int j = 0; j < TN / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float a = v0 + (float)(56 * h + 24 * j);
                *(float2*)(smem + (r_t + 8 * h) * 264 + 8 * j + c_t) = make_float2(a, a + 3.0f);
            }
        if (V == 5) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (V == 4) {
#pragma unroll 4
            for (int i = 0; i < 32; ++i) {
                int idx = i * 256 + tid, r = idx >> 6, c4 = idx & 63;
                float4 x = *(const float4*)(smem + r * 264 + c4 * 4);
                int row = row0 + r, col = col0 + c4 * 4;
                if (row < M && col < N) *(float4*)(C + (long)row * N + col) = x;
            }
        } else if (tid < 128 && row0 + tid < M) {
            unsigned int src = (unsigned int)__cvta_generic_to_shared(smem + tid * 264);
            float* dst = C + (long)(row0 + tid) * N + col0;
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                         :: "l"(dst), "r"(src) : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
    }
}

extern "C" __global__ void __launch_bounds__(256, 1) epi_none(float* C, int M, int N, long long c) { epilogue<0>(C, M, N, c); }
extern "C" __global__ void __launch_bounds__(256, 1) epi_v1(float* C, int M, int N, long long c) { epilogue<1>(C, M, N, c); }
extern "C" __global__ void __launch_bounds__(256, 1) epi_v2(float* C, int M, int N, long long c) { epilogue<2>(C, M, N, c); }
extern "C" __global__ void __launch_bounds__(256, 1) epi_warp_v4(float* C, int M, int N, long long c) { epilogue<3>(C, M, N, c); }
extern "C" __global__ void __launch_bounds__(256, 1) epi_cta_v4(float* C, int M, int N, long long c) { epilogue<4>(C, M, N, c); }
extern "C" __global__ void __launch_bounds__(256, 1) epi_cta_bulk(float* C, int M, int N, long long c) { epilogue<5>(C, M, N, c); }
"""

VARIANTS = ("none", "v1", "v2", "warp_v4", "cta_v4", "cta_bulk")
SHARED_BYTES = 150 * 1024  # the 128×256×64 wgmma kernel's 3 stages: one CTA per SM
SMS = 132


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spin", type=int, nargs="+", default=[0, 20000, 160000],
                        help="cycles each CTA spins before its epilogue (the K loop's stand-in)")
    args = parser.parse_args()
    module = cupy.RawModule(code=SOURCE, options=("-arch=sm_90a",))
    for m, n in ((4096, 4096), (8192, 8192)):
        rows, cols = np.meshgrid(np.arange(m, dtype=np.int64), np.arange(n, dtype=np.int64), indexing="ij")
        expected = cupy.asarray((rows * 7 + cols * 3).astype(np.float32))
        c = cupy.empty((m, n), dtype=cupy.float32)
        grid = (n // 256, m // 128)
        waves = -(-grid[0] * grid[1] // SMS)
        for cycles in args.spin:
            base = None
            for name in VARIANTS:
                kernel = module.get_function(f"epi_{name}")
                kernel.max_dynamic_shared_size_bytes = SHARED_BYTES

                def launch(kernel=kernel, cycles=cycles) -> None:  # noqa: ANN001
                    kernel(grid, (256,), (c, np.int32(m), np.int32(n), np.int64(cycles)),
                           shared_mem=SHARED_BYTES)

                c.fill(cupy.nan)
                launch()
                cupy.cuda.runtime.deviceSynchronize()
                ok = name == "none" or bool(cupy.array_equal(c, expected))
                us = time_graph(cupy, launch)
                base = us if name == "none" else base
                row = {"experiment": "epilogue_stores", "variant": name, "m": m, "n": n, "spin_cycles": cycles,
                       "us": round(us, 2), "waves": waves, "correct": ok,
                       "us_per_wave_over_none": round((us - base) / waves, 3)}
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
