"""Experiment: split tiles summed by the GEMM's own last program (``MmqConfig(fixup_in_gemm=True)``) against atomic
additions into a zeroed Y and against the fix-up kernel, MUL_MAT from f32 as ``bench.mmq`` measures it.

    python -m bench.prepare experiments.fixup_in_gemm                # here: the kernels into the cache
    python -m bench.experiments.fixup_in_gemm [--rounds R] [--prefill | --formats]  # on the GPU machine

Decode (the default): three forms of the repacked decode kernels (``bench.mmq``'s goal rows: the one-token kernel at
M = 1, the M ≤ 8 kernel at M = 1 and 8), each on its default grid at the four decode shapes. ``--prefill``:
``choose_mmq``'s stream-K prefill kernel (its default from M = 96 on the 64 × 128 tile is the fix-up kernel) at
M = 96, 128, 192, 256 with N = K = 4096 and M = 128 with N = 4096, K = 14336. ``--formats``: the one-token kernel
``choose_mmq(w, 1, N, K, reproducible=True)`` takes for every weight format, W repacked and in ggml's order, at the
three decode shapes where it takes the fix-up (N = 4096, K = 14336 / 4096 and N = K = 3584); no one-launch form.
The forms:

* atomic: quantize (zeroing Y) + GEMM adding its pieces into Y — ``bench.mmq.measure``, the benchmark's row;
* fix-up kernel: quantize + GEMM storing them in a workspace + ``mmq_fixup_kernel`` adding them in order;
* in-GEMM: quantize + GEMM whose last program of each tile (``qdot.last_arrival``) adds them in the same order;
* one launch (decode): that GEMM taking X as f32 and quantizing its share itself (``quantize_in_gemm``) — no
  quantize kernel (qdot-pipeline issues its weights' first copies before the quantization).

Programmatic GEMMs (the decode's) are launched so after the quantize kernel, as the benchmark's, and their fix-up
kernel after them. Both fix-up forms are checked against ``compiler.numerics`` and against each other bit for bit
(the same additions in the same order), the in-GEMM form launched twice on the same counters (which each launch must
leave zero), before either is timed; then MUL_MAT and the GEMM alone (with its fix-up kernel) are timed as CUDA
graphs, the forms interleaved, the order reversed every other round. What it answers: the in-GEMM fix-up's cost at
the end of the kernel (the last program's fences, atomic and reads, on the kernel's critical path where the atomic
form's additions are fire-and-forget) against the atomic form, and whether it beats the fix-up kernel's extra
launch; and whether one launch beats two. At the goal row the MUL_MAT took 10.63 µs and its kernel alone 9.58
(run 278), so one launch can only win if the in-GEMM kernel's tail plus what the quantization adds (it overlaps the
weights' first DRAM fetch) stay under that 1.05 µs. The copy bandwidth is measured in the same run.

Run 280 (an H100; bench/RESULTS.md): the in-GEMM tail alone costs 1.6 µs at the goal row, so one launch lost
(1.24–1.38 × the two launches for the one-token kernel, 1.8–2.8 × for M ≤ 8); the in-GEMM form beat the fix-up
kernel for the one-token kernel only (0.91–0.98 ×).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

import bench.mmq as bm
from compiler.kernel_cache import get_or_compile
from compiler.mmq_choice import choose_mmq
from compiler.mmq_template import (WEIGHT_FORMATS, MmqConfig, fixup_counters_shape, fixup_grid, fixup_scalars,
                                   fixup_workspace_shape, mmq_fixup_kernel, mmq_grid, quantize_scratch_shape)

KERNELS = ("small_m 64 w2 splitk s2 m1 fold=fma pdl wt", "small_m 64 w2 splitk s2 pdl wt")
"""``bench.mmq.DECODE``'s goal kernels: the one-token kernel (M = 1) and the M ≤ 8 kernel, W repacked."""
SHAPES = ((4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584))
PREFILL_CASES = ((96, 4096, 4096), (128, 4096, 4096), (192, 4096, 4096), (256, 4096, 4096), (128, 4096, 14336))
FORMAT_SHAPES = ((4096, 14336), (4096, 4096), (3584, 3584))
"""The decode shapes where ``choose_mmq(..., reproducible=True)`` gives the one-token kernel the fix-up (at N = 32768
the default grid splits K in two at most, and the choice caps it there instead)."""
COMMAND = "python -m bench.experiments.fixup_in_gemm"


def entries(prefill: bool = False, formats: bool = False) -> list[tuple[str, MmqConfig, int]]:
    """(label, atomic config, stages): the decode goal kernels, ``choose_mmq``'s stream-K prefill kernel (one
    configuration for every ``PREFILL_CASES`` shape), or its one-token kernel for each format and order, each without
    its fix-up."""
    if formats:
        chosen = {}
        for weights in WEIGHT_FORMATS:
            for tiled in (True, False):
                choice = choose_mmq(weights, 1, *FORMAT_SHAPES[0], tiled_weights=tiled, reproducible=True)
                assert choice.cfg.max_m == 1 and choice.cfg.fixup, choice.cfg.name
                assert all(choose_mmq(weights, 1, n, k, tiled_weights=tiled, reproducible=True).cfg == choice.cfg
                           for n, k in FORMAT_SHAPES), choice.cfg.name
                chosen[replace(choice.cfg, fixup=False, fixup_in_gemm=False)] = choice.num_stages
        return [(cfg.name, cfg, stages) for cfg, stages in chosen.items()]
    if prefill:
        configs = {}
        for m, n, k in PREFILL_CASES:
            choice = choose_mmq("q4_K", m, n, k)
            assert choice.cfg.stream_k and choice.cfg.fixup, choice.cfg.name
            configs[replace(choice.cfg, fixup=False)] = choice.num_stages
        return [(cfg.name, cfg, stages) for cfg, stages in configs.items()]
    by_label = {label: (cfg, stages) for label, cfg, stages in bm.DECODE}
    return [(label, *by_label[label]) for label in KERNELS]


def compile_all() -> list:
    """Per kernel, decode and prefill: (label, atomic, fix-up GEMM, in-GEMM GEMM, fix-up kernel[, one launch: the
    decode's in-GEMM GEMM quantizing X itself]), compiled; and the quantizers."""
    bm.compile_quantizers()
    out = []
    one_launch = {label for label, *_ in entries()}
    for label, cfg, stages in entries() + entries(prefill=True) + entries(formats=True):
        fixed = replace(cfg, fixup=True)
        one = [replace(fixed, fixup_in_gemm=True, quantize_in_gemm=True)] if label in one_launch else []
        gemms = bm.compile_kernels([(label, c, stages) for c in (cfg, fixed, replace(fixed, fixup_in_gemm=True))])
        out.append((label, *[compiled for *_, compiled in gemms],
                    get_or_compile(mmq_fixup_kernel(fixed, wait_previous_grid=cfg.wait_previous_grid),
                                   arch="sm_90"),
                    *[compiled for *_, compiled in bm.compile_kernels([(label, c, stages) for c in one])]))
    return out


def _fixup_forms(cupy, loaded, quantizers, cfg: MmqConfig, m: int, n: int, k: int, rng) -> dict:  # noqa: ANN001
    """Check both fix-up forms at one shape; return their MUL_MAT and GEMM-alone launches and the check's facts."""
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks, reference_of
    from compiler import numerics
    from compiler.quantize_template import quantize_grid

    _atomic, fix_gemm, in_gemm, fixup, *one = loaded
    fixed, inside = replace(cfg, fixup=True), replace(cfg, fixup=True, fixup_in_gemm=True)
    one_launch = replace(inside, quantize_in_gemm=True) if one else None
    pdl = cfg.wait_previous_grid
    w_host = random_weight_blocks(n, k, rng, cfg.weights)
    w = cupy.asarray(kernel_weights(cfg, w_host))
    x_host = rng.standard_normal((m, k)).astype(np.float32)
    x, xq = cupy.asarray(x_host), cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
    # one grid for both forms (their bits are compared), one wave for each: the fewer programs either holds resident
    # (run 288: q5_K's in-GEMM kernel, 149 registers against 128, ran a second wave on the fix-up GEMM's grid)
    resident = min(fix_gemm.resident_programs(), in_gemm.resident_programs())
    grid = mmq_grid(fixed, m, n, k, **({"resident": resident} if cfg.small_m else {}))
    parts = cupy.full(fixup_workspace_shape(fixed, grid, n), cupy.nan, dtype=cupy.float32)
    counts = cupy.zeros(fixup_counters_shape(inside, m, n), dtype=cupy.int32)
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    quantize = quantizers[(False, pdl)]

    def fix_alone() -> None:  # launched as the benchmark's GEMMs, with the runner's default spread
        fix_gemm.launch(xq, w, y, parts, m, n, k, grid=grid, sync=False, programmatic=pdl)
        fixup.launch(y, parts, *fixup_scalars(fixed, grid, m, n, k), grid=fixup_grid(fixed, m, n), sync=False,
                     programmatic=pdl)

    def in_alone() -> None:
        in_gemm.launch(xq, w, y, parts, counts, m, n, k, grid=grid, sync=False, programmatic=pdl)

    def quantize_x() -> None:
        quantize.launch(x, xq, m, k, grid=quantize_grid(m, k), sync=False)

    def fix_mul_mat() -> None:
        quantize_x()
        fix_alone()

    def in_mul_mat() -> None:
        quantize_x()
        in_alone()

    forms = {"fixup kernel": (fix_mul_mat, fix_alone), "in-GEMM": (in_mul_mat, in_alone)}
    checked = [fix_mul_mat, in_mul_mat, in_mul_mat]
    if one_launch is not None:  # X as f32, quantized by the GEMM into its scratch: the MUL_MAT is this one launch
        scratch = cupy.empty(quantize_scratch_shape(one_launch, grid, n, k), dtype=cupy.uint8)

        def one_mul_mat() -> None:
            one[0].launch(x, scratch, w, y, parts, counts, m, n, k, grid=grid, sync=False)

        forms["one launch"] = (one_mul_mat, one_mul_mat)
        checked += [one_mul_mat, one_mul_mat]
    outputs = []
    for mul_mat in checked:
        y.fill(cupy.nan)
        parts.fill(cupy.nan)
        mul_mat()
        cupy.cuda.get_current_stream().synchronize()
        outputs.append(cupy.asnumpy(y))
    rows = min(m, 64)
    want = numerics.quantize("q8_1_mmq", x_host[:rows]).reshape(rows, k // 128, 144)
    ref = reference_of(want, w_host, cfg.weights)
    out = outputs[1][:rows].astype(np.float64)
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
    same = [bool(np.array_equal(outputs[0].view(np.uint32), o.view(np.uint32))) for o in outputs[1:]]
    counts_zero = not bool(cupy.asnumpy(counts).any())
    facts = {"grid": grid, "rel_err_first_rows": err, "equal_to_fixup_kernel": same,
             "counters_zero": counts_zero, "ok": err <= 1e-5 and all(same) and counts_zero}
    return {"facts": facts, **forms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="rounds, the forms' order reversed every other one")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--prefill", action="store_true", help="the stream-K prefill kernel instead of the decode's")
    which.add_argument("--formats", action="store_true",
                       help="the one-token kernel of every weight format and order (fix-up kernel against in-GEMM)")
    args = parser.parse_args()

    from bench.gpu_common import gpu_or_exit, log, record, time_graph
    from targets.ptx.runner import load

    cupy = gpu_or_exit(COMMAND)
    quantizers, rng, flush = bm.measuring_setup(cupy, bm.compile_quantizers())
    compiled = compile_all()
    loaded = {entry[0]: [load(c.ptx, c.kernels[0]) for c in entry[1:]] for entry in compiled}
    for label, kernels in loaded.items():
        for form, kernel in zip(("atomic", "fix-up GEMM", "in-GEMM", "fix-up kernel", "one launch"), kernels):
            log(f"{label} {form}: {kernel.registers} registers, {kernel.local_bytes} B local, "
                f"{kernel.resident_programs()} resident")
    copy_gbs = bm.copy_bandwidth(cupy)
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s")
    if args.prefill:
        cases = [(label, cfg, stages, m, n, k) for label, cfg, stages in entries(prefill=True)
                 for m, n, k in PREFILL_CASES]
    elif args.formats:
        cases = [(label, cfg, stages, 1, n, k) for label, cfg, stages in entries(formats=True)
                 for n, k in FORMAT_SHAPES]
    else:
        cases = [(label, cfg, stages, m, n, k) for label, cfg, stages in entries() for n, k in SHAPES
                 for m in ((1,) if cfg.max_m == 1 else (1, 8))]
    for round_ in range(args.rounds):
        for label, cfg, stages, m, n, k in (cases if round_ % 2 == 0 else cases[::-1]):
            kernels = loaded[label]
            info = next(entry[1] for entry in compiled if entry[0] == label).kernels[0]
            atomic = bm.measure(cupy, kernels[0], quantizers, label, cfg, stages, info, m, n, k, rng, flush)
            record({**atomic, "form": "atomic", "round": round_})
            forms = _fixup_forms(cupy, kernels, quantizers, cfg, m, n, k, rng)
            facts = forms.pop("facts")
            names = list(forms) if round_ % 2 == 0 else list(forms)[::-1]
            for name in names:
                mul_mat, alone = forms[name]
                us, us_alone = time_graph(cupy, mul_mat), time_graph(cupy, alone)
                row = {"what": f"qdot {label} [{stages} stages] {name}", "form": name, "shape": f"M={m} N={n} K={k}",
                       "us_mul_mat": us, "us_gemm_alone": us_alone, "atomic_us_mul_mat": atomic["us_mul_mat"],
                       "ratio_to_atomic": us / atomic["us_mul_mat"], "round": round_, **facts}
                if "weight_GBs" in atomic:  # the decode's
                    row["weight_GBs"] = atomic["weight_GBs"] * atomic["us_mul_mat"] / us
                record(row)
                log(f"{label:44s} {name:13s} M={m} N={n:5d} K={k:5d}: mul_mat {us:7.2f} us (alone {us_alone:7.2f}), "
                    f"atomic {atomic['us_mul_mat']:7.2f} ({us / atomic['us_mul_mat']:.3f} x)  ok {facts['ok']}")
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
