"""Experiment: the ceiling of the q4_K fold on f16 operands that hold the integers exactly, beside today's s8 form.

    PYTHONPATH=$PWD python -m bench.experiments.f16_fold_ceiling      # on the GPU machine
    python -m bench.experiments.f16_fold_ceiling --source > f.cu       # the CUDA text, to compile on a CPU

The M = 512 prefill kernel spends most of its issue slots on the per-32-value rescale: each s8
``mma.sync`` m16n8k32 block sum is folded into the f32 sum with two FFMAs per accumulator register
(the magic-number form of ``qdot-lower-mma``). RESULTS ("What the unmet M = 512 goal asks", fifty-fifth
session) weighed, on paper only, a third form: f16 operands that hold the integers exactly — the q8_1
code (|q| ≤ 127) and the q4_K code times its 6-bit scale (≤ 945) — so that the weights' scale rides in
the operand, each block's sum (two m16n8k16, the first from zero) is exact in f32, and the fold is one
FFMA per register and block (the activation's d) into a super-block sum, plus one per register and
super-block (the weights' d) into the result. It costs twice the accumulator registers and f16's
half-rate tensor core. Which is faster with nothing else to do? Each warp here holds a 32 × 64 tile
(2 × 8 mma tiles: 64 f32 registers per sum, so the f16 form's two sums fit), 8 warps per SM, operands
in registers (no shared memory, no copies), scales constant:

* ``s8 chained``: 16 IMMA m16n8k32 per k32 block into s32 sums — the s8 tensor ceiling at this tile;
* ``s8 magic``: each block's IMMA from 0x4B400000, folded ``acc = fma(fma(bits, s, -1.5·2^23·s), t, acc)``
  (s the row's scale, t the column's: two FFMAs, what the prefill kernel runs);
* ``f16 chained``: 32 HMMA m16n8k16 per k32 block into f32 sums — f16's tensor ceiling;
* ``f16 fold``: per block two HMMA per tile (the first from zero), ``blk = fma(p, t, blk)``, and every
  8 blocks ``acc = fma(blk, s, acc)``, ``blk = 0``: the third form.

CUDA C with inline PTX through NVRTC: a measuring stick, not qdot output. TOP/s counts 2 · 32 · 64 · 32
per warp and k32 block in every form.
"""
from __future__ import annotations

import argparse
import json

FORMS = ("s8 chained", "s8 magic", "f16 chained", "f16 fold")
STEPS = 4096  # k32 blocks per warp
WARPS = 8
SUPER = 8  # k32 blocks per q4_K super-block

_IMMA = ('asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, '
         '{%8, %9}, {%0, %1, %2, %3};" : "+r"(D[0]), "+r"(D[1]), "+r"(D[2]), "+r"(D[3]) : "r"(a[m][0]), '
         '"r"(a[m][1]), "r"(a[m][2]), "r"(a[m][3]), "r"(b[n][0]), "r"(b[n][1]));')
_HMMA = ('asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, '
         '{%8, %9}, {%0, %1, %2, %3};" : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3]) : "r"(a[m][H]), '
         '"r"(a[m][H + 1]), "r"(a[m][H + 2]), "r"(a[m][H + 3]), "r"(b[n][H / 2]), "r"(b[n][H / 2 + 1]));')


def _block(form: str) -> str:
    """The body of one k32 block for mma tile (m, n) of the warp's 2 × 8: registers 4·(8m + n) … + 3."""
    if form == "s8 chained":
        return "{ int* D = &si[4 * (8 * m + n)]; " + _IMMA + " }"
    if form == "s8 magic":
        return ("{ int D[4] = {0x4B400000, 0x4B400000, 0x4B400000, 0x4B400000}; " + _IMMA + "\n"
                "  #pragma unroll\n  for (int r = 0; r < 4; ++r) { float* c = &acc[4 * (8 * m + n) + r]; "
                "*c = fmaf(fmaf(__int_as_float(D[r]), s[2 * m + (r >> 1)], ns[2 * m + (r >> 1)]), t[n], *c); } }")
    if form == "f16 chained":
        return ("{ float* D = &acc[4 * (8 * m + n)]; { const int H = 0; " + _HMMA + " } { const int H = 4; "
                + _HMMA + " } }")
    return ("{ float D[4] = {0.f, 0.f, 0.f, 0.f}; { const int H = 0; " + _HMMA + " } { const int H = 4; "
            + _HMMA + " }\n  #pragma unroll\n  for (int r = 0; r < 4; ++r) { float* c = &blk[4 * (8 * m + n) + r]; "
            "*c = fmaf(D[r], t[n], *c); } }")


def source(forms: tuple[str, ...] = FORMS) -> str:
    """The CUDA text of ``forms`` (all four by default), each kernel named ``form<i>`` by its place in FORMS."""
    kernels = []
    for form in forms:
        index = FORMS.index(form)
        after = ""
        if form == "f16 fold":
            after = f"""
        if ((step & {SUPER - 1}) == {SUPER - 1}) {{
            #pragma unroll
            for (int i = 0; i < 64; ++i) {{
                acc[i] = fmaf(blk[i], s[i >> 5 << 1 | (i >> 1 & 1)], acc[i]);
                blk[i] = 0.f;
            }}
        }}"""
        kernels.append(f"""
extern "C" __global__ void __launch_bounds__({32 * WARPS}, 1) form{index}(float* out, int steps) {{
    unsigned int a[2][8], b[8][4];  // A: 2 m16 tiles x (k32 as 4 regs of s8 / two k16 of f16); B: 8 n8 tiles
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 8; ++j) a[i][j] = 0x3C003C00u ^ (threadIdx.x + i + j);
    for (int i = 0; i < 8; ++i) for (int j = 0; j < 4; ++j) b[i][j] = 0x3C003C00u ^ (threadIdx.x * 3 + i + j);
    float acc[64], blk[64], s[4], ns[4], t[8]; int si[64];
    for (int i = 0; i < 64; ++i) {{ acc[i] = 0.f; blk[i] = 0.f; si[i] = 0; }}
    for (int i = 0; i < 4; ++i) {{ s[i] = 1.f + i * 1e-3f; ns[i] = -12582912.f * s[i]; }}
    for (int i = 0; i < 8; ++i) t[i] = 1.f + threadIdx.x * 1e-4f + i * 1e-3f;
    for (int step = 0; step < steps; ++step) {{
        #pragma unroll
        for (int m = 0; m < 2; ++m) {{
            #pragma unroll
            for (int n = 0; n < 8; ++n) {_block(form)}
        }}{after}
    }}
    float sum = 0.f;
    for (int i = 0; i < 64; ++i) sum += acc[i] + blk[i] + (float)si[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}}""")
    return "\n".join(kernels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="store_true", help="print the CUDA text and exit")
    parser.add_argument("--reps", type=int, default=2, help="rounds over the forms (default 2)")
    args = parser.parse_args()
    if args.source:
        print(source())
        return
    import cupy

    from bench.gpu_common import time_launch

    module = cupy.RawModule(code=source(), options=("-arch=sm_90a", "-std=c++17"))
    props = cupy.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    out = cupy.zeros(sms * 32 * WARPS, dtype=cupy.float32)
    for round_ in range(args.reps):
        for index, form in enumerate(FORMS):
            kernel = module.get_function(f"form{index}")

            def launch(kernel=kernel) -> None:  # noqa: ANN001
                kernel((sms, 1, 1), (32 * WARPS, 1, 1), (out, cupy.int32(STEPS)))

            us = time_launch(cupy, launch)
            ops = sms * WARPS * STEPS * 2 * 32 * 64 * 32
            print(json.dumps({"round": round_ + 1, "form": form, "us": round(us, 2), "tops": round(ops / us / 1e6, 1),
                              "device": props["name"].decode(), "ctas": sms, "warps_per_sm": WARPS,
                              "tile_per_warp": "32x64", "k32_blocks": STEPS}), flush=True)


if __name__ == "__main__":
    main()
