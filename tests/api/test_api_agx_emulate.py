"""``compiler.emulate`` runs an AGX artifact end to end: compile the example for agx3b / agx3c,
emulate the encoded stream on the AGX emulator, compare with numpy. It used to refuse (the AGX
artifact kept no module), and ``targets.agx.run.emulate`` on that missing module died with an
AttributeError; now a wrong argument gets a message that says what to pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import compiler
from compiler import numerics
from targets.agx import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agx_tile_fp16.mlir"


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a [8, 16] fp16, b [16, 16] fp16, acc [8, 16] f32, as @tile takes them; quarter-integers keep
    every product and sum exact, so any summation order gives the same float32."""
    rng = np.random.default_rng(seed)
    a = (rng.integers(-16, 17, (8, 16)) / 4).astype(np.float16)
    b = (rng.integers(-16, 17, (16, 16)) / 4).astype(np.float16)
    acc = (rng.integers(-64, 65, (8, 16)) / 8).astype(np.float32)
    return a, b, acc


@pytest.mark.parametrize("form", ["agx3b", "agx3c"])
def test_emulate_agx_example_matches_numpy(form: str) -> None:
    kernel = compiler.compile(EXAMPLE, target=form)
    a, b, acc = _inputs(seed=3)
    d = compiler.emulate(kernel, a, b, acc)
    want = a.astype(np.float64) @ b.astype(np.float64) + acc
    assert d.dtype == np.float32 and d.shape == (8, 16)
    assert np.any(want != 0)
    assert np.array_equal(d, want.astype(np.float32))
    assert np.array_equal(d, numerics.dot_scaled(a=a, b=b, acc=acc, lhs="fp16", rhs="fp16"))
    # the documented lower-level path gives the same, from the module or the compiled kernel
    assert np.array_equal(run.emulate(kernel.lowered, form, [a, b, acc]), d)
    assert np.array_equal(run.emulate(kernel, form, [a, b, acc], function="tile"), d)


def test_emulate_agx_inputs_are_checked() -> None:
    kernel = compiler.compile(EXAMPLE, target="agx3b")
    a, b, acc = _inputs(seed=4)
    with pytest.raises(ValueError, match=r"@tile takes 3 inputs \(%a, %b, %acc\), got 2"):
        compiler.emulate(kernel, a, b)
    with pytest.raises(ValueError, match=r"input 1 \(%b\) has shape \[8, 16\], the argument is tensor<16x16xf16>"):
        compiler.emulate(kernel, a, a, acc)
    with pytest.raises(ValueError, match="no AGX tile function named 'gemm'; the module's tiles are tile"):
        compiler.emulate(kernel, a, b, acc, name="gemm")
    with pytest.raises(ValueError, match="an agx3b artifact has no PTX kernel to emulate on a grid.*without grid"):
        compiler.emulate(kernel, a, b, acc, grid=(1, 1, 1))
    with pytest.raises(ValueError, match="an agx3b artifact has no grid of CTAs to choose from: ctas= picks"):
        compiler.emulate(kernel, a, b, acc, ctas=[0])


@pytest.mark.parametrize("module", [None, "examples/agx_tile_fp16.mlir"])
def test_agx_run_emulate_says_what_to_pass(module: object) -> None:
    a, b, acc = _inputs(seed=5)
    with pytest.raises(TypeError, match=r"emulate runs an AGX tile module, got (NoneType|None|str); pass the module "
                                        r"the AGX pipeline lowered: compiler\.compile\(source, target=form\)\.lowered"):
        run.emulate(module, "agx3b", [a, b, acc])  # type: ignore[arg-type]


def test_agx_run_emulate_refuses_an_unlowered_module() -> None:
    from targets.agx.tiles import compile_ir

    module = compile_ir(EXAMPLE.read_text(encoding="utf-8"), "")
    with pytest.raises(ValueError, match=r"no lowered AGX tile \(no agx\.mma8\); pass the module"):
        run.emulate(module, "agx3b", list(_inputs(seed=6)))


def test_emulate_refuses_what_is_not_a_compiled_kernel() -> None:
    with pytest.raises(TypeError, match="emulate takes the CompiledKernel that compiler.compile returns, got str"):
        compiler.emulate("examples/agx_tile_fp16.mlir")  # type: ignore[arg-type]


def test_ptx_emulate_still_needs_a_grid() -> None:
    kernel = compiler.compile(EXAMPLE.with_name("int8_gemm.mlir"), target="llvm")
    with pytest.raises(TypeError, match="emulate\\(\\) of a PTX kernel needs grid="):
        compiler.emulate(kernel)


@pytest.mark.parametrize(("index", "replace", "message"), [
    (0, lambda a: a.view(np.uint16), r"input 0 \(%a\) is the lhs operand fp16: pass a numpy array of dtype float16 "
                                     r"\(compiler.numerics.dot_scaled's conventions\), got uint16"),
    (0, lambda a: a.astype(np.float32), r"input 0 \(%a\) is the lhs operand fp16: .* got float32"),
    (1, lambda b: b.tolist(), r"input 1 \(%b\) is the rhs operand fp16: .* got list"),
    (2, lambda acc: acc.astype(np.float64), r"input 2 \(%acc\) is the acc \(fp32\): pass a numpy array of dtype "
                                            r"float32 .* got float64"),
])
def test_emulate_agx_refuses_what_dot_scaled_refuses(index: int, replace: object, message: str) -> None:
    """uint16 codes for an fp16 operand were read as numbers, float32 values rounded to fp16 in silence:
    a D that looks like a dot and is not this one."""
    kernel = compiler.compile(EXAMPLE, target="agx3b")
    inputs = list(_inputs(seed=7))
    inputs[index] = replace(inputs[index])  # type: ignore[operator]
    with pytest.raises(ValueError, match=r"^@tile: " + message):
        compiler.emulate(kernel, *inputs)
    if index < 2:  # dot_scaled refuses the operands too (it takes any acc it can make float64)
        a, b, _ = inputs
        with pytest.raises(ValueError, match="operand must have dtype float16"):
            numerics.dot_scaled(a=a, b=b, lhs="fp16", rhs="fp16")
