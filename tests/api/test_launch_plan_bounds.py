"""The bounds qdot-bench sizes arrays with (``launch_plan.IndexEvaluator``) hold for every program: random index
computations over ``qdot.program_id``, ``qdot.num_programs``, a scalar parameter and constants, each value's bounds
over the grid checked against the value every program computes (the evaluator with that program's ids). A value
whose bounds are refused (a divisor that may be zero, an unsigned op on a value that may be negative) is skipped
with everything computed from it; every value that is bounded must be computed by every program without error."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from compiler import launch_plan, registry
from compiler.cli.common import parse_module, split_chunks
from compiler.diagnostics import QdotError

BINARY = ("addi", "subi", "muli", "divui", "divsi", "ceildivui", "ceildivsi", "floordivsi", "remui", "remsi",
          "minui", "minsi", "maxui", "maxsi", "andi", "ori", "xori")
SHIFTS = ("shli", "shrui", "shrsi")
PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _random_kernel(rng: np.random.Generator, ops: int) -> str:
    lines = ["func.func @k(%n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {",
             "  %x = qdot.program_id x", "  %y = qdot.program_id y", "  %z = qdot.program_id z",
             "  %gx = qdot.num_programs x"]
    values = ["%x", "%y", "%z", "%gx", "%n"]
    for i, c in enumerate(int(v) for v in rng.integers(-3, 21, size=4)):
        lines.append(f"  %k{i} = arith.constant {c} : index")
        values.append(f"%k{i}")
    for i in range(ops):
        a, b = (values[int(j)] for j in rng.integers(0, len(values), size=2))
        kind = rng.random()
        if kind < 0.15:  # a compare and a select on it
            predicate = PREDICATES[int(rng.integers(len(PREDICATES)))]
            c, d = (values[int(j)] for j in rng.integers(0, len(values), size=2))
            lines += [f"  %b{i} = arith.cmpi {predicate}, {a}, {b} : index",
                      f"  %v{i} = arith.select %b{i}, {c}, {d} : index"]
        elif kind < 0.25:  # shifts by a small constant only
            lines += [f"  %s{i} = arith.constant {int(rng.integers(0, 5))} : index",
                      f"  %v{i} = arith.{SHIFTS[int(rng.integers(len(SHIFTS)))]} {a}, %s{i} : index"]
        else:
            lines.append(f"  %v{i} = arith.{BINARY[int(rng.integers(len(BINARY)))]} {a}, {b} : index")
        values.append(f"%v{i}")
    return "\n".join([*lines, "  func.return", "}", ""])


SEEDS = range(150)


def _check(seed: int) -> list[tuple[str, bool]]:
    """Checks seed's kernel; returns (op name, whether its bounds depend on the program) per value bounded."""
    rng = np.random.default_rng(seed)
    text = _random_kernel(rng, 14)
    func = launch_plan.find_kernel(parse_module(registry.make_context(), split_chunks(text, False)[0], "random.mlir"),
                                   None)
    params = launch_plan.kernel_parameters(func)
    grid = (int(rng.integers(1, 6)), int(rng.integers(1, 5)), int(rng.integers(1, 3)))
    scalars = {"n": int(rng.integers(0, 21))}
    results = [op.results[0] for op in func.walk() if op.name.startswith("arith.") and op.name != "arith.constant"
               and op.results and str(op.results[0].type) == "index"]
    over_all = launch_plan.IndexEvaluator(func, scalars, params, grid)
    checked = []
    for value in results:
        try:
            lo, hi = over_all.bounds(value, value.owner, "the value")
        except QdotError:
            continue
        for program in itertools.product(*(range(g) for g in grid)):
            one = launch_plan.IndexEvaluator(func, scalars, params, grid, program)
            exact, same = one.bounds(value, value.owner, "the value")
            assert exact == same and lo <= exact <= hi, (seed, str(value.owner), program, exact, (lo, hi))
        checked.append((value.owner.name, lo < hi))
    return checked


@pytest.mark.parametrize("seed", SEEDS)
def test_every_program_computes_a_value_inside_its_bounds(seed: int) -> None:
    _check(seed)


def test_the_random_kernels_bound_every_op_over_several_programs() -> None:
    """Not vacuous: over the seeds, every op kind is bounded with a range that depends on the program."""
    varying = {name for seed in SEEDS for name, spread in _check(seed) if spread}
    expected = {f"arith.{op}" for op in (*BINARY, *SHIFTS, "select")}
    assert expected <= varying, sorted(expected - varying)


def test_an_unsigned_compare_of_a_value_that_may_be_negative_is_refused() -> None:
    """``ult`` … ``uge`` read a negative index as a huge unsigned one, which the evaluator's Python ints do not: a
    diagnostic rather than a silently wrong size."""
    text = "\n".join(["func.func @k(%n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {",
                      "  %x = qdot.program_id x", "  %c2 = arith.constant 2 : index",
                      "  %d = arith.subi %x, %c2 : index", "  %lt = arith.cmpi ult, %d, %n : index",
                      "  %v = arith.select %lt, %n, %c2 : index", "  func.return", "}", ""])
    func = launch_plan.find_kernel(parse_module(registry.make_context(), split_chunks(text, False)[0], "u.mlir"), None)
    evaluator = launch_plan.IndexEvaluator(func, {"n": 4}, launch_plan.kernel_parameters(func), (4, 1, 1))
    value = next(op for op in func.walk() if op.name == "arith.select").results[0]
    with pytest.raises(QdotError) as caught:
        evaluator.bounds(value, value.owner, "the value")
    assert str(caught.value) == ("u.mlir:5:3: error: 'arith.cmpi' op compares unsigned an operand that may be "
                                 "negative (-2 … 1, 4) at n=4, computing the value")


@pytest.mark.parametrize("n, amount", [(1, "-3"), (100, "96")])
def test_a_shift_outside_its_types_width_is_refused_even_when_known_exactly(n: int, amount: str) -> None:
    """arith's shift by a negative amount or by the width or more has no defined value: Python's ``<<`` raised a
    bare ValueError on the first (qdot-bench's internal error) and gave a size of 2^96 elements on the second."""
    text = "\n".join(["func.func @k(%n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {",
                      "  %c4 = arith.constant 4 : index", "  %c16 = arith.constant 16 : index",
                      "  %a = arith.subi %n, %c4 : index", "  %v = arith.shli %c16, %a : index",
                      "  func.return", "}", ""])
    func = launch_plan.find_kernel(parse_module(registry.make_context(), split_chunks(text, False)[0], "s.mlir"), None)
    evaluator = launch_plan.IndexEvaluator(func, {"n": n}, launch_plan.kernel_parameters(func), (1, 1, 1))
    value = next(op for op in func.walk() if op.name == "arith.shli").results[0]
    with pytest.raises(QdotError) as caught:
        evaluator.bounds(value, value.owner, "the value")
    assert str(caught.value) == (f"s.mlir:5:3: error: 'arith.shli' op shifts by {amount}, outside 0 … 63 (its 64-bit "
                                 f"type has no defined value there) at n={n}, computing the value")


@pytest.mark.parametrize("programs", [3, 5, 7, 12, 13])
def test_stream_k_counters_are_sized_program_by_program_as_the_helpers_size_them(programs: int) -> None:
    """A stream-K program's tile is its first tile plus a loop variable: bounded over all programs at once, apart,
    they reached up to twice the tiles, and compiler.emulate refused counters sized by fixup_counters_shape. Program
    by program (a program that has no segment never reaches the counter) the plan needs what the helpers give."""
    from dataclasses import replace

    from compiler.mmq_template import MmqConfig, fixup_counters_shape, fixup_workspace_shape, mmq_kernel

    cfg = replace(MmqConfig(block_m=32, block_n=64, num_warps=4, stream_k=True, fixup=True), fixup_in_gemm=True)
    m, n, k, grid = 40, 72, 768, (programs, 1, 1)
    func = launch_plan.find_kernel(parse_module(registry.make_context(),
                                                    split_chunks(mmq_kernel(cfg), False)[0], "sk.mlir"), None)
    params = launch_plan.kernel_parameters(func)
    specs = {spec.param: spec for spec in launch_plan.plan_arrays(func, params, {"m": m, "n": n, "k": k}, grid)}
    assert specs["count_ptr"].elements == int(np.prod(fixup_counters_shape(cfg, m, n))) == 4
    assert specs["part_ptr"].elements == int(np.prod(fixup_workspace_shape(cfg, grid, n)))
    over_all = launch_plan.plan_arrays(func, params, {"m": m, "n": n, "k": k}, (launch_plan.EXACT_PROGRAMS + 1, 1, 1))
    assert {spec.param: spec for spec in over_all}["count_ptr"].elements > 4  # the bound over all programs, sound
