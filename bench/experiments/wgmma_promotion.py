"""Experiment: the ceiling of wgmma with fp8 / s8 operands and a per-32 FP32 promotion (run 66).

    PYTHONPATH=$PWD python bench/experiments/wgmma_promotion.py     # on the GPU machine (runs 66, 67, 72)

The MX GEMMs run on bf16 wgmma (dequant-bf16: 400 TFLOP/s at 8192³, 40 % of the bf16 peak) or
on s8 ``mma.sync`` (promote-int8: 184 TOP/s, where the exact per-32 rescale of every mma result
costs more issue slots than the mma). Hopper's wgmma also takes e4m3 and s8 operands at twice
the bf16 rate, k32 per instruction — one MX scale block. A kernel could run each k32 block's
wgmma into a fresh partial accumulator (scale-d = 0) and fold it into the f32 accumulator with
its block scales (two FP32 operations per element), the next block's wgmma running meanwhile
(two partial sets). What would that reach? This times the tensor and FP32 work alone: two
warpgroups per CTA, one CTA per SM, operands read from constant shared memory (no global
traffic, no conversion), m64n128 per warpgroup (two warpgroups) or m64n64 (four), in five forms:

* ``bf16``: two chained m64n128k16 bf16 wgmma per k32 — the instruction the kernels use now;
* ``e4m3``: one chained m64n128k32 e4m3 wgmma per k32 — the fp8 ceiling;
* ``e4m3 promoted``: per k32 a fresh e4m3 wgmma into one of two partial sets, and the other set
  folded in: ``acc = fma(p · sb[col], sa[row], acc)`` (FMUL + FFMA per element);
* ``s8 promoted``: the same with s8 operands and an s32 partial: ``cvt.rn.f32.s32``, FMUL, FFMA;
* ``s8 promoted magic``: the s32 partial starts from 0x4B400000 (1.5 · 2^23's bits; wgmma adds
  integers, so its bits read as the float 1.5 · 2^23 + p for |p| < 2^22) and is folded with two
  FFMAs, ``acc = fma(bits, s, fma(-1.5 · 2^23, s, acc))``, s = sa[row] · sb[col] (FMUL) —
  the magic-number trick of ``qdot-lower-mma`` on wgmma.

CUDA C with inline PTX through NVRTC: a measuring stick, not qdot output. TFLOP/s counts 2 ·
64 · 128 · 32 per wgmma k32 block.
"""
from __future__ import annotations

import json

import cupy

FORMS = ("bf16", "e4m3", "e4m3 promoted", "s8 promoted", "s8 promoted magic")
SHAPES = ((128, 2), (64, 4))
"""(N of each warpgroup's m64nN tile, warpgroups per CTA): the same tensor work per SM, in two
warpgroups of m64n128 or four of m64n64 (more warpgroups to overlap one's FP32 fold with the
others' wgmma)."""
STEPS = 4096  # k32 blocks per warpgroup


def _wgmma(form: str, regs: str, scale_d: str, n: int) -> str:
    """One inline-asm statement: the wgmma(s) of one k32 block into the registers ``regs``
    (a C array of n / 2 floats or ints), accumulating when ``scale_d`` is nonzero."""
    count = n // 2
    outs = ", ".join(f'"+{"r" if form.startswith("s8") else "f"}"({regs}[{i}])' for i in range(count))
    args = f'"l"(da), "l"(db), "r"({scale_d})'
    d = "{" + ", ".join(f"%{i}" for i in range(count)) + "}"
    a, b, s = count, count + 1, count + 2
    if form == "bf16":
        body = "".join(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 {d}, %{a}, %{b}, p, 1, 1, 0, 0;\\n"
                       for _ in range(2))
    elif form.startswith("e4m3"):
        body = f"wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.e4m3 {d}, %{a}, %{b}, p, 1, 1;\\n"
    else:
        body = f"wgmma.mma_async.sync.aligned.m64n{n}k32.s32.s8.s8 {d}, %{a}, %{b}, p;\\n"
    return (f'asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{s}, 0;\\n{body}}}\\n" : {outs} : {args});')


def source() -> str:
    kernels = []
    for (n, warpgroups), (index, form) in ((shape, item) for shape in SHAPES for item in enumerate(FORMS)):
        regs = n // 2  # f32 / s32 accumulators per thread of an m64nN tile
        promoted = "promoted" in form
        acc_type = "int" if form.startswith("s8") else "float"
        if not promoted:
            loop = f"""
    for (int s = 0; s < steps; ++s) {{
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        {_wgmma(form, "acc", "1", n)}
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }}
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");"""
            decl = f"float acc[{regs}];\n    for (int i = 0; i < {regs}; ++i) acc[i] = 0.f;"
            result = "acc[i]"
        else:
            if form == "s8 promoted magic":
                init, fold = "0x4B400000", """
            float s = sa * sb[i];
            acc[i] = fmaf(__int_as_float(q[i]), s, fmaf(-12582912.f, s, acc[i]));
            q[i] = 0x4B400000;"""
            elif form == "s8 promoted":
                init, fold = "0", """
            acc[i] = fmaf((float)q[i] * sb[i], sa, acc[i]);"""
            else:
                init, fold = "0.f", """
            acc[i] = fmaf(q[i] * sb[i], sa, acc[i]);"""
            decl = f"""float acc[{regs}]; {acc_type} p0[{regs}], p1[{regs}]; float sb[{regs}];
    for (int i = 0; i < {regs}; ++i) {{ acc[i] = 0.f; p0[i] = {init}; p1[i] = {init}; sb[i] = 1.f + i * 1e-3f; }}
    const float sa = 1.f + threadIdx.x * 1e-4f;"""
            scale = "1" if form == "s8 promoted magic" else "0"
            loop = f"""
    for (int s = 0; s < steps; s += 2) {{
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        {_wgmma(form, "p0", scale, n)}
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        {{ {acc_type}* q = p1;
        #pragma unroll
        for (int i = 0; i < {regs}; ++i) {{{fold}
        }} }}
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        {_wgmma(form, "p1", scale, n)}
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        {{ {acc_type}* q = p0;
        #pragma unroll
        for (int i = 0; i < {regs}; ++i) {{{fold}
        }} }}
    }}
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");"""
            result = "acc[i]"
        kernels.append(f"""
extern "C" __global__ void __launch_bounds__({128 * warpgroups}, 1) form{index}_n{n}(float* out, int steps) {{
    extern __shared__ __align__(1024) unsigned char smem[];
    for (int i = threadIdx.x; i < 32768 / 4; i += blockDim.x) ((unsigned int*)smem)[i] = 0x3c003c00u;
    __syncthreads();
    unsigned int base = (unsigned int)__cvta_generic_to_shared(smem);
    // K-major, no swizzle: core matrices of 8 rows x 16 bytes, LBO 128 B along K, SBO 256 B per 8 rows
    unsigned long long high = (unsigned long long)(128 >> 4) << 16 | (unsigned long long)(256 >> 4) << 32;
    unsigned long long da = ((base & 0x3FFFF) >> 4) | high;
    unsigned long long db = (((base + 16384) & 0x3FFFF) >> 4) | high;
    {decl}
    {loop}
    float sum = 0.f;
    for (int i = 0; i < {regs}; ++i) sum += (float){result};
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}}""")
    return "\n".join(kernels)


MMA_FORMS = ("s8 mma.sync chained", "s8 mma.sync promoted", "s8 mma.sync promoted magic")
"""Run 72: the same per-32 fold on ``mma.sync`` m16n8k32 s8 — what promote-int8 runs today —
each of 8 warps a 64 × 64 tile (32 IMMA per k32 block, the 128×256 kernel's warp tile),
operands in registers (no ldmatrix, no copies): the ceiling of today's form to set the wgmma
one against."""


def mma_source() -> str:
    kernels = []
    for index, form in enumerate(MMA_FORMS):
        chained = "chained" in form
        magic = "magic" in form
        if chained:
            fold = "acc_i[t * 4 + r] = d[r];"
            init_d = "acc_i[t * 4 + r]"
        elif magic:
            fold = ("float s = sa[t >> 3] * sb[t & 7]; "
                    "acc[t * 4 + r] = fmaf(__int_as_float(d[r]), s, fmaf(-12582912.f, s, acc[t * 4 + r]));")
            init_d = "0x4B400000"
        else:
            fold = "acc[t * 4 + r] = fmaf((float)d[r] * sb[t & 7], sa[t >> 3], acc[t * 4 + r]);"
            init_d = "0"
        kernels.append(f"""
extern "C" __global__ void __launch_bounds__(256, 1) mma{index}(float* out, int steps) {{
    unsigned int a[4][4], b[8][2];
    for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) a[i][j] = 0x01020304u * (threadIdx.x + i + j);
    for (int i = 0; i < 8; ++i) for (int j = 0; j < 2; ++j) b[i][j] = 0x04030201u * (threadIdx.x + i + j);
    float acc[128]; int acc_i[128]; float sa[4], sb[8];
    for (int i = 0; i < 128; ++i) {{ acc[i] = 0.f; acc_i[i] = 0; }}
    for (int i = 0; i < 4; ++i) sa[i] = 1.f + i * 1e-3f;
    for (int i = 0; i < 8; ++i) sb[i] = 1.f + threadIdx.x * 1e-4f + i * 1e-3f;
    for (int s = 0; s < steps; ++s) {{
        #pragma unroll
        for (int t = 0; t < 32; ++t) {{
            int d[4];
            #pragma unroll
            for (int r = 0; r < 4; ++r) d[r] = {init_d};
            asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {{%0, %1, %2, %3}}, {{%4, %5, %6, %7}}, "
                         "{{%8, %9}}, {{%0, %1, %2, %3}};"
                         : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                         : "r"(a[t >> 3][0]), "r"(a[t >> 3][1]), "r"(a[t >> 3][2]), "r"(a[t >> 3][3]),
                           "r"(b[t & 7][0]), "r"(b[t & 7][1]));
            #pragma unroll
            for (int r = 0; r < 4; ++r) {{ {fold} }}
        }}
    }}
    float sum = 0.f;
    for (int i = 0; i < 128; ++i) sum += acc[i] + (float)acc_i[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}}""")
    return "\n".join(kernels)


def main() -> None:
    from bench.gpu_common import time_launch

    module = cupy.RawModule(code=source(), options=("-arch=sm_90a", "-std=c++17"))
    sms = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    out = cupy.zeros(sms * 512, dtype=cupy.float32)
    for (n, warpgroups), (index, form) in ((shape, item) for shape in SHAPES for item in enumerate(FORMS)):
        kernel = module.get_function(f"form{index}_n{n}")
        kernel.max_dynamic_shared_size_bytes = 32768

        def launch(kernel=kernel, warpgroups=warpgroups) -> None:  # noqa: ANN001
            kernel((sms, 1, 1), (128 * warpgroups, 1, 1), (out, cupy.int32(STEPS)), shared_mem=32768)

        us = time_launch(cupy, launch)
        flops = sms * warpgroups * STEPS * 2 * 64 * n * 32
        print(json.dumps({"form": form, "us": us, "tflops": flops / us / 1e6, "ctas": sms,
                          "warpgroups_per_sm": warpgroups, "tile_per_warpgroup": f"m64n{n}", "k32_blocks": STEPS}),
              flush=True)
    mma_module = cupy.RawModule(code=mma_source(), options=("-arch=sm_90a", "-std=c++17"))
    for index, form in enumerate(MMA_FORMS):
        kernel = mma_module.get_function(f"mma{index}")

        def launch_mma(kernel=kernel) -> None:  # noqa: ANN001
            kernel((sms, 1, 1), (256, 1, 1), (out, cupy.int32(STEPS)))

        us = time_launch(cupy, launch_mma)
        flops = sms * 8 * STEPS * 2 * 64 * 64 * 32
        print(json.dumps({"form": form, "us": us, "tops": flops / us / 1e6, "ctas": sms, "warps_per_sm": 8,
                          "tile_per_warp": "64x64", "k32_blocks": STEPS}), flush=True)


if __name__ == "__main__":
    main()
