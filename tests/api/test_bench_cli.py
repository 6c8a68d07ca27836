"""qdot-bench (compiler/cli/bench.py): a kernel file, shapes and a grid in; the arrays sized from the
kernel's own descriptors (compiler/launch_plan.py), a launch on the GPU (timed) or on the emulator
(--emulate) out. The --grid / --flops grammar is compiler/shape_expressions.py.

Most cases run the tool in-process (``run``, with ``ToolError`` reported as ``tool_main`` reports
it); one runs the console entry point in a fresh interpreter for the exit status and the absence
of a traceback. No case needs a GPU: the timing path is checked to refuse cleanly without one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from compiler import launch_plan, registry
from compiler.cli import bench
from compiler.cli.common import ToolError, parse_module, split_chunks
from compiler.diagnostics import QdotError
from compiler.shape_expressions import ExpressionError, Expressions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def qdot_bench(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Status, stdout and stderr of one in-process run, as ``tool_main`` would end it."""
    try:
        status = bench.run(argv)
    except ToolError as err:
        sys.stderr.write(f"qdot-bench: error: {err}\n")
        status = 1
    out = capsys.readouterr()
    return status, out.out, out.err


def test_help_says_what_it_does_and_does_not(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        bench.run(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for phrase in ("--shape", "--grid", "cdiv(a, b)", "qdot.make_desc", "--seed", "--emulate", "median",
                   "does not check results", "compiler.run", "compiler.numerics", "TFLOP/s"):
        assert phrase in text, phrase


# --- bad input: a diagnostic and status 1, never a traceback ------------------------------------

MX = str(EXAMPLES / "mx_gemm_e4m3_e2m1.mlir")
MX_SHAPE = ["--shape", "m=256,n=256,k=256"]
MX_GRID = ["--grid", "cdiv(m,128)*cdiv(n,128)"]
QUANTIZE = str(EXAMPLES / "quantize_q8_1_mmq.mlir")

_NO_DESCRIPTOR = """\
func.func @k(%p: !qdot.ptr<f32>, %q: !qdot.ptr<f32>, %m: index) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = qdot.make_desc %q, [%m, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %z = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  qdot.store %d[%c0, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}
"""
_PROGRAM_ID_SHAPE = _NO_DESCRIPTOR.replace(
    "  %d = qdot.make_desc %q, [%m, %m]",
    "  %e = qdot.make_desc %p, [%m, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>\n"
    "  %pid = qdot.program_id x\n"
    "  %d = qdot.make_desc %q, [%m, %pid]")
_DIVIDES_BY_ZERO = _PROGRAM_ID_SHAPE.replace("%pid = qdot.program_id x", "%pid = arith.divui %c1, %m : index")
_UNKNOWN_OP_SHAPE = _PROGRAM_ID_SHAPE.replace(
    "%pid = qdot.program_id x",
    "%w = arith.index_cast %m : index to i64\n  %t = arith.trunci %w : i64 to i32\n"
    "  %pid = arith.index_cast %t : i32 to index")
INT8 = EXAMPLES / "int8_gemm.mlir"
_INT8_TEXT = INT8.read_text(encoding="utf-8")
_INT8_SIGNATURE = ", %m: index, %n: index, %k: index {qdot.divisibility = 128 : i64})"
assert _INT8_SIGNATURE in _INT8_TEXT
_NO_SCALARS = _INT8_TEXT.replace(_INT8_SIGNATURE, ")").replace(
    "  %c0 = arith.constant 0 : index\n",
    "  %c0 = arith.constant 0 : index\n  %m = arith.constant 128 : index\n  %n = arith.constant 128 : index\n"
    "  %k = arith.constant 128 : index\n", 1)
"""int8_gemm with its shape as constants (128 × 128 × 128: one tile) in place of %m, %n and %k: no scalar
parameter, as the review that found qdot-bench unable to run such a kernel wrote it."""
_FLAGGED = _INT8_TEXT.replace(_INT8_SIGNATURE, _INT8_SIGNATURE[:-1] + ", %flag: i1)")


def _kernel(text: str) -> Any:
    """The one kernel of IR ``text``, parsed as qdot-bench parses it."""
    return launch_plan.find_kernel(parse_module(registry.make_context(), split_chunks(text, False)[0], "k.mlir"), None)


BAD = {
    # as for qdot-opt and qdot-translate: one line and status 1, not argparse's usage and status 2
    "misspelt flag": ([MX, *MX_SHAPE, *MX_GRID, "--bogus"], "qdot-bench: error: unrecognized arguments: --bogus",
                      "(see qdot-bench --help)"),
    "abbreviated flag": ([MX, *MX_SHAPE, *MX_GRID, "--emul"], "unrecognized arguments: --emul", ""),
    "missing file": ([str(EXAMPLES / "no_such_kernel.mlir"), *MX_SHAPE, *MX_GRID],
                     "qdot-bench: error: cannot read", "No such file"),
    "syntax error": (["SYNTAX", *MX_SHAPE, *MX_GRID], "syntax.mlir:3:1: error: operand expected", ""),
    "no kernel": ([str(EXAMPLES / "agx_tile_fp16.mlir"), *MX_SHAPE, *MX_GRID], "has no kernel to run", ""),
    "unknown kernel": ([MX, "--kernel", "gemm", *MX_SHAPE, *MX_GRID], "no kernel named 'gemm'", "mx_gemm_e4m3_e2m1"),
    "no shape": ([MX, *MX_GRID], "--shape is required", ""),
    "empty shape": ([MX, "--shape", "", *MX_GRID], "--shape '' does not give m, n, k",
                    "scalar parameters are m, n, k"),
    "shape of a kernel without scalars": (["NO_SCALARS", "--shape", "m=128", "--grid", "1"],
                                          "'m' is not a parameter", "scalar parameters are none"),
    "grid name of a kernel without scalars": (["NO_SCALARS", "--grid", "cdiv(m,128)"], "unknown name 'm'",
                                              "integer parameters: none"),
    "flops name of a kernel without scalars": (["NO_SCALARS", "--grid", "1", "--flops", "2*m*n*k"],
                                               "--flops '2*m*n*k': unknown name 'k'", "integer parameters: none"),
    "i1 parameter": (["FLAGGED", "--shape", "m=256,n=128,k=128,flag=1", "--grid", "2"],
                     "flagged.mlir:18:1: error: 'func.func' op parameter %flag has type i1; a kernel takes "
                     "!qdot.ptr arrays and index, i32, i64 and f32 scalars", ""),
    "i1 parameter at 0": (["FLAGGED", "--shape", "m=256,n=128,k=128,flag=0", "--grid", "2"],
                          "op parameter %flag has type i1", ""),
    "no grid": ([MX, *MX_SHAPE], "--grid is required", ""),
    "missing shape name": ([MX, "--shape", "m=256,n=256", *MX_GRID], "does not give k",
                           "scalar parameters are m, n, k"),
    "unknown shape name": ([MX, "--shape", "m=256,n=256,k=256,q=1", *MX_GRID], "'q' is not a parameter",
                           "scalar parameters are m, n, k"),
    "pointer as shape": ([MX, "--shape", "m=256,n=256,c_ptr=1", *MX_GRID], "'c_ptr' is a pointer", "m, n, k"),
    "not name=value": ([MX, "--shape", "m256", *MX_GRID], "'m256' is not name=value", "m, n, k"),
    "not an integer": ([MX, "--shape", "m=256,n=256,k=lots", *MX_GRID], "k must be an integer, got 'lots'", ""),
    "divisibility": ([MX, "--shape", "m=256,n=256,k=100", *MX_GRID], "k = 100 is not a multiple of 128",
                     "qdot.divisibility"),
    "grid syntax": ([MX, *MX_SHAPE, "--grid", "cdiv(m,128"], "--grid 'cdiv(m,128' is not an expression", ""),
    "grid name": ([MX, *MX_SHAPE, "--grid", "cdiv(m,128)*cdiv(x,128)"], "unknown name 'x'", "m, n, k"),
    "grid true division": ([MX, *MX_SHAPE, "--grid", "m/128"], "unsupported operator (integer division is //) "
                           "in 'm/128'", ""),
    "grid call": ([MX, *MX_SHAPE, "--grid", "__import__('os').getpid()"], "unknown function in "
                  "'__import__('os').getpid()'", ""),
    "grid power": ([MX, *MX_SHAPE, "--grid", "2**m"], "unsupported operator", "'2**m'"),
    "grid attribute": ([MX, *MX_SHAPE, "--grid", "m.bit_length"], "unsupported syntax 'm.bit_length'", ""),
    "grid float": ([MX, *MX_SHAPE, "--grid", "1.5"], "only integer constants are allowed, got '1.5'", ""),
    "grid arity": ([MX, *MX_SHAPE, "--grid", "1,2,3,4"], "one to three comma-separated expressions, got 4", ""),
    "grid zero": ([MX, *MX_SHAPE, "--grid", "m//512"], "gives x = 0 at m=256,n=256,k=256", ""),
    "grid divides by zero": ([MX, *MX_SHAPE, "--grid", "cdiv(m, n-n)"], "'cdiv(m, n-n)' divides by zero", ""),
    "grid nested too deeply": ([MX, *MX_SHAPE, "--grid=" + "-" * 998 + "1"],  # was a RecursionError in the walk
                               "is nested 999 levels deep; an expression may nest at most 500", ""),
    "flops name": ([MX, *MX_SHAPE, *MX_GRID, "--flops", "2*m*n*kk"], "--flops '2*m*n*kk': unknown name 'kk'", ""),
    "flops negative": ([MX, *MX_SHAPE, *MX_GRID, "--flops", "-5"], "--flops '-5' gives -5 at m=256,n=256,k=256; "
                       "the operations of a launch must be a positive count", ""),
    "flops zero": ([MX, *MX_SHAPE, *MX_GRID, "--flops", "m-m"], "--flops 'm-m' gives 0 at m=256,n=256,k=256", ""),
    "flops negative at one shape": ([MX, *MX_SHAPE, "--shape", "m=128,n=256,k=256", *MX_GRID, "--flops",
                                     "2*(m-200)*n*k"], "--flops '2*(m-200)*n*k' gives -9437184 at m=128,n=256,k=256",
                                    ""),
    "flops zero without scalars": (["NO_SCALARS", "--grid", "1", "--flops", "0"],
                                   "--flops '0' gives 0; the operations of a launch must be a positive count", ""),
    "reps": ([MX, *MX_SHAPE, *MX_GRID, "--reps", "0"], "--reps must be at least 1", ""),
    "no descriptor": (["NO_DESCRIPTOR", "--shape", "m=16", "--grid", "1"],
                      "nodesc.mlir:1:1: error: 'func.func' op pointer parameter %p has no qdot.make_desc", ""),
    "unknown op": (["UNKNOWN_OP", "--shape", "m=16", "--grid", "1"],
                   "unknown.mlir:6:3: error: 'arith.trunci' op is not an op qdot-bench evaluates",
                   "shape operand 1 of the descriptor over %q at line 8 comes from it"),
    "index division by zero": (["DIV_ZERO", "--shape", "m=0", "--grid", "1"],
                               "div.mlir:5:3: error: 'arith.divui' op divides by zero at m=0", ""),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_input_is_a_diagnostic(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, first, second = BAD[case]
    syntax = "func.func @k(%a: index) attributes {qdot.kernel} {\n  %x = arith.addi %a,\n}\n"
    files = {"SYNTAX": ("syntax.mlir", syntax),
             "NO_DESCRIPTOR": ("nodesc.mlir", _NO_DESCRIPTOR), "UNKNOWN_OP": ("unknown.mlir", _UNKNOWN_OP_SHAPE),
             "DIV_ZERO": ("div.mlir", _DIVIDES_BY_ZERO), "NO_SCALARS": ("noscalars.mlir", _NO_SCALARS),
             "FLAGGED": ("flagged.mlir", _FLAGGED)}
    if argv[0] in files:
        name, text = files[argv[0]]
        (tmp_path / name).write_text(text, encoding="utf-8")
        argv = [str(tmp_path / name), *argv[1:]]
    status, out, err = qdot_bench(argv, capsys)
    assert status == 1, err
    assert out == ""
    assert first in err and second in err, err
    assert "Traceback" not in err
    assert err.count("\n") == 1 or case == "syntax error", err  # one diagnostic


def test_console_script_exits_1_without_a_traceback(tmp_path: Path) -> None:
    """The entry point itself (status, stderr) for a flag it cannot parse, a command-line problem
    and an IR problem."""
    (tmp_path / "nodesc.mlir").write_text(_NO_DESCRIPTOR, encoding="utf-8")
    for argv, expected in ((["--bogus"], "qdot-bench: error: unrecognized arguments: --bogus (see qdot-bench "
                                         "--help)\n"),
                           ([MX, "--shape", "m=1,n=1", *MX_GRID],
                            "qdot-bench: error: --shape 'm=1,n=1' does not give k"),
                           ([str(tmp_path / "nodesc.mlir"), "--shape", "m=16", "--grid", "1"],
                            "error: 'func.func' op pointer parameter %p has no qdot.make_desc")):
        done = subprocess.run([sys.executable, "-m", "compiler.cli.bench", *argv], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 1, done.stderr
        assert expected in done.stderr and "Traceback" not in done.stderr and "usage:" not in done.stderr, \
            done.stderr


def test_a_kernel_without_scalar_parameters_needs_no_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by a review: int8_gemm with its shape as constants compiled, but no --shape was accepted ('--shape is
    required', then "'' is not name=value"). Such a kernel has one run, named by its grid; --shape '' is the same;
    the default --flops (2*m*n*k) has no names to use, so no TFLOP/s."""
    path = tmp_path / "noscalars.mlir"
    path.write_text(_NO_SCALARS, encoding="utf-8")
    status, out, err = qdot_bench([str(path), "--grid", "1", "--emulate"], capsys)
    assert (status, err) == (0, ""), err
    assert out.startswith("gemm_i8_i8_noscale_128x128x64_w8  grid=(1,1,1)  emulated: 1 CTA, "), out
    assert out.endswith("  c_ptr: all 16384 elements written\n"), out
    status, out, err = qdot_bench([str(path), "--shape", "", "--grid", "1", "--emulate", "--json"], capsys)
    assert (status, err) == (0, ""), err
    result = json.loads(out)
    assert (result["shape"], result["grid"], result["unwritten_elements"]) == ({}, [1, 1, 1], {"c_ptr": 0})
    assert result["arrays"]["a_ptr"]["bytes"] == result["arrays"]["b_ptr"]["bytes"] == 128 * 128
    func = _kernel(_NO_SCALARS)
    params = launch_plan.kernel_parameters(func)
    grid, flops = bench._expressions(bench.make_arg_parser().parse_args(["--grid", "1"]), params)
    assert flops is None
    assert launch_plan.plan_run("", func, params, grid, flops).flops is None


def test_an_empty_default_flop_count_gives_no_tflops_not_a_refusal() -> None:
    """A --flops that gives 0 or less is refused (TFLOP/s would be 0 or negative); the tool's own default, 2*m*n*k,
    gives 0 at a shape with an empty dimension the user asked for: that run has no FLOP count instead."""
    func = _kernel(_INT8_TEXT)
    params = launch_plan.kernel_parameters(func)
    grid = Expressions.parse("--grid", "1", 3)
    default = Expressions.parse("--flops", "2*m*n*k", 1)
    assert launch_plan.plan_run("m=128,n=128,k=128", func, params, grid, default, default_flops=True).flops \
        == 2 * 128 ** 3
    assert launch_plan.plan_run("m=0,n=128,k=128", func, params, grid, default, default_flops=True).flops is None
    with pytest.raises(launch_plan.LaunchPlanError, match=r"--flops '2\*m\*n\*k' gives 0 at m=0,n=128,k=128; "
                                                          "the operations of a launch must be a positive count"):
        launch_plan.plan_run("m=0,n=128,k=128", func, params, grid, default)


@pytest.mark.parametrize(("type_", "taken"), [("index", True), ("i32", True), ("i64", True), ("f32", True),
                                               ("i1", False), ("i8", False), ("i16", False), ("f16", False),
                                               ("f64", False)])
def test_parameter_types_are_those_a_kernel_takes(type_: str, taken: bool) -> None:
    """qdot-to-llvm lowers a kernel's parameters from !qdot.ptr, index, i32, i64 and f32 only; the signature is
    read against the same list before any --shape (an i1 was once 'from 0 to 0', and refused only by the
    compile at flag=0)."""
    func = _kernel(_INT8_TEXT.replace(_INT8_SIGNATURE, _INT8_SIGNATURE[:-1] + f", %s: {type_})"))
    if taken:
        assert launch_plan.kernel_parameters(func)[-1].name == "s"
        return
    with pytest.raises(QdotError, match=rf"parameter %s has type {type_}; a kernel takes !qdot.ptr arrays and "
                                        "index, i32, i64 and f32 scalars"):
        launch_plan.kernel_parameters(func)


def test_an_integer_parameter_ranges_to_its_signed_maximum() -> None:
    """The runner passes an integer parameter signed: 0 … 2^(w−1) − 1, which for a 1-bit flag (signed: −1 … 0)
    would be 0 … 0: a flag is 0 … 1."""
    from xdsl.dialects.builtin import IndexType, IntegerType

    assert [launch_plan.Parameter(0, "x", IntegerType(w)).max_value for w in (1, 8, 16, 32, 64)] == \
        [1, 127, 32767, 2**31 - 1, 2**63 - 1]
    assert launch_plan.Parameter(0, "x", IndexType()).max_value == 2**63 - 1


def test_input_is_named_as_read_in_compile_and_emulator_diagnostics(capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """qdot-bench compiles the text it read under the name it read it as (compile's ``source_name``), as
    qdot-opt and qdot-translate name their input: '<stdin>' ('-' or no file), else the path as given ('./x.mlir',
    not 'x.mlir')."""
    import io

    mx_text = Path(MX).read_text(encoding="utf-8")
    for argv in ([], ["-"]):
        monkeypatch.setattr(sys, "stdin", io.StringIO(mx_text))
        status, out, err = qdot_bench([*argv, "--strategy", "native", *MX_SHAPE, *MX_GRID, "--emulate"], capsys)
        assert (status, out) == (1, "") and err.startswith("<stdin>:56:5: error: 'qdot.dot_scaled' op strategy "
                                                           "'native'"), err
    monkeypatch.chdir(EXAMPLES)
    status, out, err = qdot_bench(["./mx_gemm_e4m3_e2m1.mlir", "--strategy", "native", *MX_SHAPE, *MX_GRID,
                                   "--emulate"], capsys)
    assert status == 1 and err.startswith("./mx_gemm_e4m3_e2m1.mlir:56:5: error: 'qdot.dot_scaled' op"), err
    # the emulator locates its errors in the same IR: m = 0 makes int8_gemm's tile swizzle take a remainder by 0
    monkeypatch.setattr(sys, "stdin", io.StringIO(_INT8_TEXT))
    status, out, err = qdot_bench(["--shape", "m=0,n=128,k=128", "--grid", "1", "--emulate"], capsys)
    assert (status, out) == (1, "") and "<source>" not in err, err
    assert err.startswith("qdot-bench: error: the emulator stopped the launch at m=0,n=128,k=128 grid=(1,1,1): "
                          "<stdin>:35:3: %pid_m_in = arith.remui"), err


# --- the arrays sized from each example's descriptors --------------------------------------------

Q_BLOCK_BYTES = 144  # block_q4_K and block_q8_1_mmq, as the examples' headers state


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


# Per example, from the layout its header comment states: (bytes per pointer, the pointers written).
M, N, K = 192, 320, 512
EXPECTED = {
    "int8_gemm": ({"a_ptr": M * K, "b_ptr": N * K, "c_ptr": 4 * M * N}, {"c_ptr"}),
    "mx_gemm_e4m3_e2m1": ({"a_ptr": M * K, "b_ptr": N * K // 2, "sa_ptr": M * K // 32, "sb_ptr": N * K // 32,
                           "c_ptr": 4 * M * N}, {"c_ptr"}),
    "mx_gemm_e4m3_e2m1_promoted": ({"a_ptr": M * K, "b_ptr": N * K // 2, "sa_ptr": M * K // 32,
                                    "sb_ptr": N * K // 32, "c_ptr": 4 * M * N}, {"c_ptr"}),
    "nvfp4_gemm_e2m1": ({"a_ptr": M * K // 2, "b_ptr": N * K // 2, "sa_ptr": M * K // 16, "sb_ptr": N * K // 16,
                         "c_ptr": 4 * M * N}, {"c_ptr"}),
    "q4k_mmq": ({"x_ptr": M * K // 128 * Q_BLOCK_BYTES, "w_ptr": N * K // 256 * Q_BLOCK_BYTES, "y_ptr": 4 * M * N},
                {"y_ptr"}),
    "q4k_decode": ({"x_ptr": M * K // 128 * Q_BLOCK_BYTES, "w_ptr": N * K // 256 * Q_BLOCK_BYTES,
                    "y_ptr": 4 * M * N}, {"y_ptr"}),
    "q4_0_mmq": ({"x_ptr": M * K // 128 * Q_BLOCK_BYTES, "w_ptr": N * K // 32 * 18, "y_ptr": 4 * M * N},
                 {"y_ptr"}),  # block_q4_0: 18 bytes per 32 values
    # K need not be a multiple of 128 here: the last block of a row is partly padding
    "quantize_q8_1_mmq": ({"x_ptr": 4 * M * (K + 40), "q_ptr": M * _cdiv(K + 40, 128) * Q_BLOCK_BYTES}, {"q_ptr"}),
}


def test_every_ptx_example_is_covered() -> None:
    kernels = {p.stem for p in EXAMPLES.glob("*.mlir") if "qdot.kernel" in p.read_text(encoding="utf-8")}
    assert kernels == set(EXPECTED)


@pytest.mark.parametrize("example", sorted(EXPECTED))
def test_array_sizes_follow_the_stated_layout(example: str) -> None:
    path = EXAMPLES / f"{example}.mlir"
    text = path.read_text(encoding="utf-8")
    module = parse_module(registry.make_context(), split_chunks(text, False)[0], str(path))
    func = launch_plan.find_kernel(module, None)
    params = launch_plan.kernel_parameters(func)
    shape = f"m={M},k={K + 40}" if example == "quantize_q8_1_mmq" else f"m={M},n={N},k={K}"
    arrays = launch_plan.plan_arrays(func, params, launch_plan.parse_shape(shape, params))
    sizes, outputs = EXPECTED[example]
    assert {a.param: a.nbytes for a in arrays} == sizes
    assert {a.param for a in arrays if a.output} == outputs
    assert [a.param for a in arrays] == [p.name for p in params if p.is_pointer]  # launch order


# A stream-K style kernel: its workspace holds one 2x64x128 f32 partial per program along x, so the
# array's size is stated by the grid (qdot.num_programs), not by a scalar parameter. Each program
# stores one tile of it and one tile of %c (its own: the emulator refuses two CTAs storing one byte).
_PER_PROGRAM_WORKSPACE = """\
func.func @partials(%ws: !qdot.ptr<f32>, %c: !qdot.ptr<f32>, %m: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %programs = qdot.num_programs x
  %tiles = arith.muli %programs, %c2 : index
  %rows = arith.muli %tiles, %c64 : index
  %w = qdot.make_desc %ws, [%rows, %c128], [%c128, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %d = qdot.make_desc %c, [%m, %c128], [%c128, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %x = qdot.program_id x
  %y = qdot.program_id y
  %x2 = arith.muli %x, %c2 : index
  %tile = arith.addi %x2, %y : index
  %row = arith.muli %tile, %c64 : index
  %col = arith.muli %tile, %c16 : index
  %z = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  qdot.store %w[%row, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  qdot.store %d[%c0, %col], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}
"""


def _workspace_kernel() -> tuple[Any, tuple[launch_plan.Parameter, ...]]:
    module = parse_module(registry.make_context(), split_chunks(_PER_PROGRAM_WORKSPACE, False)[0], "workspace.mlir")
    func = launch_plan.find_kernel(module, None)
    return func, launch_plan.kernel_parameters(func)


def test_a_workspace_per_program_is_sized_at_the_grid() -> None:
    """(programs_x * 2 * 64 - 1) * 128 + 127 + 1 f32 elements: the x dimension of the grid, not y or z."""
    func, params = _workspace_kernel()
    for grid, programs in (((3, 2, 1), 3), ((5, 1, 1), 5), ((1, 7, 4), 1)):
        arrays = launch_plan.plan_arrays(func, params, {"m": 24}, grid)
        assert {a.param: (a.elements, a.nbytes) for a in arrays} == {
            "ws": (programs * 2 * 64 * 128, 4 * programs * 2 * 64 * 128), "c": (24 * 128, 4 * 24 * 128)}
        assert all(a.output for a in arrays)
    # plan_run sizes at the grid its --grid expression gives at the shape: x = cdiv(24, 8) = 3
    run = launch_plan.plan_run("m=24", func, params, Expressions.parse("--grid", "cdiv(m, 8), 2", 3), None)
    assert run.grid == (3, 2, 1)
    assert {a.param: a.nbytes for a in run.arrays} == {"ws": 196608, "c": 12288}


def test_a_size_that_counts_programs_needs_the_grid() -> None:
    func, params = _workspace_kernel()
    with pytest.raises(QdotError) as caught:
        launch_plan.plan_arrays(func, params, {"m": 24})
    assert caught.value.op.name == "qdot.num_programs"
    assert str(caught.value) == (
        "workspace.mlir:9:3: error: 'qdot.num_programs' op is the launch grid's size along x, and shape operand 0 "
        "of the descriptor over %ws at line 12 depends on it (qdot.num_programs); the grid is not known where the "
        "arrays are sized")


def test_emulate_sizes_a_workspace_by_the_grid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "workspace.mlir").write_text(_PER_PROGRAM_WORKSPACE, encoding="utf-8")
    status, out, err = qdot_bench([str(tmp_path / "workspace.mlir"), "--arch", "sm_90", "--shape", "m=24",
                                   "--grid", "cdiv(m, 8), 2", "--flops", "1", "--emulate", "--json"], capsys)
    assert status == 0, err
    result = json.loads(out)
    assert result["grid"] == [3, 2, 1] and result["ctas"] == 6
    assert result["arrays"]["ws"] == {"element_type": "f32", "elements": 3 * 2 * 64 * 128,
                                      "bytes": 4 * 3 * 2 * 64 * 128, "output": True}
    assert result["unwritten_elements"]["ws"] == 3 * 2 * 64 * 128 - 6 * 16 * 16  # one 16x16 tile per program


_COUNTERS = """\
func.func @arrive(%counts: !qdot.ptr<i32>, %flags: !qdot.ptr<i32>, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c2 = arith.constant 2 : index
  %tile = qdot.program_id y
  %splits = qdot.num_programs x
  %last = qdot.last_arrival %counts[%tile], %splits : !qdot.ptr<i32>
  %flag = arith.addi %n, %c2 : index
  %again = qdot.last_arrival %flags[%flag], %splits : !qdot.ptr<i32>
  func.return
}
"""


def test_counters_are_sized_by_their_largest_index_and_start_as_zeros() -> None:
    """A ``qdot.last_arrival`` indexed by a program id needs one counter per program along that axis (y here: 4),
    one indexed by an expression one past its value (n + 2 = 7: 8); both are zero-filled, as counters start."""
    module = parse_module(registry.make_context(), split_chunks(_COUNTERS, False)[0], "counters.mlir")
    func = launch_plan.find_kernel(module, None)
    params = launch_plan.kernel_parameters(func)
    arrays = launch_plan.plan_arrays(func, params, {"n": 5}, (3, 4, 1))
    assert {a.param: (a.element_type, a.elements, a.output) for a in arrays} == {
        "counts": ("i32", 4, True), "flags": ("i32", 8, True)}
    with pytest.raises(QdotError) as caught:
        launch_plan.plan_arrays(func, params, {"n": 5})
    assert str(caught.value) == (
        "counters.mlir:6:3: error: 'qdot.last_arrival' op counts programs by qdot.program_id y, so its counters' "
        "number is the launch grid's size along it; the grid is not known where the arrays are sized")


_REGION_PER_PROGRAM = """\
func.func @regions(%ws: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = qdot.program_id x
  %y = qdot.program_id y
  %ny = qdot.num_programs y
  %xs = arith.muli %x, %ny : index
  %region = arith.addi %xs, %y : index
  %row0 = arith.muli %region, %c16 : index
  %rows = arith.addi %row0, %n : index
  %d = qdot.make_desc %ws, [%rows, %c16], [%c16, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %z = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  qdot.store %d[%row0, %c0], %z : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}
"""


def _kernel_of(text: str, name: str) -> tuple[Any, tuple[launch_plan.Parameter, ...]]:
    module = parse_module(registry.make_context(), split_chunks(text, False)[0], name)
    func = launch_plan.find_kernel(module, None)
    return func, launch_plan.kernel_parameters(func)


def test_a_region_per_program_is_sized_for_the_last_program() -> None:
    """A descriptor whose shape depends on ``qdot.program_id`` (rows (x · ny + y) · 16 … + n) reaches furthest in
    the last program, (gx − 1, gy − 1): ((gx · gy − 1) · 16 + n) rows of 16; without a grid that is a diagnostic
    at the program id."""
    func, params = _kernel_of(_REGION_PER_PROGRAM, "regions.mlir")
    for grid, n in (((3, 2, 1), 16), ((1, 1, 1), 16), ((4, 3, 2), 5)):
        (ws,) = launch_plan.plan_arrays(func, params, {"n": n}, grid)
        assert (ws.elements, ws.output) == (((grid[0] * grid[1] - 1) * 16 + n) * 16, True)
    with pytest.raises(QdotError) as caught:
        launch_plan.plan_arrays(func, params, {"n": 16})
    assert str(caught.value) == (
        "regions.mlir:5:3: error: 'qdot.program_id' op is the launch grid's program index along x, and shape "
        "operand 0 of the descriptor over %ws at line 12 depends on it (qdot.program_id); the grid is not known "
        "where the arrays are sized")


@pytest.mark.parametrize("op,programs,expected", [
    ("arith.remui %x, %c16", 40, 15 * 16 + 16),  # x % 16 over x = 0 … 39: at most 15
    ("arith.andi %x, %c16", 40, 16 * 16 + 16),  # x & 16: at most 16
    ("arith.subi %c16, %x", 17, 16 * 16 + 16),  # 16 − x over x = 0 … 16, greatest at x = 0
    ("arith.divui %x, %c16", 40, 2 * 16 + 16),  # x // 16: at most 2
])
def test_program_id_bounds_hold_for_every_program(op: str, programs: int, expected: int) -> None:
    """Each op's bound r over x = 0 … programs − 1, against the descriptor [r + 1, 16] (extent r · 16 + 16); a
    shape that goes negative in some program is a diagnostic."""
    text = _REGION_PER_PROGRAM.replace("%row0 = arith.muli %region, %c16 : index", f"%row0 = {op} : index")
    text = text.replace("%rows = arith.addi %row0, %n : index", "%rows = arith.addi %row0, %c1 : index")
    func, params = _kernel_of(text, "bounds.mlir")
    (ws,) = launch_plan.plan_arrays(func, params, {"n": 1}, (programs, 1, 1))
    assert ws.elements == expected
    if "subi" in op:
        with pytest.raises(QdotError) as caught:
            launch_plan.plan_arrays(func, params, {"n": 1}, (programs + 2, 1, 1))
        assert str(caught.value) == ("bounds.mlir:12:3: error: 'qdot.make_desc' op has a negative shape "
                                     "[-1 … 17, 16] at n=1")


def test_a_divisor_that_may_be_zero_in_some_program_is_a_diagnostic() -> None:
    text = _REGION_PER_PROGRAM.replace("%row0 = arith.muli %region, %c16 : index",
                                       "%row0 = arith.divui %c16, %region : index")
    func, params = _kernel_of(text, "div.mlir")
    with pytest.raises(QdotError) as caught:
        launch_plan.plan_arrays(func, params, {"n": 1}, (3, 1, 1))
    assert str(caught.value) == (
        "div.mlir:10:3: error: 'arith.divui' op may divide by zero (its divisor ranges over 0 … 2 across the "
        "programs) at n=1, computing shape operand 0 of the descriptor over %ws at line 12")


def test_the_one_launch_decode_arrays_are_the_hosts_shapes() -> None:
    """qdot-bench's sizes of the one-launch decode kernel (``quantize_in_gemm``: a scratch region per program, a
    counter per weight-row tile) and of the stream-K in-GEMM fix-up kernel equal the shapes the host allocates
    (``compiler.mmq_template``), found independently: one from the kernel's IR, one from the layout's formula (the
    host's fix-up workspace may hold a row's columns more than the kernel reaches)."""
    from dataclasses import replace

    from compiler.mmq_template import (MmqConfig, fixup_counters_shape, fixup_workspace_shape, mmq_grid, mmq_kernel,
                                       quantize_scratch_shape)

    one_launch = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, fixup=True, fixup_in_gemm=True,
                           quantize_in_gemm=True)
    stream_k = MmqConfig(block_m=32, block_n=64, num_warps=4, stream_k=True, fixup=True, fixup_in_gemm=True)
    for cfg, m, n, k in ((one_launch, 8, 40, 1280), (replace(one_launch, k_blocks=2), 8, 72, 2048),
                         (replace(one_launch, max_m=1, block_n=64, num_warps=2), 1, 200, 768),
                         (stream_k, 40, 72, 768)):
        grid = mmq_grid(cfg, m, n, k, **({"target": 64, "min_blocks": 1} if cfg.small_m else {"programs": 7}))
        func, params = _kernel_of(mmq_kernel(cfg), f"{cfg.name}.mlir")
        planned = {a.param: a.nbytes for a in launch_plan.plan_arrays(func, params, {"m": m, "n": n, "k": k}, grid)}
        counters = 4 * int(np.prod(fixup_counters_shape(cfg, m, n)))
        if cfg.small_m:
            assert planned["count_ptr"] == counters, cfg.name
        else:  # a tile's index first_tile + s bounded over both ranges apart: an upper bound, at most 2 × the tiles
            assert counters <= planned["count_ptr"] <= 2 * counters, cfg.name
        parts = fixup_workspace_shape(cfg, grid, n)  # the one-token kernel's last row reaches its column 0 only
        assert 4 * (int(np.prod(parts)) - parts[1]) < planned["part_ptr"] <= 4 * int(np.prod(parts)), cfg.name
        if cfg.quantize_in_gemm:
            rows, blocks, block_bytes = quantize_scratch_shape(cfg, grid, n, k)  # the last region: its M rows only
            tokens = rows // (grid[0] * grid[1])
            assert planned["x_ptr"] == (rows - tokens + m) * blocks * block_bytes, cfg.name


def test_emulate_runs_the_one_launch_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """qdot-bench --emulate launches the one-launch MUL_MAT kernel as written: it sizes the scratch regions and the
    counters from the IR, zero-fills the counters, and every program's loads of another's stores pass the
    emulator's publish / acquire check; Y is written whole."""
    from compiler.mmq_template import MmqConfig, mmq_kernel

    cfg = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, fixup=True, fixup_in_gemm=True,
                    quantize_in_gemm=True)
    (tmp_path / "one_launch.mlir").write_text(mmq_kernel(cfg), encoding="utf-8")
    status, out, err = qdot_bench([str(tmp_path / "one_launch.mlir"), "--arch", "sm_90", "--shape",
                                   "m=4,n=40,k=1280", "--grid", "cdiv(n, 16), 5", "--flops", "2*m*n*k", "--emulate",
                                   "--json"], capsys)
    assert status == 0, err
    result = json.loads(out)
    assert result["grid"] == [3, 5, 1] and result["arrays"]["count_ptr"]["elements"] == 3
    assert result["ops"]["ptx.atom_global_add"] == 15 and result["unwritten_elements"]["y_ptr"] == 0


# --- expressions ---------------------------------------------------------------------------------

def test_expressions_evaluate_the_whitelisted_grammar_only() -> None:
    env = {"m": 1000, "n": 300, "k": 64}
    assert Expressions.parse("--grid", "cdiv(m,128)*cdiv(n,128)", 3).evaluate(env) == (8 * 3,)
    assert Expressions.parse("--grid", "+".join(["1"] * 500), 3).evaluate(env) == (500,)  # the longest chain: taken
    assert Expressions.parse("--grid", "(cdiv(n, 64), min(m // 100, 4), -(-2))", 3).evaluate(env) == (5, 4, 2)
    flops = Expressions.parse("--flops", "2*m*n*k + max(m, n) - 1", 1)
    assert flops.evaluate(env) == (2 * 1000 * 300 * 64 + 999,)
    for text in ("lambda: 1", "[m]", "m if n else k", "cdiv(m)", "cdiv(m, n, k)", "max(*[m, n])", "m < n", "m % 2"):
        with pytest.raises(ExpressionError, match=r"--grid '.*'"):
            Expressions.parse("--grid", text, 3)


# --- running: on the emulator, and without a GPU --------------------------------------------------

def test_emulate_checks_the_launch_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = qdot_bench([MX, "--arch", "sm_90", "--shape", "m=128,n=128,k=128", *MX_GRID, "--emulate",
                                   "--json"], capsys)
    assert status == 0, err
    result = json.loads(out)
    assert result["kernel"] == "mx_gemm_e4m3_e2m1" and result["grid"] == [1, 1, 1]
    assert result["arrays"]["c_ptr"] == {"element_type": "f32", "elements": 128 * 128, "bytes": 4 * 128 * 128,
                                         "output": True}
    assert result["ctas"] == 1 and result["ops"]["ptx.mma_sync"] > 0
    assert result["unwritten_elements"] == {"c_ptr": 0}  # every output element written


def test_a_pipeline_given_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """--pipeline alone: the default pipeline's options are not passed beside it (compile refuses them there, and
    qdot-bench had filled in their defaults, so every --pipeline run failed)."""
    import compiler
    from compiler.pipelines import PtxOptions, ptx_pipeline

    pipeline = ptx_pipeline(PtxOptions(arch="sm_90", strategy="auto", num_stages=2))
    status, out, err = qdot_bench([MX, "--pipeline", pipeline, "--shape", "m=128,n=128,k=128", *MX_GRID, "--emulate",
                                   "--json"], capsys)
    assert status == 0, err
    assert json.loads(out)["unwritten_elements"] == {"c_ptr": 0}
    assert compiler.compile(MX, pipeline=pipeline).ptx != compiler.compile(MX).ptx  # 2 stages: another kernel


def test_emulate_runs_nvfp4_on_valid_ue4m3_scales(capsys: pytest.CaptureFixture[str]) -> None:
    """Random ue4m3 bytes would have the MSB set, which the PTX ISA reserves and the emulator refuses:
    the scale pointers, found from the dot_scaled op their loads feed, get 7-bit codes."""
    nvfp4 = str(EXAMPLES / "nvfp4_gemm_e2m1.mlir")
    status, out, err = qdot_bench([nvfp4, "--arch", "sm_120a", "--shape", "m=128,n=128,k=128", *MX_GRID,
                                   "--emulate"], capsys)
    assert status == 0, err
    assert "c_ptr: all 16384 elements written" in out, out


def test_random_codes_keep_the_reserved_bits_zero() -> None:
    """ue4m3 scales (NVFP4) are 7 bits; ue8m0 scales, e4m3 and packed e2m1 use every bit."""
    def run_of(example: str) -> launch_plan.Run:
        path = EXAMPLES / f"{example}.mlir"
        module = parse_module(registry.make_context(), split_chunks(path.read_text(encoding="utf-8"), False)[0],
                              str(path))
        func = launch_plan.find_kernel(module, None)
        params = launch_plan.kernel_parameters(func)
        return launch_plan.plan_run("m=128,n=128,k=1024", func, params, Expressions.parse("--grid", "1", 3), None)

    nvfp4 = run_of("nvfp4_gemm_e2m1")
    assert {a.param: a.code_bits for a in nvfp4.arrays} == {"a_ptr": None, "b_ptr": None, "sa_ptr": 7, "sb_ptr": 7,
                                                            "c_ptr": None}
    arrays = dict(zip((a.param for a in nvfp4.arrays), nvfp4.host_arrays(seed=0, output_fill=None), strict=True))
    assert arrays["sa_ptr"].max() == arrays["sb_ptr"].max() == 0x7F and arrays["a_ptr"].max() == 0xFF
    assert all(a.code_bits is None for a in run_of("mx_gemm_e4m3_e2m1").arrays)


@pytest.mark.parametrize(("element_type", "element_bytes", "view"), [
    ("f32", 4, np.float32), ("f16", 2, np.float16), ("f64", 8, np.float64), ("bf16", 2, None)])
def test_float_inputs_are_uniform_in_minus_one_to_one_unless_bytes_asked(element_type: str, element_bytes: int,
                                                                       view: Any) -> None:
    """Random bytes make most floats tiny, on which a quantizer ran 1.5–2.1 x slower on an H100 (run 283; its
    div.rn.f32 off the fast path, presumably), so floats default to values in [-1, 1] (exponents near 0, as
    activations have); --floats bytes keeps the old fill."""
    spec = launch_plan.ArraySpec("x_ptr", element_type, element_bytes, 5000, output=False, finite=True)
    run = launch_plan.Run({"k": 5000}, (1, 1, 1), (spec,), None)

    def values(floats: str) -> Any:
        raw = run.host_arrays(seed=3, output_fill=None, floats=floats)[0]
        assert raw.dtype == np.uint8 and raw.size == 5000 * element_bytes
        if view is None:  # bf16: the top half of an f32
            return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return raw.view(view)

    uniform = values("uniform")
    assert np.all(np.abs(uniform) <= 1) and (uniform < 0).any() and (uniform > 0).any()
    assert np.median(np.abs(uniform)) > 0.25  # not the bytes fill's tiny values
    assert np.array_equal(values("uniform"), uniform)  # the seed decides
    tiny = values("bytes")
    assert np.all(np.isfinite(tiny)) and np.all(np.abs(tiny) < 2)
    assert np.median(np.abs(tiny)) < 0.01  # every exponent below 2^0 as likely: most values far below 1
    with pytest.raises(ValueError, match="floats must be one of uniform, bytes, got 'normal'"):
        run.host_arrays(seed=0, output_fill=None, floats="normal")


def test_floats_flag_is_reported_and_checked(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [QUANTIZE, "--shape", "m=3,k=1000", "--grid", "cdiv(k,512), m", "--emulate", "--json"]
    for floats in ("uniform", "bytes"):
        status, out, err = qdot_bench([*argv, *(["--floats", floats] if floats == "bytes" else [])], capsys)
        assert status == 0, err
        result = json.loads(out)
        assert result["floats"] == floats and result["unwritten_elements"] == {"q_ptr": 0}, result
    done = subprocess.run([sys.executable, "-m", "compiler.cli.bench", *argv, "--floats", "normal"],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 1 and "argument --floats: invalid choice: 'normal'" in done.stderr, done.stderr


def test_emulate_finds_a_grid_that_misses_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    """The quantizer at M = 3 takes one row per program along y: a grid of one row writes a third."""
    status, out, err = qdot_bench([QUANTIZE, "--shape", "m=3,k=1000", "--grid", "cdiv(k,512), 1", "--emulate"],
                                  capsys)
    assert status == 0, err
    assert "grid=(2,1,1)" in out and "q_ptr: 16 of 24 elements never written" in out, out


def test_emulate_refuses_a_large_grid_unless_ctas_picks_some(capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A grid meant for a GPU (M = 2000 rows of the quantizer, its 8 x 128 tile: 2000 CTAs) would take the
    emulator minutes: refused with what to do, before the compile; --ctas runs the first and the last, where the
    edges are."""
    argv = [QUANTIZE, "--shape", "m=2000,k=1000", "--grid", "cdiv(k,128), cdiv(m,8)", "--emulate"]
    with monkeypatch.context() as patch:
        patch.setattr(bench, "_compile", lambda *_: pytest.fail("compiled before refusing the grid"))
        status, out, err = qdot_bench(argv, capsys)
    assert (status, out) == (1, "")
    assert err == ("qdot-bench: error: grid=(8,250,1) at m=2000,k=1000 has 2000 CTAs, more than --emulate runs "
                   "whole (--max-ctas 1024); pick some with --ctas (e.g. '0,-1', the first and the last), give a "
                   "smaller shape, or raise --max-ctas\n"), err
    status, out, err = qdot_bench([*argv, "--ctas", "0,-1", "--json"], capsys)
    assert status == 0, err
    result = json.loads(out)
    assert (result["ctas"], result["grid_ctas"], result["cta_ids"]) == (2, 2000, [0, 1999])
    assert result["unwritten_elements"] is None  # the CTAs left out write the rest: not counted
    status, out, err = qdot_bench([*argv, "--ctas=-2:,1:3,0"], capsys)  # '=': argparse takes '-2:' for a flag
    assert status == 0, err
    assert "emulated: 5 CTAs of 2000" in out and "outputs not counted (--ctas ran part of the grid)" in out, out


def test_arrays_past_half_the_available_memory_are_refused(capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the input fuzz (seed 308): arrays of 19 GB on a 23 GB machine were allocated (Linux overcommits)
    and the random bytes then got the process killed. The plan's total is held to half the available memory."""
    argv = [QUANTIZE, "--shape", "m=3,k=1000", "--grid", "cdiv(k,512), m", "--emulate"]
    monkeypatch.setattr(launch_plan, "available_host_bytes", lambda: 20_000)
    status, out, err = qdot_bench(argv, capsys)
    assert (status, out) == (1, "")
    assert err == ("qdot-bench: error: the arrays at m=3,k=1000 take 15456 bytes in all, more than half of this "
                   "machine's available memory (20000 bytes): give a smaller shape\n"), err
    monkeypatch.setattr(launch_plan, "available_host_bytes", lambda: 2 * 15456)  # exactly half: taken
    status, out, err = qdot_bench(argv, capsys)
    assert status == 0 and "q_ptr: all 24 elements written" in out, (out, err)
    monkeypatch.setattr(launch_plan, "available_host_bytes", lambda: None)  # a machine that cannot say: no check
    assert qdot_bench(argv, capsys)[0] == 0


def test_emulator_state_past_the_available_memory_is_refused(capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the input fuzz (seed 326): an 8 GiB output, within half the available memory, grew the process past
    19 GB in a minute under --emulate (its two fills, their comparison, the emulator's int64 owner per stored byte).
    The inputs and 12 bytes per output byte (two fills and their comparison, the emulator's 9 bytes of ownership
    state) are held to the available memory, before the compile; a GPU run keeps the half-memory rule of the arrays
    alone."""
    argv = [QUANTIZE, "--shape", "m=3,k=1000", "--grid", "cdiv(k,512), m", "--emulate"]
    needed = 12000 + 12 * 3456  # x: 3 × 1000 f32; q: 3 × 8 blocks of 144 bytes
    monkeypatch.setattr(bench, "available_host_bytes", lambda: needed - 1)
    with monkeypatch.context() as patch:
        patch.setattr(bench, "_compile", lambda *_: pytest.fail("compiled before refusing the shape"))
        status, out, err = qdot_bench(argv, capsys)
    assert (status, out) == (1, "")
    assert err == (f"qdot-bench: error: --emulate at m=3,k=1000 would hold about {needed} bytes (3456 bytes of "
                   "outputs at 12 bytes each while emulated, and 12000 of "
                   f"inputs), more than this machine's available memory ({needed - 1} bytes): give a smaller "
                   "shape\n"), err
    monkeypatch.setattr(bench, "available_host_bytes", lambda: needed)  # exactly what it needs: taken
    status, out, err = qdot_bench(argv, capsys)
    assert status == 0 and "q_ptr: all 24 elements written" in out, (out, err)
    monkeypatch.setattr(bench, "available_host_bytes", lambda: None)  # a machine that cannot say: no check
    assert qdot_bench(argv, capsys)[0] == 0


def test_available_memory_is_linux_memavailable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "meminfo"
    fake.write_text("MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   23346976 kB\n")
    real_open = open
    monkeypatch.setattr("builtins.open", lambda path, *args, **kwargs: real_open(
        fake if path == "/proc/meminfo" else path, *args, **kwargs))
    assert launch_plan.available_host_bytes() == 23346976 * 1024
    fake.write_text("MemTotal: 1 kB\n")  # no MemAvailable line (kernels before 3.14): no check
    assert launch_plan.available_host_bytes() is None


def test_max_ctas_sets_the_largest_grid_run_whole(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [QUANTIZE, "--shape", "m=3,k=1000", "--grid", "cdiv(k,512), m", "--emulate"]
    status, out, err = qdot_bench([*argv, "--max-ctas", "5"], capsys)
    assert status == 1 and "has 6 CTAs, more than --emulate runs whole (--max-ctas 5)" in err, err
    status, out, err = qdot_bench([*argv, "--max-ctas", "6"], capsys)
    assert status == 0 and "emulated: 6 CTAs," in out and "q_ptr: all 24 elements written" in out, (out, err)
    status, out, err = qdot_bench([*argv, "--ctas=-3:,0:3"], capsys)  # every CTA picked: the whole grid, counted
    assert status == 0 and "emulated: 6 CTAs," in out and "q_ptr: all 24 elements written" in out, (out, err)


@pytest.mark.parametrize(("flags", "message"), [
    (["--ctas", "6"], "--ctas: CTA 6 is outside grid=(2,3,1) at m=3,k=1000 (6 CTAs: ids 0 to 5, or -6 to -1 from "
                      "the end)"),
    (["--ctas", "-7"], "--ctas: CTA -7 is outside grid=(2,3,1)"),
    (["--ctas", "6:"], "--ctas '6:' picks no CTA of grid=(2,3,1) at m=3,k=1000 (6 CTAs)"),
    (["--ctas", "0,one"], "--ctas '0,one': 'one' is not a CTA id or a slice START:STOP"),
    (["--ctas", "1:2:3"], "--ctas '1:2:3': '1:2:3' is not a CTA id or a slice START:STOP"),
    (["--max-ctas", "0"], "--max-ctas must be at least 1, got 0"),
    (["--ctas", "0:", "--max-ctas", "5"], "--ctas '0:' picks 6 CTAs of grid=(2,3,1) at m=3,k=1000, more than "
                                         "--emulate runs (--max-ctas 5)"),  # a slice was built whole, unbounded
    (["--ctas", "0:3,3:", "--max-ctas", "5"], "--ctas '0:3,3:' picks more than 5 CTAs of grid=(2,3,1)"),
])
def test_ctas_are_checked_against_the_grid(flags: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = qdot_bench([QUANTIZE, "--shape", "m=3,k=1000", "--grid", "cdiv(k,512), m", "--emulate",
                                   *flags], capsys)
    assert (status, out) == (1, "") and err.startswith("qdot-bench: error: ") and message in err, err


def test_ctas_and_max_ctas_apply_to_the_emulator_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = qdot_bench([QUANTIZE, "--shape", "m=3,k=1000", "--grid", "2, m", "--ctas", "0"], capsys)
    assert (status, out) == (1, "")
    assert err == "qdot-bench: error: --ctas picks the CTAs --emulate runs; a GPU launch runs the whole grid\n"
    status, out, err = qdot_bench([QUANTIZE, "--shape", "m=3,k=1000", "--grid", "2, m", "--max-ctas", "9"], capsys)
    assert (status, out) == (1, "")
    assert err == "qdot-bench: error: --max-ctas bounds the grid --emulate runs; a GPU launch runs any grid\n"


def test_without_a_gpu_it_compiles_then_refuses_to_time(capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from targets.ptx import runner

    def no_gpu() -> None:
        raise runner.GpuUnavailable("no CUDA device")

    monkeypatch.setattr(runner, "require_cupy", no_gpu)
    status, out, err = qdot_bench([MX, *MX_SHAPE, *MX_GRID], capsys)
    assert (status, out) == (1, "")
    assert err == "qdot-bench: error: cannot time on a GPU: no CUDA device (--emulate runs the kernel on the CPU " \
                  "emulator instead)\n"
    # a compile error comes first, GPU or not
    status, out, err = qdot_bench([MX, "--strategy", "native", *MX_SHAPE, *MX_GRID], capsys)
    assert status == 1 and "mx_gemm_e4m3_e2m1.mlir:" in err and "error:" in err and "GPU" not in err, err


def test_time_launch_has_one_definition() -> None:
    """bench/ and qdot-bench time with the same functions (their behaviour: tests/api/test_timing.py)."""
    import bench.gpu_common
    from targets.ptx.timing import time_graph, time_launch

    assert bench.gpu_common.time_launch is time_launch and bench.gpu_common.time_graph is time_graph


@pytest.mark.parametrize(("flags", "message"), [
    (["--num-stages", "100"], "--num-stages must be an integer from 1 (no pipelining) to 16, got 100"),
    (["--seed", "-5"], "--seed must not be negative, got -5"),
    (["--strategy", "native", "--pipeline", "cse"], "--strategy sets the default pipeline's options"),
    (["--pipeline", "qdot-accelerate-matmul{arch=sm_120a},qdot-to-llvm"],
     "the pipeline's passes run for different archs (sm_120a, sm_90)"),
    (["--arch", "sm_90", "--pipeline", "qdot-to-llvm{arch=sm_120a}"],
     "--arch sm_90 and the pipeline's arch=sm_120a disagree"),
    (["--pipeline", "xyzzy", "--pipeline", "cse"], "--pipeline may be given once"),  # the last won in silence
    (["--reps", "5"], "--reps times GPU launches; --emulate runs the kernel once on the CPU"),  # were ignored
    (["--timing", "events", "--warmup", "0"], "--timing and --warmup time GPU launches; --emulate runs"),
    (["--seed", "\u0663"], "argument --seed: '\u0663' is not an integer (digits 0-9)"),  # int() reads Arabic-Indic 3
])
def test_pipeline_flags_are_checked_as_qdot_translate_checks_them(flags: list[str], message: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = qdot_bench([MX, *MX_SHAPE, *MX_GRID, *flags, "--emulate"], capsys)
    assert (status, out) == (1, "") and err.startswith("qdot-bench: error: ") and message in err, err



def test_a_sign_extended_flag_is_minus_one_when_sizing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """arith.extsi (and index_cast) of an i1 sign-extends: true is -1 on the GPU, so a size n + ext(n == n) is
    n - 1 elements, not n + 1 (found reviewing the evaluator); extui keeps it 1."""
    def elements(cast: str) -> int:
        kernel = tmp_path / f"{cast}.mlir"
        kernel.write_text(f"""
func.func @k(%out: !qdot.ptr<f32>, %n: index) attributes {{qdot.kernel, qdot.num_warps = 1 : i64}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.cmpi eq, %n, %n : index
  %w = arith.{cast} %b : i1 to i64
  %e = arith.index_cast %w : i64 to index
  %s = arith.addi %n, %e : index
  %d = qdot.make_desc %out, [%s, %c1], [%c1, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1xf32>
  %z = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
  qdot.store %d[%c0, %c0], %z : !qdot.desc<1x1xf32>, tensor<1x1xf32>
  func.return
}}
""", encoding="utf-8")
        status, out, err = qdot_bench([str(kernel), "--shape", "n=10", "--grid", "1", "--emulate", "--json"], capsys)
        assert status == 0, err
        return int(json.loads(out)["arrays"]["out"]["elements"])

    assert elements("extsi") == 9
    assert elements("extui") == 11


def test_emulate_out_of_host_memory_is_a_diagnostic(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Input fuzz seed 316: m = 2^31 rows of the store-pairs kernel's C (8 GiB) let the emulator's per-byte
    ownership map (8 bytes a byte) raise MemoryError, a traceback. Now a diagnostic naming the run and the arrays;
    simulated here, where the real case would take the machine's memory."""
    import compiler

    def out_of_memory(*_args: object, **_kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(compiler, "emulate", out_of_memory)
    status, out, err = qdot_bench([MX, "--arch", "sm_90", "--shape", "m=128,n=128,k=128", *MX_GRID, "--emulate"],
                                  capsys)
    assert (status, out) == (1, "")
    assert err.startswith("qdot-bench: error: the emulator ran out of host memory at m=128,n=128,k=128 grid=(1,1,1): "
                          "it keeps several bytes of state per byte of its arrays' "), err
    assert err.endswith(" bytes; give a smaller shape\n"), err
