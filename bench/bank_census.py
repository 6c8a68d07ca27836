"""Bank-conflict census of ``bench.mmq``'s kernels at compile time: every shared-memory load and register → shared
store whose wavefronts per warp exceed the ideal, as qdot-lower-local-load's and qdot-to-llvm's remarks count them
(``passes/support/bank_conflicts.py``), with no GPU.

    python -m bench.bank_census [--only TEXT] [--label LABEL ...] [--all]

A prediction from the layout functions, not a measurement: it is Nsight Compute's "L1 Wavefronts Shared" model
(run 306 measured the two conflicts it first found, on the one-token kernel). ``--all`` lists the conflict-free
accesses too. Labels may carry ``padrows`` / ``swfold`` (``bench.mmq.padded_rows``). The derived block fields' loads
(q8_1_mmq's d and s, the q4_K / q5_K headers, …) are counted as qdot-lower-local-load emits them, each address of a
thread once; where LLVM's load-store vectorizer later joins neighbouring loads into a wider one the census
counts them apart.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import bench.mmq as bm


def census(label: str, cfg, stages: int, every: bool = False) -> list[str]:  # noqa: ANN001 - MmqConfig
    """The remark lines (pass: message) of ``label``'s kernel that count wavefronts: the conflicted ones, or all."""
    from compiler.api import compile as compile_source
    from compiler.mmq_template import mmq_kernel
    from compiler.pipelines import PtxOptions, ptx_pipeline

    pipeline = bm._pipeline(label, stages) or ptx_pipeline(PtxOptions(arch="sm_90", strategy="promote-int8",  # noqa: SLF001
                                                                      num_stages=stages))
    remarks = compile_source(mmq_kernel(cfg), pipeline=pipeline, remarks=True).remarks
    lines = [r.split("remark: ", 1)[1] for r in remarks if "wavefront" in r]
    return [line for line in lines if every or "bank conflicts" in line]


def entries(only: str | None, labels: Sequence[str]) -> list:
    """``bench.mmq``'s entries, as ``--only`` / ``--label`` choose them (``… padrows`` / ``… swfold`` forms too)."""
    if not labels:
        return bm.selected(only)
    from bench.experiments.labelled_ab import selection

    chosen = selection(labels)
    known = {label for label, _cfg, _stages in chosen}
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise SystemExit(f"bench.bank_census: no kernel is labelled {unknown[0]!r}")
    return chosen


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", metavar="TEXT", help="only the kernels whose label contains TEXT")
    parser.add_argument("--label", action="append", default=[], metavar="LABEL", help="only this label (repeatable)")
    parser.add_argument("--all", action="store_true", help="list the conflict-free accesses too")
    args = parser.parse_args(argv)
    conflicted = 0
    for label, cfg, stages in entries(args.only, args.label):
        lines = census(label, cfg, stages, args.all)
        conflicted += sum("bank conflicts" in line for line in lines)
        for line in lines:
            print(f"{label}: {line}")
    print(f"{conflicted} conflicted access{'es' if conflicted != 1 else ''}")


if __name__ == "__main__":
    main()
