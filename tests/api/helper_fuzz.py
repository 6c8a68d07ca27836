"""Argument fuzz of the kernel templates' Python helpers and of ``compiler.numerics``: a bad argument must be refused
by name, never crash or hang.

``tests/api/input_fuzz.py`` damages what the command-line tools read; this one calls what a kernel engineer calls
from Python — the MMQ, GEMM and quantize configs, their kernel-text builders, grids, buffer shapes, residency
helpers, ``tile_weights``, ``choose_mmq``, the autotuner's ``Candidate``, the numerics reference functions
(``tests/api/numerics_calls.py``) and the AGX MMA encoder, decoder and assembly (``tests/api/agx_calls.py``) — with mostly good arguments (valid configs drawn as
``tests/emulator/test_mmq_fuzz.py`` draws them, sizes from 1 to past CUDA's limits, grids those configs give) and,
one argument in six, a bad one (zero, negative, a float, a str, None, a bool, a tuple, a ragged list, 2^70). Every
helper must then return a well-formed result or raise a ``TypeError`` / ``ValueError`` of its own. A case fails on:

- any other exception (an ``IndexError``, a ``ZeroDivisionError``, an ``OverflowError``, a ``KeyError``, ...);
- a ``TypeError`` / ``ValueError`` raised by Python itself rather than by a check that names the argument
  (``unsupported operand type``, ``object is not iterable``, ``invalid literal for int()`` ...);
- a call that takes more than ``LIMIT_S`` (a walk over a size, as ``m_ranges`` up to 2^31 was);
- a result that is not what the helper promises: a grid of ints from 1 to CUDA's limits, a shape of
  non-negative ints, a kernel text that is a str, the same result when asked again.

    python -m tests.api.helper_fuzz --seed 7 --seconds 300

``tests/api/test_helper_fuzz.py`` runs a fixed, seeded batch in the test suite.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import numpy as np

from compiler import mmq_choice
from compiler.autotune import Candidate
from compiler.format_table import FORMATS
from compiler.launch_plan import MAX_GRID
from compiler.mmq_template import (MmqConfig, fixup_counters_shape, fixup_grid, fixup_kernel_name, fixup_scalars,
                                   fixup_workspace_shape, in_gemm_fixup_unroll, mmq_fixup_kernel, mmq_grid,
                                   mmq_kernel, quantize_scratch_shape, resident_programs, small_m_tokens,
                                   split_factor, spread_launch, spread_shared_bytes, tile_weights)
from compiler.quantize_template import QuantizeConfig, quantize_grid, quantize_kernel
from compiler.templates import GemmConfig, gemm_kernel, grid, grouped_tile_offsets
from tests.api import agx_calls, numerics_calls
from tests.api.input_fuzz import Slow, time_limit
from tests.emulator.test_mmq_fuzz import WEIGHTS, draw

LIMIT_S = 5.0
BAD = (0, -1, -256, 2**31, 2**63, 2**70, 1.5, 64.0, "64", "", None, True, False, (), (1,), [2, 3], float("nan"),
       float("inf"), np.int64(-3), np.float64(8.0), b"x", {}, object(), [[1, 2], [3]])
PYTHON_MESSAGES = re.compile(
    r"unsupported operand type|not supported between instances|object is not|object cannot be interpreted|"
    r"invalid literal for|can't multiply sequence|must be real number|math domain error|cannot convert float|"
    r"values to unpack|unhashable type|argument must be|division by zero|index out of range|can only concatenate|"
    r"has no len|positional argument|keyword argument '|got an unexpected keyword|setting an array element|"
    r"could not broadcast|could not convert|is out of bounds for")
"""Messages Python writes for an operation on a wrong type or value: a refusal that reads like this escaped from
deep in a helper instead of being made where the argument was given."""


@dataclass(frozen=True)
class Failure:
    call: str
    problem: str


# --- good values ------------------------------------------------------------------------------------------------

def _size(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.7:
        return rng.choice([1, 2, 3, 5, 8, 9, 17, 33, 64, 65, 100, 512, 1000, 3584, 4096, 14336, 32768])
    if roll < 0.9:
        return rng.randint(1, 70000)
    return rng.choice([2**20, 2**31 - 1, 2**31, 2**32 + 64, 2**40])


def _k(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.8:
        return 256 * rng.choice([0, 1, 2, 3, 4, 14, 16, 32, 56, 128])
    if roll < 0.9:
        return rng.choice([100, 128, 255, 257, 512 + 32])
    return 256 * rng.choice([2**23, 2**31, 2**40])


def _mmq_cfg(rng: random.Random, where: Callable[[MmqConfig], bool] | None = None) -> MmqConfig:
    """A valid config as the MMQ fuzz draws them; most of the time one ``where`` holds for (a fix-up helper is given
    fix-up configs mostly, so that it gets past its first refusal)."""
    for _ in range(200 if where is not None and rng.random() < 0.8 else 1):
        cfg = draw(rng).cfg
        if where is None or where(cfg):
            break
    return cfg


def _rows(rng: random.Random, cfg: MmqConfig) -> int:
    """M for ``cfg``: within its tokens for a weights-once kernel most of the time."""
    return rng.randint(1, cfg.max_m) if cfg.small_m and rng.random() < 0.7 else _size(rng)


def _gemm_cfg(rng: random.Random) -> GemmConfig:
    for _ in range(20):
        try:
            return GemmConfig(lhs=rng.choice(["e4m3", "e2m1", "e5m2", "i8", "bf16"]),
                              rhs=rng.choice(["e2m1", "e4m3", "i8"]), block_m=rng.choice([16, 32, 64, 128]),
                              block_n=rng.choice([16, 32, 64, 128, 256]), block_k=rng.choice([32, 64, 128]),
                              num_warps=rng.choice([1, 2, 4, 8]), group_m=rng.choice([1, 4, 8]),
                              persistent=rng.random() < 0.2)
        except (TypeError, ValueError):
            continue
    return GemmConfig()


def _grid3(rng: random.Random) -> tuple[int, ...]:
    dims = [rng.choice([1, 2, 7, 132, 256, 1024, 65535]) for _ in range(rng.randint(1, 3))]
    return tuple(dims)


def _launch_grid(rng: random.Random) -> int | tuple[int, ...]:
    """What ``launch(grid=…)`` takes, at times at or past one of CUDA's limits: a program count or 1–3 dims."""
    if rng.random() < 0.3:
        return rng.choice([1, 132, MAX_GRID[0], MAX_GRID[0] + 1])
    return tuple(rng.choice([1, 7, 132, 65535, 65536]) for _ in range(rng.randint(1, 3)))


def _mmq_grid_of(rng: random.Random, cfg: MmqConfig) -> tuple[int, ...]:
    """The grid ``cfg`` launches on at a random shape (what the fix-up and scratch helpers are given), or any grid."""
    try:
        return mmq_grid(cfg, _size(rng) if not cfg.small_m else rng.randint(1, cfg.max_m), _size(rng),
                        256 * rng.randint(1, 64))
    except (TypeError, ValueError):
        return _grid3(rng)


def _weights(rng: random.Random) -> str:
    return rng.choice(WEIGHTS) if rng.random() < 0.9 else rng.choice(["q4_k", "q9_K", "f32", "e2m1", ""])


def _blocks(rng: random.Random, cfg: MmqConfig) -> np.ndarray:
    size = FORMATS[cfg.weights].block_bytes or 1
    per_step = 256 // (FORMATS[cfg.weights].block_values or 256)
    n, steps = rng.randint(1, 70), rng.randint(1, 3)
    shape = rng.choice([(n, steps * per_step, size), (n, steps * per_step * size)])
    return np.frombuffer(rng.randbytes(int(np.prod(shape))), np.uint8).reshape(shape).copy()


# --- what each helper promises ----------------------------------------------------------------------------------

def _is_grid(value: object) -> bool:
    return (isinstance(value, tuple) and len(value) == 3 and all(type(d) is int for d in value)
            and all(1 <= d <= limit for d, limit in zip(value, MAX_GRID, strict=True)))


def _is_shape(value: object) -> bool:
    return isinstance(value, tuple) and len(value) >= 1 and all(type(d) is int and d >= 0 for d in value)


def _is_ints(value: object) -> bool:
    return isinstance(value, tuple) and all(type(d) is int for d in value)


def _is_positive(value: object) -> bool:
    return type(value) is int and value >= 1


def _is_str(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _is_spread(value: object) -> bool:
    return (isinstance(value, tuple) and len(value) == 2 and type(value[0]) is int and value[0] >= 0
            and (value[1] is None or type(value[1]) is int))


def _is_array(value: object) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == np.uint8


def _is_choice(value: object) -> bool:
    return isinstance(value, mmq_choice.MmqChoice) and isinstance(value.cfg, MmqConfig)


def _is_offsets(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(line, str) for line in value)


def _is_ranges(value: object) -> bool:
    return isinstance(value, list) and bool(value) and value[0][0] == 1


# --- the calls --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Helper:
    name: str
    function: Callable[..., Any]
    arguments: Callable[[random.Random], tuple[list[Any], dict[str, Any]]]
    promise: Callable[[object], bool]
    damaged: bool = False
    """``arguments`` damages its own (a config's fields): one in six of 26 fields would leave almost none intact."""


def _cfg_field_value(rng: random.Random, cfg: object, name: str) -> object:
    """Another value for field ``name``: one of its type's usual values, or a bad one."""
    current = getattr(cfg, name)
    if rng.random() < 0.5:
        return rng.choice(BAD)
    if isinstance(current, bool):
        return not current
    if isinstance(current, int):
        return rng.choice([0, 1, 2, 3, 4, 8, 16, 24, 48, 64, 96, 128, 256, 512, 1024, 2**20])
    if isinstance(current, str):
        return rng.choice(["q4_K", "q8_1", "q8_1_mmq", "e4m3", "bf16", "f32", "fma", "mma", "auto", "x"])
    return rng.choice(BAD)


def _damaged_config(rng: random.Random, good: object) -> dict[str, object]:
    """``good``'s fields, one or two of them changed (one time in four none)."""
    values = {f.name: getattr(good, f.name) for f in fields(good)}  # type: ignore[arg-type]
    for name in rng.sample(sorted(values), rng.choice([0, 1, 1, 2])):
        values[name] = _cfg_field_value(rng, good, name)
    return values


def _helpers() -> list[Helper]:
    def mmq(rng: random.Random) -> MmqConfig:
        return _mmq_cfg(rng)

    def fixup(rng: random.Random) -> MmqConfig:
        return _mmq_cfg(rng, lambda c: c.fixup)

    def split_kwargs(rng: random.Random) -> dict[str, Any]:
        keys = ["target", "max_splits", "min_blocks", "resident", "programs"]
        return {key: rng.choice([1, 2, 4, 16, 132, 1024]) for key in rng.sample(keys, rng.randint(0, 2))}

    def quantize_kwargs(rng: random.Random) -> dict[str, Any]:
        options = {"rows_per_program": [1, 4, 8, 16], "block_k": [128, 256, 512, 1024], "small_m": [0, 8, 32, 64],
                   "mid_rows": [1, 8], "mid_block_k": [128, 256], "mid_values": [0, 2**21]}
        return {key: rng.choice(options[key]) for key in rng.sample(sorted(options), rng.randint(0, 3))}

    def residency(rng: random.Random) -> list[Any]:
        return [rng.choice([0, 1024, 16384, 50000, 99000, 232448]), rng.choice([1, 7, 132, 3000]), rng.choice([132]),
                rng.choice([233472, 232448, 0]), rng.choice([0, 1024])]

    def residency_kwargs(rng: random.Random, names: tuple[str, ...]) -> dict[str, Any]:
        options = {"threads": [0, 32, 64, 128, 256, 1024], "registers": [0, 32, 80, 128, 255],
                   "threads_per_sm": [2048], "programs_per_sm": [1, 16, 32], "granularity": [1, 128, 256]}
        return {key: rng.choice(options[key]) for key in rng.sample(names, rng.randint(0, len(names)))}

    def resident_args(rng: random.Random) -> tuple[list[Any], dict[str, Any]]:
        shared, _, sms, per_sm, reserved = residency(rng)
        return [shared, sms, per_sm, reserved], residency_kwargs(rng, ("threads", "threads_per_sm",
                                                                        "programs_per_sm", "registers"))

    return [
        Helper("MmqConfig", lambda **kw: MmqConfig(**kw), lambda rng: ([], _damaged_config(rng, mmq(rng))),
               lambda v: isinstance(v, MmqConfig), damaged=True),
        Helper("GemmConfig", lambda **kw: GemmConfig(**kw), lambda rng: ([], _damaged_config(rng, _gemm_cfg(rng))),
               lambda v: isinstance(v, GemmConfig), damaged=True),
        Helper("QuantizeConfig", lambda **kw: QuantizeConfig(**kw),
               lambda rng: ([], _damaged_config(rng, QuantizeConfig(**quantize_kwargs(rng))
                                                if rng.random() < 0.5 else QuantizeConfig())),
               lambda v: isinstance(v, QuantizeConfig), damaged=True),
        Helper("mmq_kernel", mmq_kernel, lambda rng: ([mmq(rng)], {}), _is_str),
        Helper("mmq_grid", mmq_grid,
               lambda rng: ([c := mmq(rng), _rows(rng, c), _size(rng), _k(rng)], split_kwargs(rng)), _is_grid),
        Helper("fixup_grid", fixup_grid, lambda rng: ([c := fixup(rng), _rows(rng, c), _size(rng)], {}), _is_grid),
        Helper("fixup_counters_shape", fixup_counters_shape,
               lambda rng: ([c := _mmq_cfg(rng, lambda c: c.fixup_in_gemm), _rows(rng, c), _size(rng)], {}),
               _is_shape),
        Helper("fixup_scalars", fixup_scalars,
               lambda rng: ([c := fixup(rng), _mmq_grid_of(rng, c), _rows(rng, c), _size(rng), _k(rng)], {}),
               _is_ints),
        Helper("fixup_workspace_shape", fixup_workspace_shape,
               lambda rng: ([c := fixup(rng), _mmq_grid_of(rng, c), _size(rng)], {}), _is_shape),
        Helper("quantize_scratch_shape", quantize_scratch_shape,
               lambda rng: ([c := _mmq_cfg(rng, lambda c: c.quantize_in_gemm), _mmq_grid_of(rng, c), _size(rng),
                             _k(rng)], {}), _is_shape),
        Helper("in_gemm_fixup_unroll", in_gemm_fixup_unroll, lambda rng: ([mmq(rng)], {}), _is_positive),
        Helper("fixup_kernel_name", fixup_kernel_name,
               lambda rng: ([mmq(rng), rng.random() < 0.5, rng.choice([1, 2, 4, 8])], {}), _is_str),
        Helper("mmq_fixup_kernel", mmq_fixup_kernel,
               lambda rng: ([fixup(rng), rng.random() < 0.5, rng.choice([1, 2, 4, 8])], {}), _is_str),
        Helper("small_m_tokens", small_m_tokens, lambda rng: ([rng.randint(1, 64)], {}), _is_positive),
        Helper("split_factor", split_factor,
               lambda rng: ([rng.choice([1, 7, 64, 132, 4096, 2**31]), _k(rng)],
                            {key: rng.choice([1, 2, 16, 1024]) for key in
                             rng.sample(["target", "max_splits", "min_blocks", "resident"], rng.randint(0, 2))}),
               _is_positive),
        Helper("resident_programs", resident_programs, resident_args, lambda v: type(v) is int and v >= 0),
        Helper("spread_launch", spread_launch,
               lambda rng: (residency(rng), residency_kwargs(rng, ("threads", "registers"))), _is_spread),
        Helper("spread_shared_bytes", spread_shared_bytes,
               lambda rng: (residency(rng), residency_kwargs(rng, ("granularity", "threads", "registers"))),
               lambda v: type(v) is int and v >= 0),
        Helper("tile_weights", tile_weights, lambda rng: _tile_arguments(rng, mmq(rng)), _is_array),
        Helper("quantize_grid", quantize_grid, lambda rng: ([_size(rng), _k(rng)], quantize_kwargs(rng)), _is_grid),
        Helper("quantize_kernel", quantize_kernel, lambda rng: ([], quantize_kwargs(rng)), _is_str),
        Helper("gemm_kernel", gemm_kernel, lambda rng: ([_gemm_cfg(rng)], {}), _is_str),
        Helper("grid", grid, lambda rng: ([_gemm_cfg(rng), _size(rng), _size(rng)],
                                          {"programs": rng.choice([1, 132])} if rng.random() < 0.2 else {}), _is_grid),
        Helper("grouped_tile_offsets", grouped_tile_offsets,
               lambda rng: ([rng.choice([16, 64, 128]), rng.choice([16, 64, 128]), rng.choice([1, 8])], {}),
               _is_offsets),
        Helper("Candidate", Candidate,
               lambda rng: ([rng.choice(["c1", "128x256 w8"]), "// a kernel", _launch_grid(rng)],
                            {key: rng.choice(options) for key, options in
                             rng.sample([("arch", ["sm_80", "sm_89", "sm_90", "sm_90a", "sm_120a"]),
                                         ("strategy", ["auto", "promote-int8", "dequant-bf16", "promote-fp8"]),
                                         ("num_stages", [1, 2, 3, 4])], rng.randint(0, 3))}),
               lambda v: isinstance(v, Candidate)),
        Helper("choose_mmq", mmq_choice.choose_mmq,
               lambda rng: ([_weights(rng), _size(rng), _size(rng), _k(rng)],
                            {key: rng.random() < 0.5 for key in rng.sample(["tiled_weights", "reproducible"],
                                                                           rng.randint(0, 2))}), _is_choice),
        Helper("choice_text", mmq_choice.choice_text,
               lambda rng: ([_weights(rng), _size(rng), _size(rng), _k(rng)],
                            {"tiled_weights": rng.random() < 0.5} if rng.random() < 0.5 else {}), _is_str),
        Helper("m_ranges_text", mmq_choice.m_ranges_text,
               lambda rng: ([_weights(rng), rng.choice([1, 9, 100, 4097]), rng.choice([64, 4096]),
                             rng.choice([256, 4096])], {}), _is_str),
        Helper("m_ranges", mmq_choice.m_ranges,
               lambda rng: ([_weights(rng), rng.choice([1, 8, 100, 4096, 2**31]), rng.choice([64, 4096]),
                             rng.choice([256, 4096])], {}), _is_ranges),
        *(Helper(name, function, arguments, promise) for name, function, arguments, promise in numerics_calls.CALLS),
        *(Helper(name, function, arguments, promise) for name, function, arguments, promise in agx_calls.CALLS),
    ]


def _tile_arguments(rng: random.Random, drawn: MmqConfig) -> tuple[list[Any], dict[str, Any]]:
    """W's blocks and the ``tiled_weights`` form of ``drawn`` (one K step per stage, as it needs) that reads them; one
    time in ten the blocks of another format."""
    values = {f.name: getattr(drawn, f.name) for f in fields(drawn)}
    cfg = MmqConfig(**{**values, "tiled_weights": True, "k_blocks": 1})
    other = MmqConfig(weights=rng.choice(WEIGHTS)) if rng.random() < 0.1 else cfg
    return [_blocks(rng, other), cfg], {}


HELPERS = _helpers()


def _damage(rng: random.Random, args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """One argument in six (positional or keyword) replaced by a bad value; configs damage their own fields."""
    args = [rng.choice(BAD) if rng.random() < 1 / 6 else a for a in args]
    kwargs = {key: rng.choice(BAD) if rng.random() < 1 / 6 else value for key, value in kwargs.items()}
    return args, kwargs


def _text(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else f"{text[:100]}…({len(text)} chars)"


def run_case(rng: random.Random) -> tuple[str, Failure | None]:
    """One random call; (its outcome's kind, the failure or None)."""
    helper = rng.choice(HELPERS)
    try:
        args, kwargs = helper.arguments(rng)
    except (TypeError, ValueError):  # a drawn config the helper's own inputs refuse: another draw
        return "no draw", None
    if not helper.damaged:
        args, kwargs = _damage(rng, args, kwargs)
    call = f"{helper.name}({', '.join([*map(_text, args), *(f'{k}={_text(v)}' for k, v in kwargs.items())])})"
    try:
        with time_limit(LIMIT_S), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's on NaN / inf arithmetic: what the reference computes with
            first = helper.function(*args, **kwargs)
            again = helper.function(*args, **kwargs)
    except Slow:
        return "slow", Failure(call, f"slow: ran past {LIMIT_S:g} s")
    except (TypeError, ValueError) as err:
        message = str(err)
        if not message or PYTHON_MESSAGES.search(message):
            return "python", Failure(call, f"refused by Python, not by a check: {type(err).__name__}: {message}")
        return "refused", None
    except Exception as err:  # noqa: BLE001 - any other exception is the finding
        return "crash", Failure(call, f"{type(err).__name__}: {err}")
    if not helper.promise(first):
        return "bad result", Failure(call, f"returned {_text(first)}")
    if not _equal(first, again):
        return "not deterministic", Failure(call, f"returned {_text(first)}, then {_text(again)}")
    return "returned", None


def _equal(a: object, b: object) -> bool:
    if isinstance(a, (np.ndarray, np.generic)):  # a NaN result is the same NaN again
        return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape  # type: ignore[union-attr]
                and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
    if is_dataclass(a) and not isinstance(a, type):  # numerics' block fields: arrays compared field by field
        return type(a) is type(b) and all(_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return a == b


def fuzz(seed: int, cases: int | None = None, seconds: float | None = None) -> tuple[dict[str, int], list[Failure]]:
    """Cases until ``cases`` or ``seconds`` runs out; the outcome counts and the distinct failures (by helper and
    problem, numbers masked)."""
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    failures: dict[str, Failure] = {}
    start = time.monotonic()
    done = 0
    while (cases is None or done < cases) and (seconds is None or time.monotonic() - start < seconds):
        kind, failure = run_case(rng)
        counts[kind] = counts.get(kind, 0) + 1
        if failure is not None:
            key = failure.call.split("(")[0] + ": " + re.sub(r"\d+", "N", failure.problem)[:160]
            failures.setdefault(key, failure)
        done += 1
    return counts, list(failures.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=None, help="run for this long (default: --cases)")
    parser.add_argument("--cases", type=int, default=None, help="run this many cases (default 2000)")
    args = parser.parse_args(argv)
    cases = args.cases if args.cases is not None or args.seconds is not None else 2000
    counts, failures = fuzz(args.seed, cases, args.seconds)
    for failure in failures:
        print(f"FAIL {failure.call}\n     {failure.problem}")
    total = sum(counts.values())
    summary = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
    print(f"seed {args.seed}: {total} cases ({summary}), {len(failures)} distinct failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
