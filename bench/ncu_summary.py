"""Summarise an Nsight Compute source-page CSV: where the shared-memory wavefronts and the stalls go.

    ncu --kernel-name regex:NAME --launch-count 1 --section SourceCounters --page source \\
        --print-source sass --csv python -m bench.experiments.ncu_targets > NAME.csv   # GPU machine
    python -m bench.ncu_summary NAME.csv                                                 # anywhere

Per SASS opcode: shared-memory wavefronts, the ideal count and the excess (bank conflicts, or
for LDGSTS the global sectors one copy instruction spans); the instructions with the most excess;
the global sectors beyond the ideal; and the warp-stall samples by reason, by opcode and, for each
leading reason, which opcodes stalled for it (run 267: the prefill's dispatch stalls on FFMA and IMMA). The
runs of 2026-11-30 (runs 80–82) used it to find the prefill kernel's 2-way conflicts on its
activation tile (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter, defaultdict

EXCESS, WAVEFRONTS, IDEAL = "L1 Wavefronts Shared Excessive", "L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal"
SAMPLES, EXECUTED = "Warp Stall Sampling (All Samples)", "Instructions Executed"
GLOBAL_EXCESS, GLOBAL = "L2 Theoretical Sectors Global Excessive", "L2 Theoretical Sectors Global"


def read_rows(path: str) -> tuple[str, list[dict[str, str]]]:
    """(kernel name, one dict per SASS instruction) of an ncu ``--page source --csv`` dump."""
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    name, header, rows = "?", None, []
    for row in csv.reader(lines):
        if row and row[0] == "Kernel Name":
            name = row[1]
        elif row and row[0] == "Address":
            header = row
        elif header and len(row) == len(header):
            rows.append(dict(zip(header, row, strict=True)))
    return name, rows


def number(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def opcode(source: str) -> str:
    words = source.split()
    return (words[1] if words[0].startswith("@") else words[0]) if words else "?"


def summary(path: str, top: int = 8) -> str:
    name, rows = read_rows(path)
    out = [f"kernel {name} ({len(rows)} SASS instructions)"]
    total, excess = sum(number(r[WAVEFRONTS]) for r in rows), sum(number(r[EXCESS]) for r in rows)
    out.append(f"shared wavefronts {total:.0f}, excess {excess:.0f} ({100 * excess / max(total, 1):.0f} %)")
    by_op: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for r in rows:
        acc = by_op[opcode(r["Source"])]
        acc[0] += number(r[WAVEFRONTS])
        acc[1] += number(r[IDEAL])
        acc[2] += number(r[EXCESS])
    out.append("by opcode: wavefronts / ideal / excess")
    for op, (w, ideal, ex) in sorted(by_op.items(), key=lambda kv: -kv[1][0]):
        if w:
            out.append(f"  {op:30s} {w:12.0f} {ideal:12.0f} {ex:12.0f}")
    out.append("instructions with the most excess:")
    for r in sorted(rows, key=lambda r: -number(r[EXCESS]))[:top]:
        out.append(f"  {number(r[EXCESS]):10.0f} of {number(r[WAVEFRONTS]):10.0f}  {r['Source'].strip()[:72]}")
    g_total, g_excess = sum(number(r[GLOBAL]) for r in rows), sum(number(r[GLOBAL_EXCESS]) for r in rows)
    out.append(f"global sectors {g_total:.0f}, beyond the ideal {g_excess:.0f} ({100 * g_excess / max(g_total, 1):.0f} %)")
    samples = sum(number(r[SAMPLES]) for r in rows)
    reasons: Counter[str] = Counter()
    ops: Counter[str] = Counter()
    ops_of: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        ops[opcode(r["Source"])] += number(r[SAMPLES])
        for key, value in r.items():
            if key.startswith("stall_") and "Not Issued" not in key:
                reasons[key[len("stall_"):]] += number(value)
                ops_of[key[len("stall_"):]][opcode(r["Source"]).split(".")[0]] += number(value)
    out.append("stall samples by reason: " + ", ".join(f"{k} {100 * v / max(samples, 1):.0f} %"
                                                      for k, v in reasons.most_common(8)))
    out.append("stall samples by opcode: " + ", ".join(f"{k} {100 * v / max(samples, 1):.0f} %"
                                                      for k, v in ops.most_common(8) if v))
    out.append("each reason's opcodes (share of that reason's samples):")
    for reason, count in reasons.most_common(6):
        out.append(f"  {reason:14s} " + ", ".join(f"{k} {100 * v / max(count, 1):.0f} %"
                                                  for k, v in ops_of[reason].most_common(5) if v))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    print("\n\n".join(summary(path, args.top) for path in args.csv))


if __name__ == "__main__":
    main()
