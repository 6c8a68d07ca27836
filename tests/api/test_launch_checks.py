"""``compiler.run`` / ``launch`` / ``emulate`` refuse an array smaller than the kernel reaches,
an array of items of the wrong size, and an integer parameter that is no size.

A GPU launch with a short array reads or writes past it — silently wrong, or an illegal-address
error far from the cause. The compiled kernel keeps its module as parsed, whose
``qdot.make_desc`` ops say how far each pointer reaches at the scalar arguments given
(``compiler.launch_plan``, the sizing qdot-bench uses), and every launch is held to it first.
An int64 array for an i32 output, or K = 128.7 truncated to 128, would run and give garbage.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import compiler

ROOT = Path(__file__).resolve().parents[2]
M = N = K = 128


@pytest.fixture(scope="module")
def int8_gemm() -> compiler.CompiledKernel:
    return compiler.compile(ROOT / "examples" / "int8_gemm.mlir", arch="sm_90")


def _arrays(m: int = M, n: int = N, k: int = K) -> list[np.ndarray]:
    return [np.zeros((m, k), np.int8), np.zeros((n, k), np.int8), np.zeros((m, n), np.int32)]


def test_a_short_array_is_refused_by_name_before_the_emulator_runs(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    with pytest.raises(ValueError, match=r"argument #0 \(%a_ptr\) holds 8192 bytes, but the kernel's descriptors "
                                         r"over it reach 16384 \(16384 x i8\) at m=128,n=128,k=128"):
        compiler.emulate(int8_gemm, a[:64], b, c, M, N, K, grid=1)


def test_the_scalars_decide_how_far_the_kernel_reaches(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    with pytest.raises(ValueError, match=r"#0 \(%a_ptr\).*reach 32768.*k=256; argument #1 \(%b_ptr\)"):
        compiler.emulate(int8_gemm, a, b, c, M, N, np.int64(256), grid=1)


def test_the_check_comes_before_the_gpu_is_needed(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\) holds 32768 bytes"):
        compiler.run(int8_gemm, a, b, c[:64], M, N, K, grid=(1, 1, 1))


def test_a_shape_that_passed_once_is_still_checked_with_smaller_arrays(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    compiler.emulate(int8_gemm, a, b, c, M, N, K, grid=1)
    int8_gemm.check_arrays([a, b, c, M, N, K])  # the same sizes again: remembered, no new plan
    with pytest.raises(ValueError, match=r"argument #1 \(%b_ptr\)"):
        int8_gemm.check_arrays([a, b[:1], c, M, N, K])


def test_an_array_of_the_wrong_item_size_is_refused_by_name(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\) holds int64 \(8-byte items\), the kernel's c_ptr "
                                         r"points to i32 \(4 bytes\): pass int32 or uint32, or raw uint8 bytes"):
        compiler.emulate(int8_gemm, a, b, c.astype(np.int64), M, N, K, grid=1)
    with pytest.raises(ValueError, match=r"argument #0 \(%a_ptr\) holds float32 \(4-byte items\), the kernel's "
                                         r"a_ptr points to i8 \(1 byte\): pass int8 or uint8, or raw uint8 bytes"):
        compiler.run(int8_gemm, a.astype(np.float32), b, c, M, N, K, grid=(1, 1, 1))


@pytest.mark.parametrize("k", [128.7, -128, float("nan"), 2**63])
def test_an_integer_parameter_takes_a_size(int8_gemm, k: float) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=rf"argument #5 \(%k\) is {k}, but %k is a size \(index\): pass a whole "
                                         r"number from 0 to 9223372036854775807$"):
        compiler.emulate(int8_gemm, *_arrays(), M, N, k, grid=1)


def test_raw_bytes_and_typed_arrays_both_pass(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    rng = np.random.default_rng(0)
    a[:], b[:] = rng.integers(-128, 128, a.shape), rng.integers(-128, 128, b.shape)
    compiler.emulate(int8_gemm, a, b, c, M, N, K, grid=1)
    raw = np.zeros(c.nbytes, np.uint8)  # how qdot-bench passes every array
    compiler.emulate(int8_gemm, a.view(np.uint8), b.view(np.uint8), raw, M, N, np.int64(K), grid=1)
    np.testing.assert_array_equal(raw.view(np.int32).reshape(M, N), c)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32).T)
    int8_gemm.check_arrays([a, b, c.view(np.uint32), M, N, float(K)])  # a whole float is a size too


def test_a_shape_that_passed_once_is_still_checked_with_other_item_sizes(int8_gemm) -> None:  # noqa: ANN001
    a, b, c = _arrays()
    int8_gemm.check_arrays([a, b, c, M, N, K])
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\) holds int64"):  # more bytes, the wrong items
        int8_gemm.check_arrays([a, b, c.astype(np.int64), M, N, K])


def test_emulate_refuses_a_scalar_the_kernel_assumes_divisible_as_the_gpu_runner_does() -> None:
    decode = compiler.compile(ROOT / "examples" / "q4k_decode.mlir", arch="sm_90", num_stages=2)
    x, w, y = np.zeros((1, 3, 144), np.uint8), np.zeros((64, 2, 144), np.uint8), np.zeros((1, 64), np.float32)
    with pytest.raises(ValueError, match=r"argument 5 of 'small_m_q8_1_q4_K_64_w2_splitk' must be a multiple of "
                                         r"256 \(the kernel was compiled with qdot.divisibility = 256\), got 384"):
        compiler.emulate(decode, x, w, y, 1, 64, 384, grid=(1, 1, 1))


# One 16x16 f32 tile per program into a workspace of 64 rows of 16 per program along x: its size
# counts programs (qdot.num_programs), so only a launch's grid says how large it must be.
_WORKSPACE = """\
func.func @partials(%ws: !qdot.ptr<f32>) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %programs = qdot.num_programs x
  %rows = arith.muli %programs, %c64 : index
  %w = qdot.make_desc %ws, [%rows, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %x = qdot.program_id x
  %row = arith.muli %x, %c64 : index
  %z = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  qdot.store %w[%row, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}
"""


def test_a_workspace_is_checked_at_the_launch_grid() -> None:
    partials = compiler.compile(_WORKSPACE, arch="sm_90")
    ws = np.ones(3 * 64 * 16, np.float32)  # enough for three programs along x
    assert compiler.emulate(partials, ws, grid=(3, 1)).ctas == 3
    assert (ws == 0).sum() == 3 * 16 * 16  # each program's tile
    with pytest.raises(ValueError, match=r"argument #0 \(%ws\) holds 12284 bytes, but the kernel's descriptors "
                                         r"over it reach 12288 \(3072 x f32\) at grid \(3,1,1\)$"):
        compiler.emulate(partials, ws[:-1], grid=3)
    with pytest.raises(ValueError, match=r"holds 12288 bytes, .* reach 16384 \(4096 x f32\) at grid \(4,1,1\)$"):
        compiler.run(partials, ws, grid=(4, 1, 1))  # passed at (3, 1) before: a grid is a shape of its own
    partials.check_arrays([ws[:-1]])  # no grid: the sizes cannot be worked out, so nothing is checked


def test_launch_hands_the_runners_options_on(int8_gemm, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """``CompiledKernel.launch`` takes the runner's programmatic launch, shared memory and carve-out (the README's
    ``launch(..., shared_bytes=…)``), after the array check; no GPU is needed to see them handed on."""
    seen: list[dict[str, object]] = []

    class Loaded:
        def launch(self, *args: object, **options: object) -> None:
            seen.append(options)

    monkeypatch.setattr(int8_gemm, "_kernel", lambda name: Loaded())
    a, b, c = _arrays()
    int8_gemm.launch(a, b, c, M, N, K, grid=1, shared_bytes=65536)
    int8_gemm.launch(a, b, c, M, N, K, grid=1, programmatic=True, carveout=50, sync=False)
    assert seen == [
        {"grid": (1, 1, 1), "stream": None, "sync": True, "programmatic": False, "shared_bytes": 65536,
         "carveout": None},  # the grid checked and padded to (x, y, z), as the runner pads it
        {"grid": (1, 1, 1), "stream": None, "sync": False, "programmatic": True, "shared_bytes": None,
         "carveout": 50}]
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\)"):  # the check still comes first
        int8_gemm.launch(a, b, c[:64], M, N, K, grid=1, shared_bytes=65536)
    assert len(seen) == 2


def test_an_array_of_the_right_item_size_but_the_wrong_kind_is_refused(int8_gemm) -> None:  # noqa: ANN001
    """A float32 array for an i32 output has the right item size: it used to run and hold the
    integers' bits read as floats."""
    a, b, c = _arrays()
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\) holds float32 \(4-byte items\), the kernel's c_ptr "
                                         r"points to i32 \(4 bytes\): pass int32 or uint32, or raw uint8 bytes"):
        compiler.emulate(int8_gemm, a, b, c.view(np.float32), M, N, K, grid=1)
    with pytest.raises(ValueError, match=r"argument #0 \(%a_ptr\) holds bool .* pass int8 or uint8"):
        int8_gemm.check_arrays([a.astype(bool), b, c, M, N, K])


@pytest.fixture(scope="module")
def mmq() -> compiler.CompiledKernel:
    from compiler.mmq_template import MmqConfig, mmq_kernel

    return compiler.compile(mmq_kernel(MmqConfig(block_m=32, block_n=64)), arch="sm_90")


def _mmq_arrays(y_dtype: object) -> list[object]:
    # x: q8_1_mmq blocks [32, K/128, 144], w: q4_K blocks [K/256, 64, 144], y: f32 [32, 64], at K = 256
    return [np.zeros((32, 2, 144), np.uint8), np.zeros((1, 64, 144), np.uint8), np.zeros((32, 64), y_dtype),
            32, 64, 256]


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_an_integer_array_for_a_float_output_is_refused(mmq, dtype: type) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=rf"argument #2 \(%y_ptr\) holds {np.dtype(dtype).name} \(4-byte items\), "
                                         r"the kernel's y_ptr points to f32 \(4 bytes\): pass float32 or raw uint8"):
        mmq.check_arrays(_mmq_arrays(dtype), grid=1)


def test_block_pointees_take_uint8_or_one_block_per_item(mmq) -> None:  # noqa: ANN001
    mmq.check_arrays(_mmq_arrays(np.float32), grid=1)
    args = _mmq_arrays(np.float32)
    raw = [np.zeros(a.nbytes, np.uint8) if isinstance(a, np.ndarray) else a for a in args]  # qdot-bench's form
    mmq.check_arrays(raw, grid=1)
    args[1] = args[1].view(np.dtype((np.void, 144)))  # a structured dtype of one q4_K block
    mmq.check_arrays(args, grid=1)
    args[1] = np.zeros((1, 64, 72), np.uint16)
    with pytest.raises(ValueError, match=r"argument #1 \(%w_ptr\) holds uint16 \(2-byte items\), the kernel's w_ptr "
                                         r"points to !qdot.block<q4_K> \(144 bytes\): pass uint8 bytes \(144 per q4_K "
                                         r"block\)"):
        mmq.check_arrays(args, grid=1)


_POINTEES = """\
func.func @k(%h: !qdot.ptr<f16>, %g: !qdot.ptr<bf16>, %e: !qdot.ptr<f8E4M3FN>, %s: !qdot.ptr<f8E8M0FNU>)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  func.return
}
"""


@pytest.mark.parametrize(("index", "good", "bad", "advice"), [
    (0, ["float16", "uint16", "uint8"], ["int16", "bfloat16", "float32"], r"float16 \(or uint16 codes\)"),
    (1, ["bfloat16", "uint16", "uint8"], ["float16", "int16"], r"uint16 codes or ml_dtypes.bfloat16"),
    (2, ["uint8", "float8_e4m3fn"], ["int8", "float8_e5m2", "float16"], r"uint8 codes \(or ml_dtypes.float8_e4m3fn\)"),
    (3, ["uint8", "float8_e8m0fnu"], ["int8", "float8_e4m3fn"], r"uint8 codes \(or ml_dtypes.float8_e8m0fnu\)"),
])
def test_each_pointee_takes_its_own_dtypes(index: int, good: list[str], bad: list[str], advice: str) -> None:
    """f16 and bf16 travel as their float type or as uint16 codes (the GEMM harnesses' form, numpy having
    no bf16), an f8 code or E8M0 scale as uint8 codes or its ml_dtypes type; raw uint8 fits any."""
    import ml_dtypes  # noqa: F401 - registers bfloat16 and the float8 dtypes by name

    from compiler.api import _parse
    from compiler.launch_checks import _item_size_problem
    from compiler.launch_plan import find_kernel, kernel_parameters
    from dialects.qgpu.elements import storage_bytes

    param = kernel_parameters(find_kernel(_parse(_POINTEES)[1], "k"))[index]
    size = storage_bytes(param.type.pointee)
    for name in good:
        assert _item_size_problem(param, np.zeros(4, np.dtype(name)), size) is None, name
    for name in bad:
        problem = _item_size_problem(param, np.zeros(4, np.dtype(name)), size)
        assert problem is not None and re.search(rf"holds {name} .*: pass {advice}", problem), (name, problem)


def test_a_read_only_output_is_refused_before_anything_runs(int8_gemm) -> None:  # noqa: ANN001
    """The emulator found it only at the first store, after a whole CTA ran, with the reason on the
    message's second line; inputs may be read-only."""
    a, b, c = _arrays()
    a.flags.writeable = b.flags.writeable = False
    compiler.emulate(int8_gemm, a, b, c, M, N, K, grid=1)
    c.flags.writeable = False  # the same dtypes and sizes as a launch that passed: still refused
    with pytest.raises(ValueError, match=r"^gemm_i8_i8_noscale_128x128x64_w8: argument #2 \(%c_ptr\) is a read-only "
                                         r"array, but the kernel stores to %c_ptr: pass a writeable one"):
        compiler.emulate(int8_gemm, a, b, c, M, N, K, grid=1)
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\) is a read-only array"):
        compiler.run(int8_gemm, a, b, c, M, N, K, grid=1)


def test_an_array_in_non_native_byte_order_is_refused(int8_gemm) -> None:  # noqa: ANN001
    """'>i4' is named int32 as the native type is: the name check let it through and the kernel's
    little-endian results read as other numbers, with no error."""
    a, b, c = _arrays()
    compiler.emulate(int8_gemm, a, b, c, M, N, K, grid=1)  # the same shape with native arrays passed first
    with pytest.raises(ValueError, match=r"argument #2 \(%c_ptr\) holds >i4 items, in non-native byte order: the "
                                         r"kernel would take their bytes for <i4 ones; pass "
                                         r"array.astype\(array.dtype.newbyteorder\('='\)\)"):
        compiler.emulate(int8_gemm, a, b, c.astype(">i4"), M, N, K, grid=1)


def test_run_copies_back_the_outputs_of_a_launch_with_read_only_inputs(int8_gemm,  # noqa: ANN001
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Read-only inputs are taken, but the copy back after the launch wrote into every array, the input first: a
    ValueError after the kernel ran, with the output never copied."""
    from types import SimpleNamespace

    import targets.ptx.runner as runner

    device_c = np.arange(M * N, dtype=np.int32)  # what the stand-in launch leaves in the output's device copy
    fake = SimpleNamespace(asarray=lambda x: np.array(x), asnumpy=lambda x: np.array(x))

    def launch(*args: object, grid: object) -> None:
        args[2][:] = device_c.view(np.uint8)  # type: ignore[index]

    monkeypatch.setattr(runner, "require_cupy", lambda: fake)
    monkeypatch.setattr(runner, "load", lambda ptx, info: SimpleNamespace(launch=launch))
    a, b, c = _arrays()
    a.flags.writeable = b.flags.writeable = False
    compiler.run(int8_gemm, a, b, c, M, N, K, grid=1)
    assert np.array_equal(c.reshape(-1), device_c) and not a.any() and not b.any()


@pytest.mark.parametrize("grid", [7, (7,), (7, 2), (7, 2, 3), [7, 2], (np.int64(7), 2), 2**31 - 1,
                                  0, -1, True, "7", 7.0, (7, 0), (2**31, 1, 1), (1, 65536), (1, 1, 65536),
                                  (), (1, 1, 1, 1), (7.0, 1), b"7"], ids=repr)
def test_one_reading_of_a_launch_grid(int8_gemm, grid: object) -> None:  # noqa: ANN001
    """The runner, the sizing check and the template helpers read a grid the same way: what ``run`` and ``emulate``
    refuse, sizing treats as no grid and ``fixup_workspace_shape`` refuses with the same sentence under its name."""
    from compiler.launch_checks import checked_grid, launch_grid
    from compiler.templates import check_grid

    try:
        expected = checked_grid(grid)
    except (TypeError, ValueError) as err:
        assert launch_grid(grid) is None
        with pytest.raises(type(err), match=re.escape(str(err))):
            compiler.emulate(int8_gemm, *_arrays(), M, N, K, grid=grid)
        helper = str(err).replace("grid=", "grid", 1)
        with pytest.raises(type(err), match=f"^who: {re.escape(helper)}$"):
            check_grid("who", grid)
        return
    assert launch_grid(grid) == check_grid("who", grid) == expected
    assert all(type(d) is int for d in expected)
