"""``compiler.compile`` refuses a bad argument by name before compiling anything; an unknown
target used to return an empty artifact."""

from __future__ import annotations

from pathlib import Path

import pytest

import compiler

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "int8_gemm.mlir"


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"target": "mlir"}, ValueError, "unknown target 'mlir'; expected one of llvm, ptx, cubin, sass, agx3b, agx3c"),
    ({"arch": "sm_99"}, ValueError, "unknown arch 'sm_99'"),
    ({"strategy": "fastest"}, ValueError, "unknown strategy 'fastest'"),
    ({"num_stages": 0}, ValueError, "num_stages must be an integer from 1 (no pipelining) to 16, got 0"),
    ({"num_stages": 17}, ValueError, "num_stages must be an integer from 1 (no pipelining) to 16, got 17"),
    ({"num_stages": True}, ValueError, "num_stages must be an integer from 1 (no pipelining) to 16, got True"),
    ({"pipeline": "qdot-accelerate-matmul{arch=sm_120a},qdot-to-llvm"}, ValueError,
     "the pipeline's passes run for different archs (sm_120a, sm_90)"),
    ({"pipeline": "qdot-to-llvm{arch=sm_120a}", "arch": "sm_90"}, ValueError,
     "arch=sm_90 and the pipeline's arch=sm_120a disagree"),
    ({"pipeline": ["qdot-to-llvm"]}, TypeError, "pipeline must be a pass pipeline string or None, got list"),
])
def test_bad_argument_is_named(kwargs, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        compiler.compile(EXAMPLE, **kwargs)


@pytest.mark.parametrize("source", [None, b"func.func @f() { func.return }"])
def test_source_must_be_text_or_path(source):
    with pytest.raises(TypeError, match="source must be IR text"):
        compiler.compile(source)


def test_unknown_kernel_name_lists_the_kernels():
    kernel = compiler.compile(EXAMPLE, target="llvm")
    with pytest.raises(ValueError, match="no kernel named 'gemm'; the module's kernels are gemm_i8_i8_noscale"):
        kernel.launch(grid=(1, 1), kernel="gemm")


def test_agx_target_refuses_the_ptx_arch():
    """An arch configures the NVIDIA pipeline; beside an AGX target it was ignored in silence (as the CLI refuses
    --arch with --target agx3b, so does compile)."""
    source = (EXAMPLE.parent / "agx_tile_fp16.mlir").read_text(encoding="utf-8")
    assert compiler.compile(source, target="agx3b").data
    with pytest.raises(ValueError, match="arch configures the NVIDIA pipeline; it does not apply to target='agx3b'"):
        compiler.compile(source, target="agx3b", arch="sm_90")


def test_the_arch_comes_from_the_pipeline_when_not_given():
    pipeline = ("qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_120a},qdot-optimize-dot-operands,qdot-pipeline,"
                "qdot-lower-local-load{arch=sm_120a},qdot-lower-mma,qdot-to-llvm{arch=sm_120a}")
    kernel = compiler.compile(EXAMPLE, pipeline=pipeline)
    assert kernel.artifact.arch == "sm_120a" and ".target sm_120a" in kernel.ptx
