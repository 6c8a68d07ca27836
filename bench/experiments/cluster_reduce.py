"""Experiment: the decode's K splits summed across a thread-block cluster (sm_90 distributed shared memory) instead
of by atomic additions into a zeroed Y — the reduction without a chain of L2 round trips that run 280 found one
launch would need.

    python -m bench.experiments.cluster_reduce --prepare     # here: the kernels into $QDOT_KERNEL_CACHE, each
                                                             # patched form through ptxas
    python -m bench.experiments.cluster_reduce [--rounds R]  # on the GPU machine, with that cache

Why: at the goal row (M = 1, N = 4096, K = 14336) the one-token kernel alone takes 9.4–9.7 µs on an H200 and the
MUL_MAT 10.5–11.1 µs (runs 278, 286); 80 % of copy bandwidth is 9.9 µs. What lies between is the quantize kernel,
which also zeroes Y for the atomic additions, and its launch. One launch that quantized its share itself lost
(runs 280, 286: 1.27–1.34 ×) because its fix-up in the GEMM put stores, a fence, an atomic and loads, each an L2
round trip, on the last program's path (1.6 µs), and its quantization took four dependent steps.

qdot has no cluster form: these kernels are qdot's, their PTX rewritten by ``cluster_patch``. The split-K kernel
ends in ``red.global.add.f32`` of its accumulators; the patch replaces them with: each program stores those values
(the ones its predicates would have added) in shared memory past its own, ``barrier.cluster`` (release / acquire),
the i-th value of every thread is summed by rank i mod C, which loads it from all C ranks at once (``mapa``,
``ld.shared::cluster``), adds them in rank order and stores Y plainly, and a second ``barrier.cluster`` keeps the
others' shared memory alive until it has (``cluster_patch``'s options give the other forms below). The K splits
of one weight-row tile are the cluster (``.reqnctapercluster 1, C, 1``, the grid (⌈N / 64⌉, C)), so Y needs no zeroing
and its bits do not depend on the order in which programs finish. Clusters of more than 8 need the driver's
non-portable cluster size, set on the function.

Forms, each at the four decode shapes, checked against ``compiler.numerics`` (X's quantization bit-exact, Y within
1e-5 of the float64 reference, Y poisoned with NaN first, two launches bit-identical) before it is timed:

* ``atomic``: ``bench.mmq.measure``'s row of the goal kernel (``small_m 64 w2 splitk s2 m1 fold=fma pdl wt``: the
  quantize kernel zeroing Y, the GEMM launched programmatically after it) — the reference of the same run;
* ``cluster C``: the quantize kernel (no zeroing) and the patched GEMM on C splits, launched the same way;
* ``cluster reuse C``: the same with the values stored at the start of the kernel's own shared memory (after
  ``cp.async.wait_all`` and a barrier), so that as many programs fit per SM as the atomic kernel's;
* ``cluster late stores C``: that with Y stored after the second barrier, whose arrival is relaxed;
* ``cluster launch only C``: the atomic kernel launched in clusters of C, its atomics kept (the quantize kernel
  zeroing Y): what the cluster launch costs by itself;
* ``cluster barriers only C``: that kernel with the reduction's two cluster barriers after its atomics;
* ``one launch C``: the GEMM taking X as f32 and quantizing its share into a scratch (``quantize_in_gemm``, here
  without its fix-up: the patch's reduction, ``cluster reuse``'s, needs none), one K step (256 values) at a time as
  the template writes it;
* ``one launch C at once``: the same with the share's steps quantized four at a time — one load, quantization,
  store and barrier for the goal row's whole share (its IR rewritten by ``_quantize_four_steps_at_once``).

C: the split count of the atomic kernel's grid at that shape, where it is 2 to 16, and 8. The forms grew over runs
297–301 (bench/RESULTS.md): in runs 297–298 rank 0 summed every value rank by rank (``scatter=False``), and in runs
297–299 the one-launch forms kept their values past the kernel's shared memory.
"""

from __future__ import annotations

import argparse
import ctypes
import re
from dataclasses import replace

import numpy as np

import bench.mmq as bm
from compiler.kernel_cache import get_or_compile
from compiler.mmq_template import MmqConfig, mmq_kernel, quantize_scratch_shape

LABEL = "small_m 64 w2 splitk s2 m1 fold=fma pdl wt"
SHAPES = ((4096, 14336), (32768, 8192), (4096, 4096), (3584, 3584))
COMMAND = "python -m bench.experiments.cluster_reduce"
PORTABLE_CLUSTER = 8
"""The largest cluster every sm_90 launch may ask for; 9 to 16 need ``NON_PORTABLE_CLUSTER_SIZE_ALLOWED``."""
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
"""``CUfunction_attribute`` (cuda.h, CUDA 12 and 13)."""

_RED = re.compile(r"\t// begin inline asm\n\t\{\n\t\.reg \.pred %qdot_p;\n\tsetp\.ne\.b32 %qdot_p, (%r\d+), 0;\n"
                  r"\t@%qdot_p red\.global\.add\.f32 \[(%rd\d+)\], (%r\d+);\n\}\n\t// end inline asm\n"
                  r"|\t// begin inline asm\n\tred\.global\.add\.f32 \[(%rd\d+)\], (%r\d+);\n\t// end inline asm\n")


def goal_entry() -> tuple[str, MmqConfig, int]:
    """``bench.mmq``'s entry of the goal kernel."""
    return next(entry for entry in bm.DECODE if entry[0] == LABEL)


def one_launch_config(cfg: MmqConfig) -> MmqConfig:
    """The goal kernel taking X as f32 and quantizing its share itself, its pieces added by ``red.global`` as the
    atomic kernel's. ``MmqConfig`` allows ``quantize_in_gemm`` only with the in-GEMM fix-up (the atomic form would
    need Y zeroed by a launch before it); the patch removes that need, so the check is stepped around here."""
    one = replace(cfg, fixup=True, fixup_in_gemm=True, quantize_in_gemm=True, wait_previous_grid=False)
    object.__setattr__(one, "fixup", False)
    object.__setattr__(one, "fixup_in_gemm", False)
    return one


def _quantize_four_steps_at_once(source: str) -> str:
    """The one-launch kernel's IR with its quantization loop taking four K steps (1024 values) per iteration:
    loads past K read zeros and stores past the program's region are dropped by the descriptors' bounds."""
    edits = [("  %c2 = arith.constant 2 : index\n",
              "  %c2 = arith.constant 2 : index\n  %c4 = arith.constant 4 : index\n"),
             ("scf.for %kq = %k_lo to %k_hi step %c1 {", "scf.for %kq = %k_lo to %k_hi step %c4 {"),
             ("1x256xf32", "1x1024xf32"), ("1x2x!qdot.block<q8_1_mmq>", "1x8x!qdot.block<q8_1_mmq>")]
    for old, new in edits:
        if old not in source:
            raise ValueError(f"_quantize_four_steps_at_once: {old!r} not in the kernel's IR")
        source = source.replace(old, new)
    return source.replace("_quant_", "_quant4_")


def compile_all() -> dict[str, object]:
    """The compiled kernels by form: ``atomic`` (the goal kernel), ``one launch`` and ``one launch at once``."""
    label, cfg, stages = goal_entry()
    bm.compile_quantizers()
    pipeline = bm._pipeline(label, stages)  # noqa: SLF001 - the label's fold=fma, as bench.mmq compiles it
    one = mmq_kernel(one_launch_config(bm.kernel_config(label, cfg)))

    def build(source: str) -> object:
        return get_or_compile(source, arch="sm_90", strategy="promote-int8", num_stages=stages, pipeline=pipeline)

    return {"atomic": bm.compile_kernels([goal_entry()])[0][3], "one launch": build(one),
            "one launch at once": build(_quantize_four_steps_at_once(one))}


def _with_cluster(ptx: str, cluster: int) -> str:
    """``ptx`` with ``.reqnctapercluster 1, cluster, 1`` after its ``.maxntid``."""
    directive = re.search(r"\.maxntid \d+(, \d+, \d+)?\n", ptx)
    if directive is None:
        raise ValueError("cluster_patch: no .maxntid directive to put .reqnctapercluster after")
    return ptx[:directive.end()] + f".reqnctapercluster 1, {cluster}, 1\n" + ptx[directive.end():]


def cluster_patch(ptx: str, cluster: int, threads: int, shared_bytes: int, reduce: bool = True,
                  reuse: bool = False, scatter: bool = True, barriers_only: bool = False,
                  late_stores: bool = False) -> tuple[str, int]:
    """``ptx`` (one split-K kernel ending in predicated ``red.global.add.f32``) with its K splits summed across a
    cluster of ``cluster`` programs along y; returns the PTX and the dynamic shared memory it launches with. Each
    thread's values go to ``shared_bytes`` (rounded up to 16) + (value · threads + thread) · 4, the slot a thread
    of the same index and value reads in every rank, whatever the accumulators' layout. ``reduce=False``: the
    cluster launch only, the atomic additions kept (what launching in clusters costs by itself). ``reuse``: the
    values go to the start of the kernel's own shared memory instead, after ``cp.async.wait_all`` and
    ``bar.sync 0`` (the pipeline's copies ahead land there), so the launch needs no more than the kernel's.
    ``scatter``: rank i mod C sums the i-th value of every thread (its predicate and address are the same in every
    rank: they depend on the tile, the lane and M), loading it from all C ranks at once; without it rank 0 sums every
    value, one rank after another (run 297's first form, a chain of C − 1 round trips). ``barriers_only``: the
    atomic additions kept, followed by the reduction's two cluster barriers and nothing else (what they cost).
    ``late_stores``: Y stored after the second barrier, whose arrival is relaxed — a release there waits for the
    stores before it (in-order issue already puts it after the loads whose sums the stores take)."""
    if not reduce:
        return _with_cluster(ptx, cluster), shared_bytes
    if barriers_only:
        pair = "\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n"
        return _with_cluster(ptx.replace("\tret;", pair + pair + "\tret;"), cluster), shared_bytes
    found = list(_RED.finditer(ptx))
    if not found or ptx.count("\tret;") != 1:
        raise ValueError("cluster_patch: expected red.global.add.f32 epilogue and one ret")
    values = [(m.group(1), m.group(2), m.group(3)) if m.group(2) else (None, m.group(4), m.group(5)) for m in found]
    ptx = _RED.sub("", ptx)
    base = 0 if reuse else -(-shared_bytes // 16) * 16
    count = len(values)
    lines = ["\t{", f"\t.reg .pred %qc_p<{count}>;", f"\t.reg .pred %qc_q<{count}>;", "\t.reg .pred %qc_lead;",
             f"\t.reg .b32 %qc_v<{count}>;", f"\t.reg .b32 %qc_x<{count}>;", f"\t.reg .b32 %qc_at<{cluster}>;",
             f"\t.reg .b32 %qc_y<{count * cluster}>;", "\t.reg .b32 %qc_t, %qc_buf, %qc_rank, %qc_rem;",
             "\tmov.u32 %qc_t, %tid.x;", "\tshl.b32 %qc_t, %qc_t, 2;", "\tmov.u32 %qc_buf, qdot_dynamic_smem;",
             "\tadd.s32 %qc_buf, %qc_buf, %qc_t;", f"\tadd.s32 %qc_buf, %qc_buf, {base};",
             *(["\tcp.async.wait_all;", "\tbar.sync 0;"] if reuse else [])]
    for i, (pred, _addr, value) in enumerate(values):
        lines.append(f"\tsetp.ne.b32 %qc_p{i}, {pred}, 0;" if pred else f"\tsetp.eq.b32 %qc_p{i}, 0, 0;")
        lines.append(f"\t@%qc_p{i} st.shared.b32 [%qc_buf+{4 * threads * i}], {value};")
    lines += ["\tbarrier.cluster.arrive.release.aligned;", "\tbarrier.cluster.wait.acquire.aligned;",
              "\tmov.u32 %qc_rank, %cluster_ctarank;"]
    if scatter:  # value i summed by rank i mod C: every rank's slot loaded at once, added in rank order
        lines += [f"\tmapa.shared::cluster.u32 %qc_at{rank}, %qc_buf, {rank};" for rank in range(cluster)]
        for i in range(count):
            lines += [f"\tsetp.eq.u32 %qc_lead, %qc_rank, {i % cluster};",
                      f"\tand.pred %qc_q{i}, %qc_p{i}, %qc_lead;"]
            lines += [f"\t@%qc_q{i} ld.shared::cluster.b32 %qc_y{i * cluster + rank}, "
                      f"[%qc_at{rank}+{4 * threads * i}];" for rank in range(cluster)]
            lines.append(f"\t@%qc_q{i} mov.b32 %qc_v{i}, %qc_y{i * cluster};")
            lines += [f"\t@%qc_q{i} add.rn.f32 %qc_v{i}, %qc_v{i}, %qc_y{i * cluster + rank};"
                      for rank in range(1, cluster)]
    else:  # rank 0 sums every value, rank by rank
        lines.append("\tsetp.eq.u32 %qc_lead, %qc_rank, 0;")
        for i, (_pred, _addr, value) in enumerate(values):
            lines += [f"\tand.pred %qc_q{i}, %qc_p{i}, %qc_lead;", f"\tmov.b32 %qc_v{i}, {value};"]
        for rank in range(1, cluster):
            lines.append(f"\tmapa.shared::cluster.u32 %qc_rem, %qc_buf, {rank};")
            lines += [f"\t@%qc_q{i} ld.shared::cluster.b32 %qc_x{i}, [%qc_rem+{4 * threads * i}];"
                      for i in range(count)]
            lines += [f"\t@%qc_q{i} add.rn.f32 %qc_v{i}, %qc_v{i}, %qc_x{i};" for i in range(count)]
    stores = [f"\t@%qc_q{i} st.global.f32 [{addr}], %qc_v{i};" for i, (_pred, addr, _value) in enumerate(values)]
    if late_stores:  # the sums are in registers: the others' shared memory may go before Y is stored
        lines += ["\tbarrier.cluster.arrive.relaxed.aligned;", "\tbarrier.cluster.wait.aligned;", *stores, "\t}"]
    else:
        lines += [*stores, "\tbarrier.cluster.arrive.release.aligned;", "\tbarrier.cluster.wait.acquire.aligned;",
                  "\t}"]
    ptx = ptx.replace("\tret;", "\n".join(lines) + "\n\tret;")
    return _with_cluster(ptx, cluster), max(shared_bytes, base + 4 * threads * count)


def _check_with_ptxas(ptx: str, what: str) -> str:
    """``targets.ptx.ptxas.assemble`` for sm_90: the registers and spills of ``ptx``, or ``ValueError`` with ptxas's
    errors."""
    from targets.ptx.ptxas import assemble

    done = assemble(ptx, "sm_90")
    if not done.ok:
        raise ValueError(f"ptxas refused {what}: {' '.join(done.errors)}")
    return f"{done.registers} registers, {done.spill_stores} B spill stores, {done.spill_loads} B spill loads"


def prepare() -> None:
    """Compile the forms' kernels into the cache and put each patched form through ptxas."""
    from bench.prepare import fill_cache

    compiled: dict[str, object] = {}
    fingerprint = fill_cache(lambda: compiled.update(compile_all()))
    for form, kernel in compiled.items():
        if form == "atomic":
            continue
        for cluster in (8, 14):
            info = kernel.kernels[0]
            ptx, _ = cluster_patch(kernel.ptx, cluster, 32 * info.num_warps, info.shared_bytes)
            print(f"{form}, cluster {cluster}: {_check_with_ptxas(ptx, form)}")
    atomic = compiled["atomic"]
    info = atomic.kernels[0]
    for cluster in (2, 8, 14):
        ptx, _ = cluster_patch(atomic.ptx, cluster, 32 * info.num_warps, info.shared_bytes)
        print(f"cluster {cluster}: {_check_with_ptxas(ptx, 'cluster')}")
    print(f"prepared, fingerprint {fingerprint}")


def _allow_non_portable(function: object, cluster: int) -> None:
    """Let ``function`` launch in clusters of more than ``PORTABLE_CLUSTER`` programs (up to 16 on an H100 / H200)."""
    if cluster <= PORTABLE_CLUSTER:
        return
    driver = ctypes.CDLL("libcuda.so.1")
    handle = getattr(function, "kernel", function).ptr
    status = driver.cuFuncSetAttribute(ctypes.c_void_p(handle), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                       ctypes.c_int(1))
    if status:
        raise RuntimeError(f"cuFuncSetAttribute(non-portable cluster size) failed: CUresult {status}")


def max_active_clusters(function: object, grid: tuple[int, int, int], block: tuple[int, int, int],
                        shared: int) -> int:
    """``cuOccupancyMaxActiveClusters`` of a launch: how many of its clusters the GPU holds at once."""
    from targets.ptx.programmatic_launch import _LaunchConfig

    driver = ctypes.CDLL("libcuda.so.1")
    config = _LaunchConfig((ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block), shared, None, None, 0)
    count = ctypes.c_int()
    status = driver.cuOccupancyMaxActiveClusters(ctypes.byref(count), ctypes.c_void_p(
        getattr(function, "kernel", function).ptr), ctypes.byref(config))
    return count.value if status == 0 else -status


def _load_patched(kernel: object, cluster: int, **patch: bool) -> tuple[object, int]:
    from targets.ptx.runner import load

    info = kernel.kernels[0]
    ptx, shared = cluster_patch(kernel.ptx, cluster, 32 * info.num_warps, info.shared_bytes, **patch)
    loaded = load(ptx, info)
    _allow_non_portable(loaded.function, cluster)
    return loaded, shared


def _forms_at(cupy, compiled: dict, quantizers: dict, cfg: MmqConfig, n: int, k: int, splits: list[int],  # noqa: ANN001
              rng) -> list[tuple[str, object, object, dict]]:
    """(form, MUL_MAT launch, GEMM-alone launch, check facts) of every cluster form at one shape (M = 1)."""
    from compiler import numerics
    from compiler.quantize_template import quantize_grid
    from tests.gpu.mmq_harness import kernel_weights, random_weight_blocks, reference_of

    m = 1
    w_host = random_weight_blocks(n, k, rng, cfg.weights)
    w = cupy.asarray(kernel_weights(cfg, w_host))
    x_host = rng.standard_normal((m, k)).astype(np.float32)
    x, xq = cupy.asarray(x_host), cupy.empty((m, k // 128, 144), dtype=cupy.uint8)
    y = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
    want = numerics.quantize("q8_1_mmq", x_host).reshape(m, k // 128, 144)
    ref = reference_of(want, w_host, cfg.weights)
    quantize = quantizers[(False, True)]  # no zeroing, launched so that a programmatic GEMM may follow
    one = one_launch_config(cfg)
    tiles = -(-n // cfg.block_n)
    forms = []
    zeroing = quantizers[(True, True)]
    two_launch = {"cluster": {}, "cluster reuse": {"reuse": True},
                  "cluster late stores": {"reuse": True, "late_stores": True},
                  "cluster launch only": {"reduce": False}, "cluster barriers only": {"barriers_only": True}}
    """The two-launch forms' ``cluster_patch`` options; those that keep the atomics follow the zeroing quantizer."""
    for cluster in splits:
        grid = (tiles, cluster, 1)
        loaded = {}
        for form, options in two_launch.items():
            gemm, shared = loaded[form] = _load_patched(compiled["atomic"], cluster, **options)
            atomics = options.get("reduce") is False or options.get("barriers_only", False)

            def alone(gemm=gemm, grid=grid, shared=shared) -> None:
                gemm.launch(xq, w, y, m, n, k, grid=grid, sync=False, programmatic=True, shared_bytes=shared)

            def mul_mat(alone=alone, atomics=atomics) -> None:
                if atomics:  # Y zeroed for them
                    zeroing.launch(x, xq, y, m, k, n, grid=quantize_grid(m, k), sync=False)
                else:
                    quantize.launch(x, xq, m, k, grid=quantize_grid(m, k), sync=False)
                alone()

            forms.append((f"{form} {cluster}", mul_mat, alone))
        from bench.gpu_common import log
        (gemm, shared), (launched, plain_shared), (reused, reused_shared) = (
            loaded[form] for form in ("cluster", "cluster launch only", "cluster reuse"))
        log(f"cluster {cluster} at N={n} K={k}, grid {grid}: max active clusters "
            f"{max_active_clusters(gemm.function, grid, gemm.block, shared)} with the reduction, "
            f"{max_active_clusters(launched.function, grid, launched.block, plain_shared)} without, "
            f"{max_active_clusters(reused.function, grid, reused.block, reused_shared)} reusing shared memory; "
            f"{gemm.registers} / {launched.registers} registers")
        scratch = cupy.empty(quantize_scratch_shape(one, grid, n, k), dtype=cupy.uint8)
        for name in ("one launch", "one launch at once"):
            kernel, shared = _load_patched(compiled[name], cluster, reuse=True)

            def single(kernel=kernel, grid=grid, shared=shared, scratch=scratch) -> None:
                kernel.launch(x, scratch, w, y, m, n, k, grid=grid, sync=False, shared_bytes=shared)

            forms.append((f"{name} {cluster}", single, single))
    checked = []
    for name, mul_mat, alone in forms:
        outputs = []
        for _ in range(2):
            y.fill(cupy.nan)
            mul_mat()
            cupy.cuda.get_current_stream().synchronize()
            outputs.append(cupy.asnumpy(y))
        out = outputs[0].astype(np.float64)
        err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) if np.isfinite(out).all() else float("inf")
        same = bool(np.array_equal(outputs[0].view(np.uint32), outputs[1].view(np.uint32)))
        # a one-launch form quantizes into its scratch, not checked apart: None, not a claim (Y's check covers it)
        quant_ok = None if name.startswith("one") else bool(np.array_equal(cupy.asnumpy(xq), want))
        facts = {"rel_err": err, "repeatable": same, "quantize_bit_exact": quant_ok,
                 "ok": err <= 1e-5 and (same or "only" in name) and quant_ok is not False}
        checked.append((name, mul_mat, alone, facts))
    return checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache (and check "
                        "each patched form with ptxas)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, the forms' order reversed every other one")
    args = parser.parse_args()
    if args.prepare:
        prepare()
        return

    from bench.gpu_common import gpu_or_exit, log, record, time_graph
    from targets.ptx.runner import load

    cupy = gpu_or_exit(COMMAND)
    quantizers, rng, flush = bm.measuring_setup(cupy, bm.compile_quantizers())
    compiled = compile_all()
    label, cfg, stages = goal_entry()
    atomic = load(compiled["atomic"].ptx, compiled["atomic"].kernels[0])
    copy_gbs = bm.copy_bandwidth(cupy)
    record({"what": "device-to-device copy (HBM reference)", "GB/s": copy_gbs})
    log(f"copy bandwidth {copy_gbs:.0f} GB/s; atomic kernel {atomic.registers} registers, "
        f"{atomic.local_bytes} B local")
    for round_ in range(args.rounds):
        for n, k in (SHAPES if round_ % 2 == 0 else SHAPES[::-1]):
            row = bm.measure(cupy, atomic, quantizers, label, cfg, stages, compiled["atomic"].kernels[0], 1, n, k,
                             rng, flush)
            record({**row, "form": "atomic", "round": round_})
            default_splits = row["grid"][1]
            splits = sorted({s for s in (default_splits, PORTABLE_CLUSTER) if 2 <= s <= 16})
            forms = _forms_at(cupy, compiled, quantizers, cfg, n, k, splits, rng)
            for name, mul_mat, alone, facts in (forms if round_ % 2 == 0 else forms[::-1]):
                us, us_alone = time_graph(cupy, mul_mat), time_graph(cupy, alone)
                weight_gbs = row["weight_GBs"] * row["us_mul_mat"] / us
                record({"what": f"qdot {label} {name}", "form": name, "shape": f"M=1 N={n} K={k}", "round": round_,
                        "us_mul_mat": us, "us_gemm_alone": us_alone, "atomic_us_mul_mat": row["us_mul_mat"],
                        "atomic_us_kernel": row["us_kernel"], "ratio_to_atomic": us / row["us_mul_mat"],
                        "weight_GBs": weight_gbs, "copy_fraction": weight_gbs / copy_gbs, **facts})
                log(f"{name:24s} N={n:5d} K={k:5d}: mul_mat {us:7.2f} us (alone {us_alone:7.2f}), atomic "
                    f"{row['us_mul_mat']:7.2f} (kernel {row['us_kernel']:6.2f}) {us / row['us_mul_mat']:.3f} x, "
                    f"{100 * weight_gbs / copy_gbs:5.1f} % of copy  ok {facts['ok']} err {facts['rel_err']:.1e}")
            cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
