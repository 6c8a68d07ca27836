"""What a kernel's launch needs: its scalar parameters by source name, the grid from expressions,
and one array per pointer sized from the kernel's ``qdot.make_desc`` ops.

A kernel takes bare pointers; how much memory each must reach is stated nowhere but in the
descriptors the kernel builds over them, whose shapes and strides are arith ops on its scalar
parameters (and, for a per-program workspace such as stream-K's, on ``qdot.num_programs``; for a
region per program, on ``qdot.program_id``). ``plan_arrays`` bounds those ops on Python ints at one
shape and grid, over all programs (``IndexEvaluator``), and gives each pointer the largest extent
its descriptors reach, so the sizes follow the kernel
as written rather than a layout restated beside it. ``plan_run`` adds the grid and the FLOP
count (``compiler.shape_expressions``) and ``Run.host_arrays`` the bytes to fill them with.
``compiler.launch_checks`` holds a ``compiler.run`` / ``launch`` / ``emulate`` to the same plan.

qdot-bench (``compiler/cli/bench.py``) plans its runs with it, and its messages name that
tool's flags (--shape, --grid, --kernel). A shape or grid that does not fit the kernel is a
``LaunchPlanError``; IR it cannot size from is a ``QdotError`` located at the op. xDSL, the
dialects and numpy are imported inside the functions that use them, so that importing this
module (qdot-bench does before it parses its flags) costs only ``ast`` and ``dataclasses``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.shape_expressions import ExpressionError, Expressions

MAX_GRID = (2**31 - 1, 65535, 65535)
"""CUDA's largest grid, per dimension."""


class LaunchPlanError(ValueError):
    """A kernel, shape or grid that cannot be launched as asked: the message says why, naming the
    qdot-bench flag that gave it (a ``ValueError``, as ``compiler.compile``'s usage errors are)."""


# --- the kernel's signature ---------------------------------------------------------------------

@dataclass(frozen=True)
class Parameter:
    """One parameter of the kernel: a pointer (sized from its descriptors) or a scalar (from --shape)."""

    index: int
    name: str
    """The name it has in the source (``%m`` is ``m``), or ``argN`` where it has none."""
    type: Any
    divisibility: int = 1

    @property
    def is_pointer(self) -> bool:
        from dialects.qdot.types import PtrType

        return isinstance(self.type, PtrType)

    @property
    def is_float(self) -> bool:
        from xdsl.dialects.builtin import AnyFloat

        return isinstance(self.type, AnyFloat)

    @property
    def max_value(self) -> int:
        """The largest value an integer parameter takes: the largest non-negative value of its width read signed,
        as the runner passes it (an i1, whose signed range is -1 … 0, is a flag: 1)."""
        from xdsl.dialects.builtin import IntegerType

        bits = self.type.width.data if isinstance(self.type, IntegerType) else 64
        return 1 if bits == 1 else 2 ** (bits - 1) - 1


def kernel_parameters(func: Any) -> tuple[Parameter, ...]:
    """The kernel's parameters; one of a type qdot-bench cannot pass is a ``QdotError``. The types passed are
    those qdot-to-llvm lowers a kernel's parameters from (``!qdot.ptr``, index, i32, i64, f32; the launchers pass
    no narrower scalar). Refusing the others here, before any --shape is read, reports an i1 or f16 parameter as
    what it is, rather than as a value out of its range or only after the compile."""
    from xdsl.dialects.builtin import Float32Type, IndexType, IntegerAttr, IntegerType

    from compiler.diagnostics import QdotError
    from dialects.qdot.kernel_attrs import DIVISIBILITY_ATTR
    from dialects.qdot.types import PtrType

    params = []
    for arg in func.body.blocks[0].args:
        t = arg.type
        if not (isinstance(t, (PtrType, IndexType, Float32Type))
                or isinstance(t, IntegerType) and t.width.data in (32, 64)):
            raise QdotError(func, f"parameter %{arg.name_hint or arg.index} has type {t}; a kernel takes !qdot.ptr "
                                  "arrays and index, i32, i64 and f32 scalars")
        divisibility = 1
        if func.arg_attrs is not None:
            attr = func.arg_attrs.data[arg.index].data.get(DIVISIBILITY_ATTR)
            if isinstance(attr, IntegerAttr):
                divisibility = int(attr.value.data)
        params.append(Parameter(arg.index, arg.name_hint or f"arg{arg.index}", arg.type, divisibility))
    return tuple(params)


def find_kernel(module: Any, name: str | None) -> Any:
    from xdsl.dialects.func import FuncOp

    from dialects.qdot.kernel_attrs import KERNEL_ATTR, is_kernel

    kernels = [op for op in module.walk() if isinstance(op, FuncOp) and is_kernel(op)]
    names = ", ".join(k.sym_name.data for k in kernels)
    if not kernels:
        raise LaunchPlanError(f"the input has no kernel to run (a func.func with the {KERNEL_ATTR} attribute)")
    if name is None:
        if len(kernels) > 1:
            raise LaunchPlanError(f"the input has {len(kernels)} kernels; choose one with --kernel: {names}")
        return kernels[0]
    for kernel in kernels:
        if kernel.sym_name.data == name:
            return kernel
    raise LaunchPlanError(f"no kernel named '{name}'; the input's kernels are {names}")


def parse_shape(text: str, params: Sequence[Parameter]) -> dict[str, int | float]:
    """``m=8192,n=8192,k=8192`` → {"m": 8192, ...}: every scalar parameter, nothing else. An empty (or blank)
    text gives no values: the one shape of a kernel without scalar parameters (for any other, it does not give
    them)."""
    scalars = {p.name: p for p in params if not p.is_pointer}
    names = ", ".join(scalars) or "none"
    values: dict[str, int | float] = {}
    items = [part.strip() for part in text.split(",")] if text.strip() else []
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip().removeprefix("%"), value.strip()
        if not sep or not name or not value:
            raise LaunchPlanError(f"--shape '{text}': '{item}' is not name=value (the kernel's scalar "
                            f"parameters: {names})")
        if name not in scalars:
            what = "a pointer, sized from its descriptors" if any(p.name == name for p in params) else "not a parameter"
            raise LaunchPlanError(f"--shape '{text}': '{name}' is {what}; the kernel's scalar parameters are {names}")
        if name in values:
            raise LaunchPlanError(f"--shape '{text}': '{name}' is given twice")
        param = scalars[name]
        try:
            if not value.isascii():
                raise ValueError(value)
            values[name] = float(value) if param.is_float else _integer(value)
        except ValueError:
            kind = "a number" if param.is_float else "an integer"
            raise LaunchPlanError(f"--shape '{text}': {name} must be {kind}, got '{value}'") from None
        number = values[name]
        if not param.is_float and not 0 <= number <= param.max_value:
            raise LaunchPlanError(f"--shape '{text}': {name} must be from 0 to {param.max_value} (it is {param.type}), "
                            f"got {number}")
        if param.divisibility > 1 and number % param.divisibility:
            raise LaunchPlanError(f"--shape '{text}': {name} = {number} is not a multiple of {param.divisibility}, "
                            f"which the kernel assumes (qdot.divisibility of %{name})")
    missing = [name for name in scalars if name not in values]
    if missing:
        raise LaunchPlanError(f"--shape '{text}' does not give {', '.join(missing)}; the kernel's scalar "
                        f"parameters are {names}")
    return values


def _integer(text: str) -> int:
    """``8192``, ``0x2000`` or ``8_192``, in ASCII digits (``int`` also reads ``１２８``, which ``--grid``
    refuses)."""
    if not text.isascii():
        raise ValueError(text)
    try:
        return int(text)
    except ValueError:
        return int(text, 0)


# --- array sizes from the kernel's descriptors ---------------------------------------------------

_INDEX_OPS: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b,
    "arith.divsi": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
    "arith.ceildivui": lambda a, b: -(-a // b),
    "arith.ceildivsi": lambda a, b: -(-a // b),
    "arith.floordivsi": lambda a, b: a // b,
    "arith.remui": lambda a, b: a % b,
    "arith.remsi": lambda a, b: abs(a) % abs(b) * (1 if a >= 0 else -1),
    "arith.minui": min,
    "arith.minsi": min,
    "arith.maxui": max,
    "arith.maxsi": max,
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b,
    "arith.shrui": lambda a, b: a >> b,
    "arith.shrsi": lambda a, b: a >> b,
}
_DIVIDING = {"arith.divui", "arith.divsi", "arith.ceildivui", "arith.ceildivsi", "arith.floordivsi", "arith.remui",
             "arith.remsi"}
_UNSIGNED = {"arith.divui", "arith.ceildivui", "arith.remui", "arith.minui", "arith.maxui", "arith.shrui"}
_CASTS = {"arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi"}
_SIGN_EXTENDING = {"arith.index_cast", "arith.extsi"}
_CMPI = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
         4: lambda a, b: a > b, 5: lambda a, b: a >= b, 6: lambda a, b: a < b, 7: lambda a, b: a <= b,
         8: lambda a, b: a > b, 9: lambda a, b: a >= b}
_SHIFTS = {"arith.shli", "arith.shrui", "arith.shrsi"}
_NOT_MONOTONE: dict[str, Callable[[int, int, int, int], tuple[int, int]]] = {
    # sound bounds over non-negative operand ranges [a_lo, a_hi], [b_lo, b_hi] (b_lo > 0 for the remainders)
    "arith.remui": lambda a_lo, a_hi, b_lo, b_hi: (a_lo, a_hi) if a_hi < b_lo else (0, min(a_hi, b_hi - 1)),
    "arith.remsi": lambda a_lo, a_hi, b_lo, b_hi: (a_lo, a_hi) if a_hi < b_lo else (0, min(a_hi, b_hi - 1)),
    "arith.andi": lambda a_lo, a_hi, b_lo, b_hi: (0, min(a_hi, b_hi)),
    "arith.ori": lambda a_lo, a_hi, b_lo, b_hi: (max(a_lo, b_lo), (1 << max(a_hi, b_hi).bit_length()) - 1),
    "arith.xori": lambda a_lo, a_hi, b_lo, b_hi: (0, (1 << max(a_hi, b_hi).bit_length()) - 1),
}
KNOWN_INDEX_OPS = ("arith.constant", *_INDEX_OPS, *sorted(_CASTS), "arith.cmpi", "arith.select",
                   "qdot.num_programs", "qdot.program_id")


class Unreached(Exception):
    """Raised by one program's ``IndexEvaluator`` for a value inside an ``scf.for`` that program never enters: it
    computes no such value, and the bound over all programs (which gives the loop's lower bound) would exceed it."""


class IndexEvaluator:
    """The bounds [lo, hi] of index SSA values computed from the kernel's scalar parameters by arith ops,
    on Python ints: the shapes and strides a ``qdot.make_desc`` takes, at one --shape.

    ``grid`` (x, y, z) gives ``qdot.num_programs`` its value and ``qdot.program_id`` its range 0 … size − 1: a
    kernel may size a buffer by its launch (a stream-K workspace holds one partial tile per program) or give each
    program its own region of one (a one-launch decode's quantization scratch), and the grid is as much a launch
    parameter as the scalars. An ``scf.for`` variable ranges over its bounds' range (a per-tile counter inside a
    stream-K program's loop over its tiles). A value that depends on no program id or loop variable is exact
    (lo = hi); one that does is bounded over all programs and iterations, op by op: exactly for the ops monotone in
    each operand (add, sub, mul, the divisions, min, max, shifts, ordered compares: their extremes lie at the
    corners of their operands' ranges), soundly for the others (rem, and, or, xor); operands bounded apart lose
    their correlation, so the bound may exceed the true extent, never fall short (``plan_arrays`` therefore also
    bounds small grids program by program, ``_program_evaluators``). None where the grid is not
    known: such a size is then a ``QdotError`` at the op, as any other value it cannot evaluate."""

    def __init__(self, func: Any, scalars: Mapping[str, int | float], params: Sequence[Parameter],
                 grid: tuple[int, int, int] | None = None, program: tuple[int, int, int] | None = None):
        self.func = func
        self.entry = func.body.blocks[0]
        self.scalars = scalars
        self.params = params
        self.grid = grid
        self.program = program
        """One program's ids (x, y, z), which ``qdot.program_id`` then gives exactly: the values that program
        computes (the tests check each program's values against the bounds over all)."""
        self.memo: dict[Any, tuple[int, int]] = {}

    def bounds(self, ssa: Any, user: Any, what: str) -> tuple[int, int]:
        """``ssa``'s least and greatest value over the programs; ``user`` and ``what`` name the operand being
        sized, for diagnostics."""
        from xdsl.ir import BlockArgument

        from compiler.diagnostics import QdotError

        if ssa in self.memo:
            return self.memo[ssa]
        if isinstance(ssa, BlockArgument):
            if ssa.block is not self.entry:
                owner = ssa.block.parent_op()
                if owner is not None and owner.name == "scf.for" and ssa.index == 0:
                    result = self._induction_bounds(owner, user, what)
                    self.memo[ssa] = result
                    return result
                raise QdotError(user, f"{what} depends on an argument of the region of '{owner.name}' "
                                      "(a value carried by a loop?): qdot-bench sizes arrays from the kernel's "
                                      "scalar parameters, the grid and loop variables only")
            param = self.params[ssa.index]
            if param.is_pointer or param.is_float:
                raise QdotError(user, f"{what} depends on parameter %{param.name}, which is not an integer")
            value = int(self.scalars[param.name])
            result = (value, value)
        else:
            op = ssa.owner
            result = self._evaluate(op, user, what)
        self.memo[ssa] = result
        return result

    def _induction_bounds(self, loop: Any, user: Any, what: str) -> tuple[int, int]:
        """An ``scf.for`` variable runs from its lower bound to below its upper: [lb, ub − 1] over the bounds'
        ranges (a loop that may not run gives its lower bound, which no op inside it then sees)."""
        from compiler.diagnostics import QdotError

        lb_lo, _ = self.bounds(loop.lb, user, what)
        _, ub_hi = self.bounds(loop.ub, user, what)
        if self.program is not None and ub_hi <= lb_lo:
            raise Unreached(loop)
        step_lo, _ = self.bounds(loop.step, user, what)
        if step_lo <= 0:
            raise QdotError(loop, f"may step by {step_lo}{_at_shape(self.scalars)}, and {what} depends on "
                                  "its variable")
        return lb_lo, max(lb_lo, ub_hi - 1)

    def _evaluate(self, op: Any, user: Any, what: str) -> tuple[int, int]:
        from xdsl.dialects.builtin import IntegerAttr, IntegerType

        from compiler.diagnostics import QdotError

        name = op.name
        if name == "arith.constant":
            value = op.properties.get("value", op.attributes.get("value"))
            if isinstance(value, IntegerAttr):
                exact = int(value.value.data != 0) if value.type == IntegerType(1) else int(value.value.data)
                return exact, exact  # true may be stored as -1
            raise QdotError(op, f"is not an integer constant; {what} comes from it")
        if name in ("qdot.num_programs", "qdot.program_id"):
            axis = op.axis.index
            if self.grid is None:
                role = "size" if name == "qdot.num_programs" else "program index"
                raise QdotError(op, f"is the launch grid's {role} along {'xyz'[axis]}, and {what} depends on it "
                                    f"({name}); the grid is not known where the arrays are sized")
            size = self.grid[axis]
            if name == "qdot.num_programs":
                return size, size
            return (self.program[axis],) * 2 if self.program is not None else (0, size - 1)
        operands = [self.bounds(operand, user, what) for operand in op.operands]
        if name in _INDEX_OPS:
            (a_lo, a_hi), (b_lo, b_hi) = operands
            if name in _DIVIDING and b_lo <= 0 <= b_hi:
                if b_lo == b_hi:
                    raise QdotError(op, f"divides by zero{_at_shape(self.scalars)}, computing {what}")
                raise QdotError(op, f"may divide by zero (its divisor ranges over {b_lo} … {b_hi} across the "
                                    f"programs){_at_shape(self.scalars)}, computing {what}")
            if name in _UNSIGNED and (a_lo < 0 or b_lo < 0):
                raise QdotError(op, f"takes a negative operand ({_range_text(a_lo, a_hi)}, "
                                    f"{_range_text(b_lo, b_hi)}){_at_shape(self.scalars)}, computing {what}")
            if name in _SHIFTS:
                bits = op.results[0].type.width.data if isinstance(op.results[0].type, IntegerType) else 64
                if b_lo < 0 or b_hi >= bits:  # arith gives no defined value: no size can rest on it
                    raise QdotError(op, f"shifts by {_range_text(b_lo, b_hi)}, outside 0 … {bits - 1} (its "
                                        f"{bits}-bit type has no defined value there){_at_shape(self.scalars)}, "
                                        f"computing {what}")
            if a_lo == a_hi and b_lo == b_hi:
                exact = _INDEX_OPS[name](a_lo, b_lo)
                return exact, exact
            if name not in _NOT_MONOTONE:
                corners = [_INDEX_OPS[name](a, b) for a in (a_lo, a_hi) for b in (b_lo, b_hi)]
                return min(corners), max(corners)
            if a_lo < 0 or b_lo < 0:
                raise QdotError(op, f"takes an operand that may be negative ({_range_text(a_lo, a_hi)}, "
                                    f"{_range_text(b_lo, b_hi)}) and depends on the program id: qdot-bench bounds "
                                    f"'{name}' over the programs for non-negative operands only, computing {what}")
            return _NOT_MONOTONE[name](a_lo, a_hi, b_lo, b_hi)
        if name in _CASTS:
            lo, hi = operands[0]
            source = op.operands[0].type
            if name in _SIGN_EXTENDING and isinstance(source, IntegerType) and source.width.data == 1:
                return -hi, -lo  # an i1's true sign-extends to -1 (all ones), as the GPU computes it
            return lo, hi
        if name == "arith.cmpi":
            predicate = op.properties.get("predicate")
            assert isinstance(predicate, IntegerAttr)
            (a_lo, a_hi), (b_lo, b_hi) = operands
            compare = _CMPI[int(predicate.value.data)]
            if int(predicate.value.data) >= 6 and (a_lo < 0 or b_lo < 0):  # ult … uge: a negative index is huge
                raise QdotError(op, f"compares unsigned an operand that may be negative ({_range_text(a_lo, a_hi)}, "
                                    f"{_range_text(b_lo, b_hi)}){_at_shape(self.scalars)}, computing {what}")
            if int(predicate.value.data) in (0, 1):  # eq, ne: decided only where the ranges are one value or apart
                if a_lo == a_hi == b_lo == b_hi or a_hi < b_lo or b_hi < a_lo:
                    exact = int(compare(a_lo, b_lo))
                    return exact, exact
                return 0, 1
            corners = [int(compare(a, b)) for a in (a_lo, a_hi) for b in (b_lo, b_hi)]
            return min(corners), max(corners)
        if name == "arith.select":
            (c_lo, c_hi), if_true, if_false = operands
            if c_lo == c_hi:
                return if_true if c_lo else if_false
            return min(if_true[0], if_false[0]), max(if_true[1], if_false[1])
        known = ", ".join(name.removeprefix("arith.") for name in KNOWN_INDEX_OPS if name.startswith("arith."))
        raise QdotError(op, f"is not an op qdot-bench evaluates, and {what} comes from it; it sizes arrays "
                            f"from the scalar parameters and the grid through arith.{{{known}}}, "
                            "qdot.num_programs and qdot.program_id")


def _range_text(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo} … {hi}"


def _where(op: Any) -> str:
    """``line N`` of ``op`` (a diagnostic's own prefix names the file)."""
    from compiler.diagnostics import location_of

    parts = location_of(op).rsplit(":", 2)
    return f"line {parts[1]}" if len(parts) == 3 else "an unknown line"


def shape_text(scalars: Mapping[str, int | float]) -> str:
    """``m=256,n=128``; empty for a kernel without scalar parameters."""
    return ",".join(f"{name}={value}" for name, value in scalars.items())


def _at_shape(scalars: Mapping[str, int | float]) -> str:
    """`` at m=256,n=128`` for a message, or nothing where the kernel has no scalar parameters: its one shape has
    no values to name."""
    return f" at {shape_text(scalars)}" if scalars else ""


@dataclass(frozen=True)
class ArraySpec:
    """The array one pointer parameter gets: ``elements`` of ``element_bytes`` each."""

    param: str
    element_type: str
    element_bytes: int
    elements: int
    output: bool
    """A descriptor over it is stored to (``qdot.store``): zero-filled rather than random."""
    finite: bool = False
    """It holds f16 / bf16 / f32 / f64 values, filled with finite ones (``FLOAT_FILLS``: a quantizer
    converts its inputs to integers, and the emulator refuses a NaN there as the PTX ISA's poison)."""
    code_bits: int | None = None
    """A dot reads its bytes as codes narrower than a byte, one per byte (a ue4m3 scale: 7 bits,
    an e2m3 / e3m2 operand: 6), whose bits above the code the PTX ISA reserves: random bytes
    get them cleared (the emulator refuses them set, as a kernel must not depend on them).
    None: every bit belongs to a code."""

    @property
    def nbytes(self) -> int:
        return self.elements * self.element_bytes


def plan_arrays(func: Any, params: Sequence[Parameter], scalars: Mapping[str, int | float],
                grid: tuple[int, int, int] | None = None) -> tuple[ArraySpec, ...]:
    """One ``ArraySpec`` per pointer parameter, in parameter order, at the shape ``scalars`` and the
    launch ``grid`` (x, y, z; what ``qdot.num_programs`` gives, None where it is not known):
    the largest extent sum((shape_i - 1) * stride_i) + 1 over the pointer's ``qdot.make_desc`` ops, and
    for the counters of a ``qdot.last_arrival`` one past its largest index (a ``qdot.program_id``: the grid's
    size along its axis), zero-filled as counters must start.
    A malformed plan (an op it cannot evaluate, a pointer no descriptor reads, a size that needs
    the grid when none is given) is a ``QdotError``."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type
    from xdsl.ir import BlockArgument

    from compiler.diagnostics import QdotError
    from dialects.qdot.kernel import LastArrivalOp, MakeDescOp, StoreOp
    from dialects.qgpu.elements import storage_bytes

    code_bits = _code_bits(func)
    descriptors: dict[int, list[Any]] = {}
    arrivals: dict[int, list[Any]] = {}
    for op in func.walk():
        if isinstance(op, MakeDescOp) and isinstance(op.ptr, BlockArgument) and op.ptr.block is func.body.blocks[0]:
            descriptors.setdefault(op.ptr.index, []).append(op)
        if isinstance(op, LastArrivalOp) and isinstance(op.counters, BlockArgument) \
                and op.counters.block is func.body.blocks[0]:
            arrivals.setdefault(op.counters.index, []).append(op)
    evaluator = IndexEvaluator(func, scalars, params, grid)
    programs = _program_evaluators(func, scalars, params, grid)
    specs = []
    for param in params:
        if not param.is_pointer:
            continue
        pointee = param.type.pointee
        element_bytes = storage_bytes(pointee)
        if element_bytes is None:
            raise QdotError(func, f"pointer parameter %{param.name} holds {pointee}, whose size in memory "
                                  "qdot-bench does not know")
        if param.index not in descriptors and param.index not in arrivals:
            raise QdotError(func, f"pointer parameter %{param.name} has no qdot.make_desc, so qdot-bench cannot "
                                  "size its array (it sizes each pointer's array from its descriptors' shape "
                                  "and strides)")
        extent = max((_counter_index_bound(evaluator, programs, op) + 1 for op in arrivals.get(param.index, [])),
                     default=0)
        output = param.index in arrivals
        for desc in descriptors.get(param.index, []):
            whose = f"of the descriptor over %{param.name} at {_where(desc)}"
            dims = [evaluator.bounds(v, desc, f"shape operand {i} {whose}") for i, v in enumerate(desc.shape)]
            strides = [evaluator.bounds(v, desc, f"stride operand {i} {whose}") for i, v in enumerate(desc.strides)]
            for kind, values in (("shape", dims), ("stride", strides)):
                if any(lo < 0 for lo, _ in values):
                    shown = ", ".join(_range_text(lo, hi) for lo, hi in values)
                    raise QdotError(desc, f"has a negative {kind} [{shown}]{_at_shape(scalars)}")
            for each in programs or [evaluator]:  # the greatest extent any program's descriptor reaches
                try:  # bounds are memoized: the evaluator over all programs answers from what it just checked
                    dims = [each.bounds(v, desc, "") for v in desc.shape]
                    strides = [each.bounds(v, desc, "") for v in desc.strides]
                except Unreached:
                    continue
                if all(hi > 0 for _, hi in dims):
                    extent = max(extent, sum((d - 1) * s for (_, d), (_, s) in zip(dims, strides, strict=True)) + 1)
            output = output or any(isinstance(use.operation, StoreOp) for use in desc.result.uses)
        finite = isinstance(pointee, (Float16Type, BFloat16Type, Float32Type, Float64Type))
        specs.append(ArraySpec(param.name, str(pointee), element_bytes, extent, output, finite,
                               code_bits.get(param.index)))
    return tuple(specs)


EXACT_PROGRAMS = 4096
"""Grids of at most this many programs are sized program by program (``_program_evaluators``)."""


def _program_evaluators(func: Any, scalars: Mapping[str, int | float], params: Sequence[Parameter],
                        grid: tuple[int, int, int] | None) -> list[IndexEvaluator]:
    """One evaluator per program of ``grid`` where it has at most EXACT_PROGRAMS (else none): bounded over all
    programs at once, a value computed from two that both depend on the program loses their correlation — a
    stream-K program's tile, its first tile plus a loop variable below its number of tiles, reaches up to twice
    the tiles, and a caller's counters sized by ``fixup_counters_shape`` were refused. Within one program only
    the loop variables range, so the greatest value over the programs' own bounds is the tighter, still sound,
    size. Called after the evaluator over all programs, whose diagnostics come first: a program's ranges lie
    inside it, so they raise nothing it did not."""
    if grid is None or grid[0] * grid[1] * grid[2] > EXACT_PROGRAMS:
        return []
    return [IndexEvaluator(func, scalars, params, grid, (x, y, z))
            for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]


def _counter_index_bound(evaluator: IndexEvaluator, programs: Sequence[IndexEvaluator], op: Any) -> int:
    """The largest counter index a ``qdot.last_arrival`` reaches over the programs (a program id's: the grid's size
    along its axis less one), program by program where ``programs`` has them."""
    from compiler.diagnostics import QdotError
    from dialects.qdot.kernel import ProgramIdOp

    index = op.index
    if isinstance(index.owner, ProgramIdOp) and evaluator.grid is None:
        axis = index.owner.axis.index
        raise QdotError(op, f"counts programs by qdot.program_id {'xyz'[axis]}, so its counters' number is the "
                            "launch grid's size along it; the grid is not known where the arrays are sized")
    what = "the counter index of qdot.last_arrival"
    evaluator.bounds(index, op, what)  # its diagnostics first
    reached = -1  # no program reaches the op: no counter is needed
    for each in programs or [evaluator]:
        try:
            reached = max(reached, each.bounds(index, op, what)[1])
        except Unreached:
            pass
    return reached


def _code_bits(func: Any) -> dict[int, int]:
    """Per pointer parameter (by index) whose bytes a ``qdot.dot_scaled`` reads as codes narrower
    than their byte, the code's width: the dot's operand format, or its scale format (the scale
    tensor's element type, ``scale_kind_of``), from the formats table (``bits`` below a
    ``container_bits`` of 8)."""
    from compiler.format_table import FORMATS
    from dialects.qdot.formats import scale_kind_of
    from dialects.qdot.ops import DotScaledOp

    widths: dict[int, int] = {}
    for op in func.walk():
        if not isinstance(op, DotScaledOp):
            continue
        read = [(op.a, op.lhs.value), (op.b, op.rhs.value)]
        for scale in (op.a_scale, op.b_scale):
            kind = scale_kind_of(scale.type.get_element_type()) if scale is not None else None
            if kind is not None:
                read.append((scale, kind.value))
        for value, name in read:
            info = FORMATS.get(name)
            if info is None or info.container_bits != 8 or info.bits >= 8:
                continue
            for index in _pointers_loaded_into(value, func.body.blocks[0]):
                widths[index] = min(info.bits, widths.get(index, 8))
    return widths


def _pointers_loaded_into(value: Any, entry: Any) -> set[int]:
    """The indices of the pointer parameters whose bytes reach ``value`` unchanged: through
    ``qdot.load`` of a ``qdot.make_desc``, ``qdot.trans`` and ``scf.for`` iter_args (a
    prefetched tile). A value computed from loaded bytes (a dequantization) has none."""
    from xdsl.dialects.scf import ForOp
    from xdsl.ir import BlockArgument

    from dialects.qdot.kernel import LoadOp, MakeDescOp, TransOp

    def carried(loop: Any, index: int) -> list[Any]:
        return [loop.iter_args[index], loop.body.blocks[0].last_op.operands[index]]

    found: set[int] = set()
    seen: set[Any] = set()
    pending = [value]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        if isinstance(current, BlockArgument):
            loop = current.block.parent_op()
            if current.block is entry:
                found.add(current.index)
            elif isinstance(loop, ForOp) and current.index >= 1:  # argument 0 is the induction variable
                pending.extend(carried(loop, current.index - 1))
            continue
        op = current.owner
        if isinstance(op, LoadOp):
            pending.append(op.desc)
        elif isinstance(op, MakeDescOp):
            pending.append(op.ptr)
        elif isinstance(op, TransOp):
            pending.append(op.src)
        elif isinstance(op, ForOp):
            pending.extend(carried(op, current.index))
    return found


# --- one run -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """One --shape: its scalar values, grid, arrays and FLOP count."""

    scalars: dict[str, int | float]
    grid: tuple[int, int, int]
    arrays: tuple[ArraySpec, ...]
    flops: int | None

    def shape_text(self) -> str:
        return shape_text(self.scalars)

    def at_shape(self) -> str:
        """`` at m=…,n=…``, or nothing for a kernel without scalar parameters (``_at_shape``)."""
        return _at_shape(self.scalars)

    def where(self) -> str:
        """The shape and the grid, ``m=256,n=128 grid=(2,1,1)`` (the grid alone for a kernel without scalar
        parameters), as the tool's lines and messages name a run."""
        return " ".join(part for part in (self.shape_text(), f"grid={self.grid_text()}") if part)

    def grid_text(self) -> str:
        return "(" + ",".join(str(d) for d in self.grid) + ")"

    @property
    def ctas(self) -> int:
        """The CTAs of the grid, x · y · z."""
        return self.grid[0] * self.grid[1] * self.grid[2]

    def arguments(self, params: Sequence[Parameter], arrays: Sequence[Any]) -> list[Any]:
        """The launch's arguments in parameter order: ``arrays`` (one per pointer) and the scalars."""
        pointer_arrays = iter(arrays)
        return [next(pointer_arrays) if p.is_pointer else self.scalars[p.name] for p in params]

    def host_arrays(self, seed: int, output_fill: int | None, floats: str = "uniform") -> list[Any]:
        """Random inputs from a generator seeded with ``seed`` — float arrays as ``floats`` says
        (``FLOAT_FILLS``), every other array random bytes, codes narrower than their byte kept to their
        width (``ArraySpec.code_bits``) — and ``output_fill`` bytes for the outputs (None: no host array
        for them): flat uint8 numpy arrays, one per pointer parameter."""
        import numpy as np

        if floats not in FLOAT_FILLS:
            raise ValueError(f"floats must be one of {', '.join(FLOAT_FILLS)}, got {floats!r}")

        needed = sum(max(1, spec.nbytes) for spec in self.arrays if not spec.output or output_fill is not None)
        available = available_host_bytes()
        if available is not None and needed > available // 2:
            raise LaunchPlanError(f"the arrays{self.at_shape()} take {needed} bytes in all, more than half of "
                                  f"this machine's available memory ({available} bytes): give a smaller shape")
        rng = np.random.default_rng(seed)
        arrays = []
        for spec in self.arrays:
            size = max(1, spec.nbytes)  # a real allocation even for an empty tensor
            try:
                if spec.output:
                    arrays.append(None if output_fill is None else np.full(size, output_fill, dtype=np.uint8))
                    continue
                if spec.finite and floats == "uniform":
                    data = _uniform_floats(rng, spec, size)
                else:
                    data = np.frombuffer(rng.bytes(size), dtype=np.uint8).copy()
            except (MemoryError, OverflowError, ValueError):
                raise LaunchPlanError(f"cannot allocate the {size} bytes of %{spec.param}{self.at_shape()} "
                                      "in host memory") from None
            if spec.finite and floats == "bytes":  # the top exponent bit sits below the sign, in the last byte
                data[spec.element_bytes - 1:spec.nbytes:spec.element_bytes] &= 0xBF
            if spec.code_bits is not None:  # one code per byte, its reserved bits zero
                data &= (1 << spec.code_bits) - 1
            arrays.append(data)
        return arrays


FLOAT_FILLS = ("uniform", "bytes")
"""How ``Run.host_arrays`` fills f16 / bf16 / f32 / f64 inputs. ``uniform``: values drawn uniformly from
[-1, 1], as benchmarks' random activations are — exponents cluster near 0. ``bytes``: random bytes with the
exponent's top bit cleared (finite, |x| < 2), every exponent below 2^0 equally likely: most values are tiny, a
worst case for an instruction whose time depends on its operands: on an H100 the quantize kernel ran 1.5–2.1 ×
slower on such bytes than on uniform values, a decode GEMM that quantizes 1.2 × (run 283 of ``bench/RESULTS.md``),
presumably its ``div.rn.f32`` (x / d) taking the full-range subroutine that zero numerators took in runs 201–203
(not measured apart)."""

_UNIFORM_CHUNK = 1 << 22
"""Values drawn per step (float64 before the conversion): bounds the transient memory to 32 MiB."""


def _uniform_floats(rng: Any, spec: ArraySpec, size: int) -> Any:
    """``spec.elements`` values drawn uniformly from [-1, 1) and rounded to ``spec.element_type`` (f16 may round
    one up to 1), as ``size`` bytes (one zero byte for an empty array). bf16, which numpy lacks, is f32's top half
    (truncated toward zero)."""
    import numpy as np

    data = np.zeros(size, dtype=np.uint8)
    store = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.float32}[spec.element_type]
    per = spec.element_bytes
    for start in range(0, spec.elements, _UNIFORM_CHUNK):
        count = min(_UNIFORM_CHUNK, spec.elements - start)
        values = rng.uniform(-1.0, 1.0, count).astype(store)
        raw = (values.view(np.uint32) >> 16).astype(np.uint16) if spec.element_type == "bf16" else values
        data[start * per:(start + count) * per] = raw.view(np.uint8)
    return data


def available_host_bytes() -> int | None:
    """The memory this machine can still give (Linux's MemAvailable; None where it cannot say). Host arrays are
    held to half of it: an allocation past physical memory does not fail where it is made — the kernel overcommits
    and kills the process once the random bytes touch the pages — and the tool may hold a second set (--emulate's
    second launch) or a device copy's staging beside the first."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def plan_run(shape: str, func: Any, params: Sequence[Parameter], grid: Expressions,
             flops: Expressions | None, *, default_flops: bool = False) -> Run:
    """The run at the --shape text ``shape``: its grid and FLOP count evaluated there, its arrays planned.
    A FLOP count must be positive: a TFLOP/s of 0, or negative, measures nothing, so a --flops that gives one
    is refused at the shape where it does. ``default_flops`` marks ``flops`` as the tool's own default
    (2*m*n*k), which is 0 at a shape with an empty dimension: that run then has no FLOP count (no TFLOP/s)
    rather than a refusal of a shape the user gave."""
    scalars = parse_shape(shape, params)
    env = {name: int(value) for name, value in scalars.items() if isinstance(value, int)}
    try:
        dims = grid.evaluate(env)
        flop_count = flops.evaluate(env)[0] if flops is not None else None
    except ExpressionError as err:  # a kernel without scalar parameters: constants, the same at its one shape
        raise LaunchPlanError(f"{err} [at --shape {shape}]" if scalars else str(err)) from None
    for axis, (dim, limit) in enumerate(zip(dims, MAX_GRID)):
        if not 1 <= dim <= limit:
            raise LaunchPlanError(f"--grid '{grid.text}' gives {'xyz'[axis]} = {dim}{_at_shape(scalars)}; "
                                  f"a grid dimension must be from 1 to {limit}")
    if flops is not None and flop_count is not None and flop_count <= 0:
        if not default_flops:
            raise LaunchPlanError(f"--flops '{flops.text}' gives {flop_count}{_at_shape(scalars)}; the operations "
                                  "of a launch must be a positive count (TFLOP/s divides it by the time)")
        flop_count = None
    grid3 = (*dims, *(1,) * (3 - len(dims)))  # the arrays may be sized by it (qdot.num_programs)
    return Run(scalars, grid3, plan_arrays(func, params, scalars, grid3), flop_count)
