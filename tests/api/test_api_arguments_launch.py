"""``compiler.emulate`` / ``run`` / ``launch`` refuse a malformed grid or argument up front with a
``TypeError`` / ``ValueError`` naming it.

They used to reach the emulator, which raised a raw Python error from deep inside (``grid=(1, 1, 1.5)``:
"'float' object cannot be interpreted as an integer"; ``ctas=0``: "'int' object is not iterable") or
an ``EmulationError`` — the class for what a kernel does wrong, which ``except ValueError`` does not
catch — for what is the caller's mistake. ``EmulationError`` keeps its place (a kernel's race or
out-of-range access is no argument error); these mistakes are simply found before it runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import compiler

ROOT = Path(__file__).resolve().parents[2]
M = N = K = 128
KERNEL = "gemm_i8_i8_noscale_128x128x64_w8"


@pytest.fixture(scope="module")
def int8_gemm() -> compiler.CompiledKernel:
    return compiler.compile(ROOT / "examples" / "int8_gemm.mlir", arch="sm_90")


def _args() -> list[object]:
    return [np.zeros((M, K), np.int8), np.zeros((N, K), np.int8), np.zeros((M, N), np.int32), M, N, K]


@pytest.mark.parametrize(("grid", "error", "tail"), [
    ((1, 1, 1.5), TypeError, r"got \(1, 1, 1.5\)$"),
    ("1", TypeError, r"got '1'$"),
    (1.0, TypeError, r"got 1.0$"),
    (True, TypeError, r"got True$"),
    ((1, 1, 1, 1), ValueError, r"got 4 dimensions: \(1, 1, 1, 1\)$"),
    ((), ValueError, r"got 0 dimensions: \(\)$"),
    ((1, 0), ValueError, r"got \(1, 0\): y = 0 is not from 1 to 65535$"),
    (-2, ValueError, r"got -2: x = -2 is not from 1 to 2147483647$"),
])
def test_a_malformed_grid_is_named(int8_gemm, grid: object, error: type, tail: str) -> None:  # noqa: ANN001
    message = r"^grid= takes the number of programs or \(x\[, y\[, z\]\]\): one to three positive integers, " + tail
    with pytest.raises(error, match=message):
        compiler.emulate(int8_gemm, *_args(), grid=grid)
    with pytest.raises(error, match=message):  # before a GPU is needed
        compiler.run(int8_gemm, *_args(), grid=grid)


def test_numpy_integers_make_a_grid(int8_gemm) -> None:  # noqa: ANN001
    assert compiler.emulate(int8_gemm, *_args(), grid=(np.int64(1), np.int32(1))).ctas == 1


@pytest.mark.parametrize(("ctas", "error", "message"), [
    (0, TypeError, r", got 0 \(one CTA: ctas=\[0\]\)$"),
    ([0.0], TypeError, r", got \[0.0\]$"),
    ([True], TypeError, r", got \[True\]$"),
    ([0, 1], ValueError, r": CTA 1 is outside the grid of 1 \(grid \(1, 1, 1\)\)$"),
    ([-1], ValueError, r": CTA -1 is outside the grid of 1"),
])
def test_ctas_must_name_ctas_of_the_grid(int8_gemm, ctas: object, error: type, message: str) -> None:  # noqa: ANN001
    with pytest.raises(error, match=r"^ctas= takes CTA ids \(integers from 0 to the grid's size - 1\)" + message):
        compiler.emulate(int8_gemm, *_args(), grid=1, ctas=ctas)


def test_a_wrong_argument_count_names_the_parameters(int8_gemm) -> None:  # noqa: ANN001
    message = (rf"^{KERNEL} takes 6 arguments \(%a_ptr: ptr, %b_ptr: ptr, %c_ptr: ptr, %m: index, %n: index, "
               r"%k: index\), got 5$")
    with pytest.raises(TypeError, match=message):
        compiler.emulate(int8_gemm, *_args()[:5], grid=1)
    with pytest.raises(TypeError, match=message):
        compiler.run(int8_gemm, *_args()[:5], grid=1)
    with pytest.raises(TypeError, match=message):
        int8_gemm.launch(*_args()[:5], grid=1)


def test_a_list_for_an_array_is_named(int8_gemm) -> None:  # noqa: ANN001
    args = _args()
    args[0] = args[0].tolist()
    with pytest.raises(TypeError, match=rf"^{KERNEL}: argument #0 \(%a_ptr\) is a pointer: pass a numpy array, "
                                        r"got list$"):
        compiler.emulate(int8_gemm, *args, grid=1)
    with pytest.raises(TypeError, match=r"argument #0 \(%a_ptr\) is a pointer: pass a numpy or CuPy array, got list"):
        compiler.run(int8_gemm, *args, grid=1)


@pytest.mark.parametrize("view", ["fortran", "transposed", "strided"])
def test_an_array_not_in_c_order_is_refused(int8_gemm, view: str) -> None:  # noqa: ANN001
    """The kernel reads one row-major block from the array's start; ``run`` would copy the results
    back into a temporary."""
    args = _args()
    c = args[2]
    views = {"fortran": np.asfortranarray(c), "transposed": c.T, "strided": np.zeros((M, 2 * N), np.int32)[:, ::2]}
    args[2] = views[view]
    message = (rf"^{KERNEL}: argument #2 \(%c_ptr\) is not C-contiguous \(a transposed or strided view, or Fortran "
               r"order\), and the kernel reads it as one row-major block from its start: pass np.ascontiguousarray")
    with pytest.raises(ValueError, match=message):
        compiler.emulate(int8_gemm, *args, grid=1)
    with pytest.raises(ValueError, match=message):
        compiler.run(int8_gemm, *args, grid=1)


@pytest.mark.parametrize("scalar", ["128", None, np.array(128)])
def test_a_scalar_must_be_a_number(int8_gemm, scalar: object) -> None:  # noqa: ANN001
    args = _args()
    args[5] = scalar
    with pytest.raises(TypeError, match=rf"^{KERNEL}: argument #5 \(%k\) is a scalar \(index\): pass a number, "
                                        rf"got {type(scalar).__name__}$"):
        compiler.emulate(int8_gemm, *args, grid=1)
    with pytest.raises(TypeError, match=r"argument #5 \(%k\) is a scalar \(index\)"):
        int8_gemm.launch(*args, grid=1)


def test_argument_mistakes_are_caught_as_value_or_type_errors(int8_gemm) -> None:  # noqa: ANN001
    """What a caller's ``except (TypeError, ValueError)`` around a launch is for."""
    a, b, c, *_ = _args()
    for call, error, message in (
        (lambda: compiler.emulate(int8_gemm, a, b, grid=1), TypeError, r"takes 6 arguments .*, got 2$"),
        (lambda: compiler.emulate(int8_gemm, a, b, c, M, N, "K", grid=1), TypeError,
         r"argument #5 \(%k\) is a scalar \(index\): pass a number, got str$"),
        (lambda: compiler.emulate(int8_gemm, np.asfortranarray(a), b, c, M, N, K, grid=1), ValueError,
         r"argument #0 \(%a_ptr\) is not C-contiguous"),
        (lambda: compiler.emulate(int8_gemm, a, b, c, M, N, K, grid=2, ctas=[2]), ValueError,
         r"CTA 2 is outside the grid of 2"),
    ):  # each the class and the words of its own mistake (a TypeError from a slip elsewhere would do for both)
        with pytest.raises((TypeError, ValueError)) as raised:
            call()
        assert raised.type is error and re.search(message, str(raised.value)), repr(raised.value)


@pytest.mark.parametrize("kernel", ["examples/int8_gemm.mlir", None], ids=["path", "none"])
def test_run_names_what_is_not_a_compiled_kernel(kernel: object) -> None:
    """emulate said so; run raised AttributeError ('str' object has no attribute '_info'), before a GPU is needed."""
    with pytest.raises(TypeError, match="^run takes the CompiledKernel that compiler.compile returns, got "):
        compiler.run(kernel, *_args(), grid=1)
