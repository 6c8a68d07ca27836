"""Hand-written test kernels: parsing and emulating what `tests.kernel_ir.KernelText` writes.

The unit tests build small kernels in the same dialects the PTX pipeline emits
(func / arith / cf / ptx) with `KernelText` (re-exported here), parse them with the project's
context, and emulate them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from compiler import registry
from compiler.cli.common import parse_module, split_chunks
from targets.ptx.emulator import LaunchOptions, RunStats, emulate
from tests.kernel_ir import KernelText

__all__ = ["KernelText", "elementwise", "fill_shared", "parse", "run"]


def parse(text: str):  # noqa: ANN201 - xDSL ModuleOp
    ctx = registry.make_context()
    return parse_module(ctx, split_chunks(text, False)[0], "test.mlir")


def run(kernel: KernelText, args: Sequence[np.ndarray | int], grid: int = 1,
        options: LaunchOptions | None = None) -> RunStats:
    return emulate(parse(kernel.text()), kernel.name, args, grid, 32 * kernel.num_warps, options)


def fill_shared(k: KernelText, source: str, nbytes: int) -> None:
    """Copy `nbytes` (a multiple of 16 · threads) of global `source` into shared memory at 0, then bar.sync."""
    threads = 32 * k.num_warps
    assert nbytes % (16 * threads) == 0
    for j in range(nbytes // (16 * threads)):
        off = k.binop("addi", k.binop("muli", k.tid, 16), 16 * threads * j)
        value = k.load(source, off, "vector<4xi32>")
        k.op(f"ptx.st_shared {off}, {value} : vector<4xi32>", results=0)
    k.op("ptx.bar_sync", results=0)


Body = Callable[[KernelText, list[str]], str]


def elementwise(inputs: Sequence[np.ndarray], in_types: Sequence[str], out_type: str, out_dtype: np.dtype,
                body: Body) -> np.ndarray:
    """out[i] = body(inputs[*][i]) for every i (a multiple of 32), one thread per element.

    Inputs are 1-D (scalars) or [n, 2] (two-element vectors); so is the output (`out_type`)."""
    n = len(inputs[0])
    k = KernelText([f"in{j}" for j in range(len(inputs))] + ["out"])
    values = []
    for j, type_ in enumerate(in_types):
        size = np.dtype(inputs[j].dtype).itemsize * (inputs[j].shape[1] if inputs[j].ndim > 1 else 1)
        values.append(k.load(f"in{j}", k.per_thread(size), type_))
    result = body(k, values)
    out = np.zeros(n, dtype=out_dtype) if "vector" not in out_type else np.zeros((n, 2), dtype=out_dtype)
    k.store("out", k.per_thread(out.itemsize * (2 if out.ndim > 1 else 1)), result, out_type)
    run(k, [np.ascontiguousarray(x) for x in inputs] + [out], grid=n // 32)
    return out
