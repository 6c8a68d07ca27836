"""Markdown tables from a GPU run's results file: ``python -m bench.report bench/results/<run>.jsonl``.

bench/RESULTS.md quotes these tables; regenerating them from the recorded rows is how
a figure there is checked.
"""

from __future__ import annotations

import argparse
import json


def _fmt(value: object, digits: int = 1) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) >= 0.01 or value == 0 else f"{value:.1e}"
    return str(value)


def table(rows: list[dict]) -> str:
    out = []
    failed = [r for r in rows if r.get("failed") or r.get("ok") is False]
    if failed:  # said first: a row that failed its check is no result (rows before session 61 were timed anyway)
        out += ["**Failed their check** (not results): " + "; ".join(f"{r.get('what')} {r.get('shape', '')}"
                                                                     for r in failed), ""]
    rows = [r for r in rows if r not in failed]
    mx = [r for r in rows if "tflops" in r or "tops" in r]
    if mx:
        out += ["| kernel | shape | µs | TFLOP/s (TOP/s) | rel. err | smem B |", "|---|---|---|---|---|---|"]
        for r in mx:
            rate = r.get("tflops", r.get("tops"))
            out.append(f"| {r['what']} | {r['shape']} | {_fmt(r['us'])} | {_fmt(rate)} | "
                       f"{_fmt(r.get('rel_err'), 2)} | {_fmt(r.get('shared_bytes'))} |")
    sweep = [r for r in rows if "split" in r or "split_target" in r]
    if sweep:
        out += sweep_table(sweep)
    mmq = [r for r in rows if "us_mul_mat" in r or ("us" in r and "llama_us" in r)]
    if mmq:
        out += ["", "| kernel | shape | MUL_MAT µs | GEMM µs | quantize µs | llama.cpp µs | speed-up | "
                "weights GB/s (L2 flushed) | rel. err |", "|---|---|---|---|---|---|---|---|---|"]
        for r in mmq:
            total = r.get("us_mul_mat", r.get("us"))
            llama = r.get("llama_us")
            speed = f"{llama / total:.2f}×" if llama else ""
            gbs = ""
            if "weight_GBs" in r:
                gbs = f"{r['weight_GBs']:.0f} ({r.get('weight_GBs_l2_flushed', 0):.0f})"
            err = r.get("rel_err_checked_rows", r.get("rel_err_first_rows"))  # the name before session 61
            out.append(f"| {r['what']} | {r['shape']} | {_fmt(total, 2)} | {_fmt(r.get('us_gemm'), 2)} | "
                       f"{_fmt(r.get('us_quantize'), 2)} | {_fmt(llama, 2)} | {speed} | {gbs} | {_fmt(err, 2)} |")
    other = [r for r in rows if "GB/s" in r]
    for r in other:
        out += ["", f"{r['what']}: {r['GB/s']:.0f} GB/s"]
    shown = {id(r) for group in (mx, sweep, mmq, other) for r in group}
    left = [r for r in rows if id(r) not in shown]
    if left:  # an experiment's rows, whose columns are its own: say so rather than print an empty table
        kinds = sorted({str(r.get("experiment", r.get("what", "?"))) for r in left})
        out += ["", f"({len(left)} row{'s' if len(left) != 1 else ''} of a kind this report does not tabulate — "
                    f"{', '.join(kinds)}; the rows are in the file)"]
    return "\n".join(out)


def sweep_table(rows: list[dict]) -> list[str]:
    """Best GEMM time (kernel + zeroing) of each decode variant per shape, over its split choices."""
    shapes = sorted({r["shape"] for r in rows}, key=lambda s: [int(p.split("=")[1]) for p in s.split()])
    best: dict[str, dict[str, dict]] = {}
    for r in rows:
        cell = best.setdefault(r["what"].removeprefix("sweep "), {})
        if r["shape"] not in cell or r["us_gemm"] < cell[r["shape"]]["us_gemm"]:
            cell[r["shape"]] = r
    out = ["", "| variant | " + " | ".join(shapes) + " |", "|---" * (len(shapes) + 1) + "|"]
    for variant, cells in best.items():
        out.append(f"| {variant} | " + " | ".join(
            f"{c['us_gemm']:.2f} (y={c['grid'][1]})" if (c := cells.get(s)) else "" for s in shapes) + " |")
    return out


def main(paths: list[str]) -> None:
    for path in paths:
        try:
            with open(path) as f:
                rows = [json.loads(line) for line in f if line.strip()]
        except (OSError, json.JSONDecodeError) as err:
            raise SystemExit(f"python -m bench.report: error: {path}: {err}") from None
        print(f"### {path}\n")
        print(table(rows))
        print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="RESULTS", help="results files (JSON lines) of GPU runs")
    main(parser.parse_args().paths)
