"""A global tile copied into a swizzled shared buffer and read back out (``qgpu.async_copy``, ``qgpu.local_load``,
``qdot.store``) is the tile again, on the emulator, fresh seeded inputs into a poisoned output.

Found by a review: where the swizzle moves runs shorter than 16 bytes (``vec`` × element bytes: 8 for bf16 with
vec = 4, 1 for i8 with vec = 1), qdot-to-llvm still copied 16-byte chunks, each by one cp.async to where its first
byte goes, so the rest of the chunk landed in the wrong place (the emulator refused the misaligned destination;
ptxas took it). The chunk is now at most one swizzle run (tests/lit/qdot-to-llvm/swizzled-copies.mlir has the
choice)."""

from __future__ import annotations

import numpy as np
import pytest

from compiler import registry
from compiler.cli.common import build_pipeline, parse_module, split_chunks
from targets.ptx.emulator import emulate

_KERNEL = """
#sh = #qgpu.shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = [1, 0]}}>
#enc = #qgpu.dot_op<{{opIdx = 0, parent = #qgpu.mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1],
    instrShape = [16, 8]}}>, kWidth = {k_width}}}>
func.func @k(%a_ptr: !qdot.ptr<{t}>, %y_ptr: !qdot.ptr<{t}>, %m: index {{qdot.divisibility = 16 : i64}},
             %k: index {{qdot.divisibility = 16 : i64}}) attributes {{qdot.kernel, qdot.num_warps = 1 : i64}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<{t}> -> !qdot.desc<{r}x{c}x{t}>
  %y = qdot.make_desc %y_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<{t}> -> !qdot.desc<{r}x{c}x{t}>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<{r}x{c}x{t}, #sh, mutable>
  qgpu.async_copy %a[%c0, %c0], %buf : !qdot.desc<{r}x{c}x{t}>, !qgpu.memdesc<{r}x{c}x{t}, #sh, mutable>
  qgpu.async_commit
  qgpu.async_wait {{pending = 0}}
  %v = qgpu.local_load %buf : !qgpu.memdesc<{r}x{c}x{t}, #sh, mutable> -> tensor<{r}x{c}x{t}, #enc>
  qdot.store %y[%c0, %c0], %v : !qdot.desc<{r}x{c}x{t}>, tensor<{r}x{c}x{t}, #enc>
  func.return
}}
"""

CASES = [  # element type, numpy view, vec, perPhase, maxPhase, kWidth, rows, columns
    ("bf16", np.uint16, 4, 2, 8, 2, 64, 64),  # 8-byte runs
    ("bf16", np.uint16, 8, 1, 8, 2, 64, 64),  # 16-byte runs: 16-byte chunks as before
    ("i8", np.int8, 8, 2, 4, 4, 32, 64),  # 8-byte runs
    ("i8", np.int8, 4, 1, 8, 4, 32, 64),  # 4-byte runs
    ("i8", np.int8, 1, 2, 4, 4, 32, 64),  # 1-byte runs: no cp.async
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-vec{c[2]}-phase{c[4]}" for c in CASES])
def test_a_tile_copied_through_a_swizzled_buffer_comes_back(case: tuple) -> None:
    t, view, vec, per_phase, max_phase, k_width, rows, cols = case
    text = _KERNEL.format(t=t, vec=vec, per_phase=per_phase, max_phase=max_phase, k_width=k_width, r=rows, c=cols)
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks(text, False)[0], "swizzled.mlir")
    build_pipeline(registry.pass_factories(), "qdot-lower-local-load{arch=sm_90},qdot-to-llvm{arch=sm_90}").apply(
        ctx, module)
    info = np.iinfo(view)
    a = np.random.default_rng(vec * 100 + max_phase).integers(info.min, info.max, size=(rows, cols), dtype=view)
    y = np.full_like(a, 0x5A)
    emulate(module, "k", [a, y, rows, cols], 1)
    np.testing.assert_array_equal(y, a)
