"""A launch's arguments held to the kernel's launch plan before it runs: ``compiler.run``, ``launch`` and
``emulate`` call ``undersized_arrays``, which refuses, one sentence per argument, an array smaller than the kernel's
descriptors reach (``compiler.launch_plan.plan_arrays`` at the scalars and grid given), an array whose items the
kernel would read as another type, a read-only output and a size that is no whole number in its type's range.

A launch with such an argument would read or write past an array, or compute garbage, with no error; these checks
are the net under it, not a second set of launch rules: where the plan cannot be derived they say nothing and the
runner's own refusals apply. xDSL and numpy are imported inside the functions, as in ``launch_plan``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compiler.launch_plan import LaunchPlanError, Parameter, kernel_parameters, plan_arrays, shape_text


def checked_grid(grid: Any, name: str = "grid=") -> tuple[int, int, int]:
    """``grid`` (the number of programs, or one to three dimensions x[, y[, z]]) as (x, y, z) Python ints, each
    dimension held to CUDA's largest grid (``launch_plan.MAX_GRID``); a ``TypeError`` or ``ValueError`` that says
    what ``name`` takes otherwise. The one reading of a launch grid: ``run``, ``launch`` and ``emulate`` refuse with
    it, ``launch_grid`` sizes with it, and the template helpers that size buffers from a grid
    (``templates.check_grid``) prefix its message with their own name."""
    import numbers

    from compiler.launch_plan import MAX_GRID

    if type(grid) is int and 1 <= grid <= MAX_GRID[0]:
        return grid, 1, 1
    if type(grid) is tuple and len(grid) == 3 and all(type(d) is int and 1 <= d <= limit  # the common case
                                                      for d, limit in zip(grid, MAX_GRID, strict=True)):
        return grid
    what = f"{name} takes the number of programs or (x[, y[, z]]): one to three positive integers"
    if isinstance(grid, (str, bytes, bool)):
        raise TypeError(f"{what}, got {grid!r}")
    dims = integer_list([grid] if isinstance(grid, numbers.Integral) else grid, what, grid)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what}, got {len(dims)} dimensions: {grid!r}")
    dims += [1] * (3 - len(dims))
    for axis, (dim, limit) in enumerate(zip(dims, MAX_GRID, strict=True)):
        if not 1 <= dim <= limit:
            raise ValueError(f"{what}, got {grid!r}: {'xyz'[axis]} = {dim} is not from 1 to {limit}")
    return dims[0], dims[1], dims[2]


def launch_grid(grid: Any) -> tuple[int, int, int] | None:
    """``grid`` as ``checked_grid`` reads it, or None where it refuses it (or no grid is given): sizing is no place
    to restate the runner's refusal, which comes at the launch."""
    try:
        return checked_grid(grid)
    except (TypeError, ValueError):
        return None


def integer_list(values: Any, what: str, given: Any) -> list[int]:
    """``values`` (any iterable) as Python ints, or ``TypeError`` "``what``, got ``given``" for anything that is
    not an iterable of integers (a bool is no integer here)."""
    import numbers

    try:
        items = list(values)
    except TypeError:
        raise TypeError(f"{what}, got {given!r}") from None
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{what}, got {given!r}")
    return [int(v) for v in items]


def undersized_arrays(func: Any, args: Sequence[Any], grid: Any = None) -> list[str]:
    """A sentence per argument in ``args`` (the kernel's arguments in order: arrays with
    ``nbytes``, then scalars) that the kernel cannot be launched with: an array whose items are
    neither raw uint8 bytes (how packed formats and ggml blocks travel) nor of its pointee's size
    and kind (``_item_size_problem``); a read-only array for a pointer the kernel stores to; an
    integer parameter given a fraction, a negative value or one past its type; an array smaller
    than the kernel's descriptors reach at the scalars and ``grid`` given (the launch grid, as
    ``launch_grid`` reads it: a size may count programs). Empty when
    every argument fits, and where the kernel's signature or sizes cannot be derived (a kernel
    without descriptors over its pointers, a size that needs a grid not given, an argument count
    or a non-number the runner will refuse): the check is a safety net before a launch, which
    would otherwise read or write past an array or compute garbage, not a second set of launch
    rules."""
    import numbers

    from compiler.diagnostics import QdotError
    from dialects.qgpu.elements import storage_bytes

    try:
        params = kernel_parameters(func)
    except QdotError:
        return []
    if len(args) != len(params):
        return []
    problems = []
    mistyped: set[str] = set()
    scalars: dict[str, int | float] = {}
    sizable = True
    stored = _stored_pointers(func)
    for param, arg in zip(params, args, strict=True):
        if param.is_pointer:
            problem = _item_size_problem(param, arg, storage_bytes(param.type.pointee))
            if problem is not None:
                problems.append(problem)
                mistyped.add(param.name)
            if param.index in stored and getattr(getattr(arg, "flags", None), "writeable", True) is False:
                problems.append(f"argument #{param.index} (%{param.name}) is a read-only array, but the kernel "
                                f"stores to %{param.name}: pass a writeable one (np.array(x) copies it)")
        elif not isinstance(arg, numbers.Real):
            sizable = False  # the runner refuses it, naming what it takes
        elif param.is_float:
            scalars[param.name] = float(arg)
        elif not _whole(arg) or not 0 <= arg <= param.max_value:
            # an index parameter is a size (the runner passes it as is, truncating a fraction), and
            # qdot-bench's --shape holds every integer parameter to the same range
            problems.append(f"argument #{param.index} (%{param.name}) is {arg}, but %{param.name} is a size "
                            f"({param.type}): pass a whole number from 0 to {param.max_value}")
            sizable = False
        else:
            scalars[param.name] = int(arg)
    if not sizable:
        return problems
    grid3 = launch_grid(grid)
    try:
        specs = plan_arrays(func, params, scalars, grid3)
    except (QdotError, LaunchPlanError, ArithmeticError):
        return problems
    at = [shape_text(scalars)] if scalars else []
    if grid3 is not None and _counts_programs(func):  # the grid may be what the sizes follow
        at.append("grid ({},{},{})".format(*grid3))
    arrays = {param.name: (param.index, arg) for param, arg in zip(params, args, strict=True) if param.is_pointer}
    for spec in specs:
        index, arg = arrays[spec.param]
        held = getattr(arg, "nbytes", None)
        if spec.param not in mistyped and isinstance(held, int) and held < spec.nbytes:
            problems.append(f"argument #{index} (%{spec.param}) holds {held} bytes, but the kernel's descriptors "
                            f"over it reach {spec.nbytes} ({spec.elements} x {spec.element_type}) at "
                            f"{', '.join(at) or 'any shape'}")
    return problems


def _stored_pointers(func: Any) -> set[int]:
    """The indices of the pointer parameters the kernel writes: a ``qdot.store`` through a descriptor over
    one, or the counters of a ``qdot.last_arrival`` (``ArraySpec.output``'s rule, without sizing anything:
    a read-only array there is refused before a launch, not at the first store after a whole CTA ran)."""
    from xdsl.ir import BlockArgument

    from dialects.qdot.kernel import LastArrivalOp, MakeDescOp, StoreOp

    entry = func.body.blocks[0]
    stored: set[int] = set()
    for op in func.walk():
        if isinstance(op, MakeDescOp) and isinstance(op.ptr, BlockArgument) and op.ptr.block is entry \
                and any(isinstance(use.operation, StoreOp) for use in op.result.uses):
            stored.add(op.ptr.index)
        if isinstance(op, LastArrivalOp) and isinstance(op.counters, BlockArgument) and op.counters.block is entry:
            stored.add(op.counters.index)
    return stored


def _counts_programs(func: Any) -> bool:
    """``func`` reads the grid's size (``qdot.num_programs``), which its sizes may then depend on."""
    from dialects.qdot.kernel import NumProgramsOp

    return any(isinstance(op, NumProgramsOp) for op in func.walk())


def _whole(number: Any) -> bool:
    """``number`` (a ``numbers.Real``) has no fraction: 128 and 128.0, not 128.7, inf or NaN."""
    import math
    import numbers

    return isinstance(number, numbers.Integral) or (math.isfinite(number) and float(number).is_integer())


_INTEGER_WIDTHS = (8, 16, 32, 64)


def _accepted_dtypes(pointee: Any, element_bytes: int) -> tuple[tuple[str, ...], str] | None:
    """The dtype names an array for a pointer to ``pointee`` may have, and the advice naming them;
    None for a pointee no rule covers (its items are then not checked). Raw ``uint8`` bytes, how
    qdot-bench passes every array, fit any pointee. A float takes its numpy dtype — f16 and bf16 also
    ``uint16`` codes (numpy has no bf16; the GEMM harnesses hold both as codes), bf16 ``ml_dtypes.bfloat16``
    too — and never an integer of its width, whose bits the kernel would read as floats; an integer
    takes a signed or unsigned integer of its width; an f8 / f6 / f4 code or E8M0 scale its
    ``ml_dtypes`` type; a ggml block a structured dtype of one block (``uint8`` is the usual form)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType

    from dialects.qdot.types import BlockType

    if isinstance(pointee, IntegerType):
        bits = 8 * element_bytes
        if bits not in _INTEGER_WIDTHS:
            return None
        extra = ("bool",) if pointee.width.data == 1 else ()
        return (f"int{bits}", f"uint{bits}", *extra, "uint8"), f"int{bits} or uint{bits}, or raw uint8 bytes"
    if isinstance(pointee, Float32Type):
        return ("float32", "uint8"), "float32 or raw uint8 bytes"
    if isinstance(pointee, Float64Type):
        return ("float64", "uint8"), "float64 or raw uint8 bytes"
    if isinstance(pointee, Float16Type):
        return ("float16", "uint16", "uint8"), "float16 (or uint16 codes) or raw uint8 bytes"
    if isinstance(pointee, BFloat16Type):
        return ("bfloat16", "uint16", "uint8"), "uint16 codes or ml_dtypes.bfloat16, or raw uint8 bytes"
    if isinstance(pointee, BlockType):
        return ("uint8",), f"uint8 bytes ({element_bytes} per {pointee.format.data} block)"
    import re

    match = re.fullmatch(r"f(\d+)(E\d+M\d+\w*)", str(pointee))
    if match is not None and element_bytes == 1:  # an f8 / f6 / f4 code, an E8M0 scale: one per byte
        ml_name = f"float{match[1]}_{match[2].lower()}"
        return ("uint8", ml_name), f"uint8 codes (or ml_dtypes.{ml_name})"
    return None


def _item_size_problem(param: Parameter, array: Any, element_bytes: int | None) -> str | None:
    """The sentence refusing ``array`` for pointer ``param`` when its dtype is not one the pointee
    takes (``_accepted_dtypes``), else None: an int64 array for an i32 output (the kernel would write
    half of it, in a layout no int64 reader expects), but also an int32 or uint32 array for an f32
    output, or a float32 one for an i32 output — the right item size, the wrong kind: the kernel's
    bits would be read as another type's, garbage with no error."""
    dtype = getattr(array, "dtype", None)
    itemsize = getattr(dtype, "itemsize", None)
    if not isinstance(itemsize, int) or element_bytes is None:
        return None
    if not getattr(dtype, "isnative", True):  # '>i4' is named int32 too, but its bytes are not the kernel's
        return (f"argument #{param.index} (%{param.name}) holds {dtype.str} items, in non-native byte order: the "
                f"kernel would take their bytes for {dtype.newbyteorder('=').str} ones; pass "
                f"array.astype(array.dtype.newbyteorder('='))")
    pointee = param.type.pointee
    accepted = _accepted_dtypes(pointee, element_bytes)
    if accepted is None:
        return None if itemsize in (1, element_bytes) else _refusal(param, dtype, element_bytes, "raw uint8 bytes")
    names, advice = accepted
    if dtype.name in names:
        return None
    from dialects.qdot.types import BlockType

    if isinstance(pointee, BlockType) and dtype.kind == "V" and itemsize == element_bytes:
        return None  # a structured dtype of one block
    return _refusal(param, dtype, element_bytes, advice)


def _refusal(param: Parameter, dtype: Any, element_bytes: int, advice: str) -> str:
    return (f"argument #{param.index} (%{param.name}) holds {dtype} ({dtype.itemsize}-byte items), the kernel's "
            f"{param.name} points to {param.type.pointee} ({element_bytes} byte{'s' if element_bytes != 1 else ''}): "
            f"pass {advice}")
