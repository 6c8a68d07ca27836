"""MX GEMM benchmark: qdot's kernels against Triton's ``tl.dot_scaled`` and cuBLAS, in one run.

    python -m bench.mx_gemm --prepare          # here: compile every kernel into the cache
    python -m bench.mx_gemm                    # on the GPU machine (CuPy, torch, Triton)

Each qdot kernel is checked on fresh random inputs against a float64 GEMM of the
decoded operands on the GPU before it is timed (CUDA events, median of 20 after
3 warm-ups). Triton runs the kernel of ../shared/bench (copied into .refbench by
the run script) for e4m3 × e2m1, and the same kernel shape with e2m1 on both
sides (bench/triton_mx.py) for MXFP4 × MXFP4, timed the same way.
"""

from __future__ import annotations

import argparse
import sys

from compiler.kernel_cache import get_or_compile
from compiler.numerics import SCALE_GROUP
from compiler.pipelines import PtxOptions, ptx_pipeline
from compiler.templates import GemmConfig, gemm_kernel, grid

SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (512, 4096, 4096)]

CONFIGS = [
    # (label, config, strategy, stages, arch): sm_90 runs mma.sync, sm_90a wgmma where the plan allows
    ("e4m3xe2m1 bf16 128x256x64 w8", GemmConfig(block_n=256, block_k=64, num_warps=8), "dequant-bf16", 3, "sm_90"),
    ("e4m3xe2m1 bf16 128x128x64 w8", GemmConfig(block_k=64, num_warps=8), "dequant-bf16", 3, "sm_90"),
    ("e4m3xe2m1 bf16 256x128x64 w8", GemmConfig(block_m=256, block_k=64, num_warps=8), "dequant-bf16", 3, "sm_90"),
    ("e2m1xe2m1 int8 128x256x64 w8", GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8), "promote-int8", 3,
     "sm_90"),
    ("e2m1xe2m1 int8 128x128x64 w8", GemmConfig(lhs="e2m1", block_k=64, num_warps=8), "promote-int8", 3, "sm_90"),
    ("e2m1xe2m1 int8 256x128x64 w8", GemmConfig(lhs="e2m1", block_m=256, block_k=64, num_warps=8), "promote-int8", 3,
     "sm_90"),
    ("e2m1xe2m1 bf16 128x256x64 w8", GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8), "dequant-bf16", 3,
     "sm_90"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8", GemmConfig(block_k=64, num_warps=8), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8", GemmConfig(block_n=256, block_k=64, num_warps=8), "dequant-bf16", 3,
     "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 256x128x64 w8", GemmConfig(block_m=256, block_k=64, num_warps=8), "dequant-bf16", 3,
     "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w4", GemmConfig(block_k=64, num_warps=4), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8 b2 s2", GemmConfig(block_k=64, num_warps=8, min_blocks_per_sm=2),
     "dequant-bf16", 2, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 s4", GemmConfig(block_n=256, block_k=64, num_warps=8), "dequant-bf16", 4,
     "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x256x64 w8", GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x128 w8", GemmConfig(block_k=128, num_warps=8), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x128x64 w8 b2", GemmConfig(lhs="e2m1", block_k=64, num_warps=8, min_blocks_per_sm=2),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 n8", GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 s4 n8",
     GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8), "dequant-bf16", 4, "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x256x64 w8 n8",
     GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8, n_divisibility=8), "dequant-bf16", 3, "sm_90a"),
    ("e2m1xe2m1 int8 128x256x64 w8 n8", GemmConfig(lhs="e2m1", block_n=256, block_k=64, num_warps=8, n_divisibility=8),
     "promote-int8", 3, "sm_90"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 s4 out bf16", GemmConfig(block_n=256, block_k=64, num_warps=8, out="bf16"),
     "dequant-bf16", 4, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 s4 out bf16 n8",
     GemmConfig(block_n=256, block_k=64, num_warps=8, out="bf16", n_divisibility=8), "dequant-bf16", 4, "sm_90a"),
    # the M = 512 tile with N a multiple of 8, stored directly (pairs) and through shared memory
    # (a "staged" label compiles with qdot-to-llvm{epilogue=staged}; run 76)
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8 b2 s2 n8", GemmConfig(block_k=64, num_warps=8, min_blocks_per_sm=2,
                                                               n_divisibility=8), "dequant-bf16", 2, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8 b2 s2 n8 staged",
     GemmConfig(block_k=64, num_warps=8, min_blocks_per_sm=2, n_divisibility=8), "dequant-bf16", 2, "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x128x64 w8 b2 n8 staged",
     GemmConfig(lhs="e2m1", block_k=64, num_warps=8, min_blocks_per_sm=2, n_divisibility=8), "dequant-bf16", 3,
     "sm_90a"),
    # the two strategies that run e2m1 × e2m1 and e2m3 × e2m1 on sm_90 and sm_90a, side by side, for
    # the order in which strategy=auto asks them (run 134)
    ("e2m1xe2m1 bf16 128x128x64 w8", GemmConfig(lhs="e2m1", block_k=64, num_warps=8), "dequant-bf16", 3, "sm_90"),
    ("e2m3xe2m1 int8 128x256x64 w8", GemmConfig(lhs="e2m3", block_n=256, block_k=64, num_warps=8), "promote-int8", 3,
     "sm_90"),
    ("e2m3xe2m1 int8 128x128x64 w8", GemmConfig(lhs="e2m3", block_k=64, num_warps=8), "promote-int8", 3, "sm_90"),
    ("e2m3xe2m1 bf16 128x256x64 w8", GemmConfig(lhs="e2m3", block_n=256, block_k=64, num_warps=8), "dequant-bf16", 3,
     "sm_90"),
    ("e2m3xe2m1 bf16 128x128x64 w8", GemmConfig(lhs="e2m3", block_k=64, num_warps=8), "dequant-bf16", 3, "sm_90"),
    ("wgmma e2m3xe2m1 bf16 128x256x64 w8", GemmConfig(lhs="e2m3", block_n=256, block_k=64, num_warps=8),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e2m3xe2m1 bf16 128x128x64 w8 b2", GemmConfig(lhs="e2m3", block_k=64, num_warps=8, min_blocks_per_sm=2),
     "dequant-bf16", 3, "sm_90a"),
    # e4m3 × e2m1 on sm_90's emulated fp8 mma.sync (two f16 HMMA per k32): the unbiased form over a long K
    ("e4m3xe2m1 promote-fp8 128x256x64 w8", GemmConfig(block_n=256, block_k=64, num_warps=8), "promote-fp8", 3,
     "sm_90"),
    ("e4m3xe2m1 promote-fp8 128x128x64 w8", GemmConfig(block_k=64, num_warps=8), "promote-fp8", 3, "sm_90"),
    # each K step's dot from zero, added to the f32 sum (GemmConfig.promote): accurate over a long K (run 137)
    ("e4m3xe2m1 bf16 128x128x64 w8 promote", GemmConfig(block_k=64, num_warps=8, promote=True), "dequant-bf16", 3,
     "sm_90"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8 promote", GemmConfig(block_k=64, num_warps=8, promote=True),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w8 n8 promote",
     GemmConfig(block_k=64, num_warps=8, n_divisibility=8, promote=True), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x128x64 w8 promote", GemmConfig(lhs="e2m1", block_k=64, num_warps=8, promote=True),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w4 promote", GemmConfig(block_k=64, num_warps=4, promote=True),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w4 s4 promote", GemmConfig(block_k=64, num_warps=4, promote=True),
     "dequant-bf16", 4, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x128x64 w4 n8 promote",
     GemmConfig(block_k=64, num_warps=4, n_divisibility=8, promote=True), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 64x128x64 w4 promote", GemmConfig(block_m=64, block_k=64, num_warps=4, promote=True),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 64x256x64 w4 promote", GemmConfig(block_m=64, block_n=256, block_k=64, num_warps=4,
                                                               promote=True), "dequant-bf16", 3, "sm_90a"),
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 promote", GemmConfig(block_n=256, block_k=64, num_warps=8, promote=True),
     "dequant-bf16", 3, "sm_90a"),
    ("wgmma e2m1xe2m1 bf16 128x128x64 w4 promote", GemmConfig(lhs="e2m1", block_k=64, num_warps=4, promote=True),
     "dequant-bf16", 3, "sm_90a"),
    # persistent (GemmConfig.persistent): one program per SM over (tile, K step) pairs; slower (run 62)
    ("wgmma e4m3xe2m1 bf16 128x256x64 w8 n8 persistent",
     GemmConfig(block_n=256, block_k=64, num_warps=8, n_divisibility=8, persistent=True), "dequant-bf16", 3, "sm_90a"),
]


def compile_all(quick: bool = False, only: str = "") -> list:
    compiled = []
    for label, cfg, strategy, stages, arch in CONFIGS:
        if only and only not in label:
            continue
        pipeline = None
        if label.split()[-1] == "staged":
            pipeline = ptx_pipeline(PtxOptions(arch=arch, strategy=strategy, num_stages=stages, epilogue="staged"))
        compiled.append((label, cfg, strategy, stages,
                         get_or_compile(gemm_kernel(cfg), arch=arch, strategy=strategy, num_stages=stages,
                                        pipeline=pipeline)))
    return compiled


def measure(cupy, rng, kernel, cfg: GemmConfig, m: int, n: int, k: int,  # noqa: ANN001
            flush=None) -> tuple[float, float, bool]:  # noqa: ANN001
    """Check a loaded GEMM kernel on fresh random operands against a float64 GEMM of the decoded
    operands on the GPU, into a NaN-poisoned C, then time it: (µs, relative error, within the pass
    mark). An f32 C passes at a relative Frobenius error of 1e-5; a bf16 C element by element (``_bf16_ok``):
    a Frobenius mark of one bf16 ulp passed a C with a 16×16 fragment zeroed.

    ``flush`` (a buffer larger than L2, written before each timed launch outside the events) times the kernel
    as ``triton.testing.do_bench`` times the Triton and cuBLAS references of the same run: with L2 cleared, and
    the clearing queued ahead of the start event so Python's launch is not timed either. Without it (the
    experiments that compare qdot kernels with each other), warm L2 and events around one launch."""
    from bench.gpu_common import gpu_dequant, rel_err, time_launch

    a = _operand(cupy, rng, cfg.lhs, m, k)
    b_t = _operand(cupy, rng, cfg.rhs, n, k)
    sa = _scales(cupy, rng, cfg.lhs_scale, m, k)
    sb = _scales(cupy, rng, cfg.rhs_scale, n, k)
    bf16 = cfg.out == "bf16"
    c = cupy.full((m, n), 0xFFFF if bf16 else cupy.nan, dtype=cupy.uint16 if bf16 else cupy.float32)
    args = [a, b_t, *(s for s in (sa, sb) if s is not None), c, m, n, k]

    def launch() -> None:
        kernel.launch(*args, grid=grid(cfg, m, n), sync=False)

    launch()
    cupy.cuda.get_current_stream().synchronize()
    lhs, rhs = gpu_dequant(cupy, cfg.lhs, a, sa, cfg.lhs_scale), gpu_dequant(cupy, cfg.rhs, b_t, sb, cfg.rhs_scale)
    ref = lhs @ rhs.T
    # a bf16 C: its values as f32 (bf16 bits are the top half of an f32's); the error then includes bf16's rounding
    value = (c.astype(cupy.uint32) << 16).view(cupy.float32) if bf16 else c
    err = rel_err(cupy, value, ref)
    ok = _bf16_ok(cupy, value, ref, cupy.abs(lhs) @ cupy.abs(rhs).T, k) if bf16 else err <= 1e-5
    del ref, lhs, rhs
    before_each = None if flush is None else (lambda: flush.fill(1))
    return time_launch(cupy, launch, before_each=before_each), err, ok


def _bf16_ok(cupy, value, ref, magnitudes, k: int) -> bool:  # noqa: ANN001
    """Each element of a bf16 C within one bf16 ulp of the float64 result, plus the f32 accumulation's bound
    (K · 2^-24 times the sum of the products' magnitudes), as tests/gpu/gemm_harness checks bf16 C."""
    value = value.astype(cupy.float64)
    if not bool(cupy.isfinite(value).all()):
        return False
    ulp = cupy.ldexp(1.0, cupy.floor(cupy.log2(cupy.maximum(cupy.abs(ref), 2.0 ** -126))).astype(cupy.int64) - 7)
    return bool((cupy.abs(value - ref) <= ulp + k * 2.0 ** -24 * magnitudes).all())


def run(quick: bool, only: str = "", references: bool = True) -> None:
    from bench.gpu_common import gpu_or_exit, log, record

    cupy = gpu_or_exit("python -m bench.mx_gemm")
    from targets.ptx.runner import load

    rng = cupy.random.default_rng()
    flush = cupy.empty(256 << 20, dtype=cupy.uint8)  # do_bench's L2 clearing: 256 MB, more than any L2
    shapes = SHAPES[:1] if quick else SHAPES
    for label, cfg, strategy, stages, compiled in compile_all(only=only):
        kernel = load(compiled.ptx, compiled.kernels[0])
        for m, n, k in shapes:
            us, err, ok = measure(cupy, rng, kernel, cfg, m, n, k, flush=flush)
            info = compiled.kernels[0]
            row = {"what": f"qdot {label} [{strategy}, {stages} stages]", "shape": f"{m}x{n}x{k}", "rel_err": err,
                   "ok": ok, "shared_bytes": info.shared_bytes, "num_warps": info.num_warps,
                   "timing": "events around one launch, L2 cleared before each (as do_bench)"}
            if not ok:  # a kernel that is wrong has no time worth a table
                record({**row, "failed": True})
                log(f"{label:34s} {m}x{n}x{k}: FAILED its check (err {err:.2e}): not timed")
                continue
            tflops = 2.0 * m * n * k / us / 1e6
            record({**row, "us": us, "tflops": tflops})
            log(f"{label:34s} {m}x{n}x{k}: {us:9.1f} us {tflops:7.1f} TFLOP/s  err {err:.2e}")
    if references:
        _triton(shapes)
        _cublas(shapes)


def _operand(cupy, rng, fmt: str, rows: int, k: int):  # noqa: ANN001, ANN202
    if fmt in ("fp16", "bf16"):  # standard normal values (bf16: the top half of each f32's bits)
        values = rng.standard_normal((rows, k), dtype=cupy.float32)
        return values.astype(cupy.float16) if fmt == "fp16" else (values.view(cupy.uint32) >> 16).astype(cupy.uint16)
    if fmt == "e2m1":
        return rng.integers(0, 256, size=(rows, k // 2), dtype=cupy.uint8)
    codes = rng.integers(0, 256, size=(rows, k), dtype=cupy.uint8)
    if fmt == "e4m3":  # no NaN codes (0x7F, 0xFF)
        codes = cupy.where((codes & 0x7F) == 0x7F, cupy.uint8(0x38), codes)
    elif fmt == "e5m2":  # no Inf/NaN codes (exponent all ones)
        codes = cupy.where((codes & 0x7C) == 0x7C, cupy.uint8(0x3C), codes)
    elif fmt in ("e2m3", "e3m2"):  # six bits per byte
        codes = codes & 0x3F
    return codes


def _scales(cupy, rng, kind: str | None, rows: int, k: int):  # noqa: ANN001, ANN202
    """Block scale codes near 1: ue8m0 2^-7 … 2^7 per 32 values, ue4m3 0.125 … 4 per 16; None without."""
    if kind is None:
        return None
    low, high = (120, 135) if kind == "ue8m0" else (0x20, 0x48)
    return rng.integers(low, high, size=(rows, k // SCALE_GROUP[kind]), dtype=cupy.uint8)


def _triton(shapes: list) -> None:
    from bench.gpu_common import log

    try:
        import torch
        import triton.testing

        sys.path.insert(0, ".refbench")
        from mx_kernels import make_mx_inputs, mx_matmul  # type: ignore[import-not-found]

        from bench.triton_mx import mxfp4_matmul
    except Exception as err:  # noqa: BLE001
        log(f"Triton reference unavailable: {err!r}")
        return
    for m, n, k in shapes:
        _triton_shape(m, n, k, make_mx_inputs, mx_matmul, mxfp4_matmul, triton.testing.do_bench)
        torch.cuda.empty_cache()  # the shape's operands died with _triton_shape's frame


def _triton_shape(m: int, n: int, k: int, make_mx_inputs, mx_matmul, mxfp4_matmul,  # noqa: ANN001
                  do_bench) -> None:  # noqa: ANN001
    """Triton's e4m3 × e2m1 (f32 C) and e2m1 × e2m1 kernels on one shape, timed as the anchors were."""
    import torch

    from bench.gpu_common import log, record

    cfg = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "num_warps": 8, "num_stages": 3}
    a, b_packed, sa, sb = make_mx_inputs(m, n, k)
    a4 = torch.randint(0, 256, (m, k // 2), device="cuda", dtype=torch.uint8)
    for what, label, fn in (
            ("triton tl.dot_scaled e4m3xe2m1 BM128 BN256 BK128 w8 s3 (anchor kernel)", "e4m3xe2m1",
             lambda: mx_matmul(a, b_packed, sa, sb, cfg, out_f32=True)),
            ("triton tl.dot_scaled e2m1xe2m1 BM128 BN256 BK128 w8 s3", "e2m1xe2m1",
             lambda: mxfp4_matmul(a4, b_packed, sa, sb, cfg))):
        us = 1e3 * do_bench(fn, warmup=100, rep=400, return_mode="median")
        record({"what": what, "shape": f"{m}x{n}x{k}", "us": us, "tflops": 2.0 * m * n * k / us / 1e6})
        log(f"triton {label} {m}x{n}x{k}: {us:.1f} us {2.0 * m * n * k / us / 1e6:.1f} TFLOP/s")


def _cublas(shapes: list) -> None:
    from bench.gpu_common import log, record

    try:
        import torch
        import triton.testing
    except Exception as err:  # noqa: BLE001
        log(f"cuBLAS reference unavailable: {err!r}")
        return
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        us = 1e3 * triton.testing.do_bench(lambda: a @ b, warmup=100, rep=400, return_mode="median")
        record({"what": "cuBLAS bf16 torch.mm", "shape": f"{m}x{n}x{k}", "us": us, "tflops": 2.0 * m * n * k / us / 1e6})
        ai = torch.randint(-128, 127, (m, k), device="cuda", dtype=torch.int8)
        bi = torch.randint(-128, 127, (n, k), device="cuda", dtype=torch.int8).t()
        us = 1e3 * triton.testing.do_bench(lambda: torch._int_mm(ai, bi), warmup=100, rep=400, return_mode="median")
        record({"what": "cuBLAS int8 torch._int_mm (B column-major)", "shape": f"{m}x{n}x{k}", "us": us,
                "tops": 2.0 * m * n * k / us / 1e6})
        log(f"cuBLAS {m}x{n}x{k}: bf16/int8 done")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("--quick", action="store_true", help="8192³ only")
    parser.add_argument("--only", default="", help="only the configurations whose label contains this text")
    parser.add_argument("--no-references", action="store_true", help="skip Triton and cuBLAS")
    args = parser.parse_args()
    if args.prepare:
        for label, _cfg, strategy, stages, compiled in compile_all(only=args.only):
            info = compiled.kernels[0]
            print(f"{label:34s} [{strategy}] smem {info.shared_bytes} B, {info.num_warps} warps")
        return
    run(args.quick, args.only, not args.no_references)


if __name__ == "__main__":
    main()
