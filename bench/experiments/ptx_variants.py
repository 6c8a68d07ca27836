"""The A/B loop of the experiments that time a compiled q4_K kernel against a text edit of its PTX.

A text edit is a measuring stick, not qdot output: it asks whether a change is worth building in
the compiler. Each variant is checked against ``compiler.numerics`` before it is timed
(``bench.mmq.measure``), and the variants of a kernel are interleaved over the repetitions so that
the machine's drift falls on both alike (runs 95 and 96).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from targets.ptx.kernel_info import KernelInfo


def run_ab(compiled: list, edited: dict[str, str], shapes: dict[bool, tuple], experiment: str, variant: str,
           quantizers_compiled: dict, repetitions: int = 2, extra_shared: int = 0) -> None:
    """``compiled``: ``bench.mmq.compile_kernels`` rows; ``edited``: each label's edited PTX;
    ``shapes``: the (M, N, K) to time, by whether the kernel is a decode kernel. ``extra_shared``: bytes of dynamic
    shared memory the edit uses past the kernel's own (the runner sizes the edited kernel's launch, its spread and
    its program count by the sum)."""
    import cupy

    from bench.gpu_common import record
    from bench.mmq import measure, measuring_setup
    from targets.ptx.runner import load

    quantizers, rng, flush = measuring_setup(cupy, quantizers_compiled)

    def grown(info: KernelInfo) -> KernelInfo:
        return replace(info, shared_bytes=info.shared_bytes + extra_shared)

    loaded = [(label, cfg, stages, {"compiled": load(kernel.ptx, kernel.kernels[0]),
                                    variant: load(edited[label], grown(kernel.kernels[0]))})
              for label, cfg, stages, kernel in compiled]
    for rep in range(repetitions):
        for label, cfg, stages, kernels in loaded:
            for m, n, k in shapes[cfg.small_m]:
                for name, kern in kernels.items():  # each row records its own kernel's shared memory
                    row = measure(cupy, kern, quantizers, f"{label} {name}", cfg, stages, kern.info, m, n, k, rng,
                                  flush)
                    row.update({"experiment": experiment, "variant": name, "rep": rep})
                    record(row)
                    print("ROW", json.dumps({"kernel": label, "variant": name, "shape": row["shape"],
                                             "ok": row["ok"], "mul_mat": round(row["us_mul_mat"], 2),
                                             "kernel_us": round(row["us_kernel"], 2)}), flush=True)



GOAL_PTX = Path(__file__).with_name("goal_kernel_360499b.ptx")
"""The one-token goal kernel (``cluster_reduce.goal_entry``) as qdot 360499b94b4cbc7c emitted it, before run 311's
16-byte header load: the PTX the text edits of runs 303–310 were written for (their register names) and timed on,
kept so that they stay reproducible as the compiler moves on. Its ``KernelInfo`` is the ``.json`` beside it."""
GOAL_PTX_C830313 = Path(__file__).with_name("goal_kernel_c830313.ptx")
"""The same kernel as qdot c830313fdc3c41f1 emitted it (run 311's header load, run 312's suite; its ``KernelInfo``
beside it, the same as ``GOAL_PTX``'s): the PTX ``decode_chain_edits`` (run 313) edits, before the compiler took
its magic-number decoding."""


def not_the_goal_kernel(experiment: str, what: str | None = None) -> ValueError:
    """The error of a text edit given PTX its anchors do not fit (``what``: the anchor that failed). The edits
    are tied to a stored goal kernel's register names (``GOAL_PTX``'s or ``GOAL_PTX_C830313``'s), so any other PTX —
    a newer compiler's included — is refused rather than edited wrongly."""
    return ValueError(f"{experiment}: the PTX is not the goal kernel's as expected" + (f" ({what})" if what else ""))


@dataclass(frozen=True)
class StoredKernel:
    """A kernel from stored PTX, in the shape of ``get_or_compile``'s result (``ptx``, ``kernels``)."""

    ptx: str
    kernels: tuple[KernelInfo, ...]


def stored_goal_kernel(ptx: Path = GOAL_PTX) -> list:
    """``bench.mmq.compile_kernels``'s row for the goal kernel, with ``ptx`` (``GOAL_PTX`` or a later compiler's;
    its ``KernelInfo`` the ``.json`` of the same name) as its kernel (and the quantize kernels compiled): what the
    experiments that edit that PTX time."""
    import bench.mmq as bm
    from bench.experiments.cluster_reduce import goal_entry

    bm.compile_quantizers()
    label, cfg, stages = goal_entry()
    info = KernelInfo.from_json(ptx.with_suffix(".json").read_text(encoding="utf-8"))
    kernel = StoredKernel(ptx.read_text(encoding="utf-8"), (info,))
    return [(label, cfg, stages, kernel)]


def goal_kernel_ab(description: str, command: str, edits: dict, argv: list[str] | None = None,
                   kernels: Callable[[], list] = stored_goal_kernel) -> None:
    """The command line of the experiments that time text edits of the one-token goal kernel
    (``cluster_reduce.goal_entry``): ``--prepare`` compiles it and the quantize kernels into the cache; else the
    edit named (``edits``: name → (edit of the PTX, the (M, N, K) to time[, bytes of dynamic shared memory it adds]);
    with one edit, that one) is timed beside the kernel as compiled by ``run_ab``, ``--reps`` times. ``kernels``:
    the rows to edit (``bench.mmq.compile_kernels``' shape), by default ``GOAL_PTX``'s."""
    import argparse

    import bench.mmq as bm

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--prepare", action="store_true", help="only compile the kernels into the cache")
    parser.add_argument("edit", nargs="?", choices=sorted(edits), help="the edit to time beside the kernel as "
                        "compiled" + (" (the only one by default)" if len(edits) == 1 else ""))
    parser.add_argument("--reps", type=int, default=3, help="repetitions, both forms in each")
    args = parser.parse_args(argv)
    if args.prepare:
        from bench.prepare import fill_cache

        print(f"prepared, fingerprint {fill_cache(kernels)}")
        return
    name = args.edit or (next(iter(edits)) if len(edits) == 1 else None)
    if name is None:
        parser.error("name an edit (or --prepare)")
    from bench.gpu_common import gpu_or_exit

    gpu_or_exit(command)
    compiled = kernels()
    edit, shapes, *extra = edits[name]
    run_ab(compiled, {label: edit(kernel.ptx) for label, _cfg, _stages, kernel in compiled}, {True: list(shapes)},
           name, name, bm.compile_quantizers(), repetitions=args.reps, extra_shared=sum(extra))
