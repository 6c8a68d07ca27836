"""The long-run mode the template fuzzes share: draw, run, report, until the time is up.

    python -m tests.emulator.test_template_fuzz --seed 3 --seconds 1200
    python -m tests.emulator.test_mmq_fuzz --seed 3 --seconds 1200
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any


def long_run(description: str, draw: Callable[[random.Random], Any], run: Callable[..., str | None],
             refusal: type[Exception] | None = None) -> None:
    """Draw and run kernels from ``--seed`` for ``--seconds``; print each failure as it comes (with
    the inputs' seed, to replay it with ``run(draw, seed=...)``), then the counts and the refusals
    (``refusal`` exceptions) grouped by message; exit 1 if anything failed."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    deadline = time.time() + args.seconds
    runs, failures, refusals = 0, 0, Counter[str]()
    while time.time() < deadline:
        try:
            problem = run(draw(rng), seed=runs)
        except Exception as err:
            if refusal is None or not isinstance(err, refusal):
                raise
            refusals[str(err)] += 1
            problem = None
        if problem is not None:
            failures += 1
            print(f"[inputs seed {runs}] {problem}", flush=True)
        runs += 1
    refused = f", {sum(refusals.values())} refused" if refusal is not None else ""
    print(f"{runs} random kernels{refused}, {failures} failures")
    for message, count in refusals.most_common():
        print(f"  {count} × refused: {message}")
    raise SystemExit(1 if failures else 0)
