"""Hand-written test kernels: a tiny writer of LLVM-ready IR text, and a launcher.

The unit tests build small kernels in the same dialects the PTX pipeline emits
(func / arith / cf / ptx), parse them with the project's context, and emulate them.
`KernelText` only numbers SSA values and joins lines; what each line means is
written out in the test, in IR, so the IR under test stays visible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from compiler import registry
from compiler.cli.common import parse_module, split_chunks
from targets.ptx.emulator import LaunchOptions, RunStats, emulate


@dataclass
class KernelText:
    """Lines of one kernel. Pointer parameters are i64, scalars i32; `tid`/`lane`/`warp` are ready."""

    pointers: Sequence[str]
    scalars: Sequence[str] = ()
    num_warps: int = 1
    shared_bytes: int = 0
    name: str = "k"
    lines: list[str] = field(default_factory=list)
    _count: int = 0

    def __post_init__(self) -> None:
        self.tid = self.op("ptx.special_reg tid.x")
        self.lane = self.op("ptx.special_reg laneid")
        self.warp = self.op(f"arith.shrui {self.tid}, {self.const(5)} : i32")

    def fresh(self) -> str:
        self._count += 1
        return f"%v{self._count}"

    def op(self, text: str, results: int = 1) -> str:
        """Emit `text` with `results` results; returns the name (``%vN``; ``%vN#i`` to index)."""
        if results == 0:
            self.lines.append(text)
            return ""
        name = self.fresh()
        self.lines.append(f"{name}{':' + str(results) if results > 1 else ''} = {text}")
        return name

    def const(self, value: int | float, type_: str = "i32") -> str:
        return self.op(f"arith.constant {value} : {type_}")

    def binop(self, name: str, a: str, b: str | int, type_: str = "i32") -> str:
        if isinstance(b, int):
            b = self.const(b, type_)
        return self.op(f"arith.{name} {a}, {b} : {type_}")

    def address(self, pointer: str, byte_offset: str) -> str:
        """i64 address ``%pointer + zext(byte_offset)`` (byte_offset an i32)."""
        wide = self.op(f"arith.extui {byte_offset} : i32 to i64")
        return self.op(f"arith.addi %{pointer}, {wide} : i64")

    def load(self, pointer: str, byte_offset: str, type_: str = "i32") -> str:
        return self.op(f"ptx.ld_global {self.address(pointer, byte_offset)} : {type_}")

    def store(self, pointer: str, byte_offset: str, value: str, type_: str = "i32") -> None:
        self.op(f"ptx.st_global {self.address(pointer, byte_offset)}, {value} : {type_}", results=0)

    def per_thread(self, stride: int) -> str:
        """i32 byte offset ``stride * (ctaid.x * ntid.x + tid.x)``: one slot per thread of the grid."""
        cta = self.op("ptx.special_reg ctaid.x")
        ntid = self.op("ptx.special_reg ntid.x")
        gid = self.binop("addi", self.binop("muli", cta, ntid), self.tid)
        return self.binop("muli", gid, stride)

    def text(self) -> str:
        params = [f"%{p}: i64" for p in self.pointers] + [f"%{s}: i32" for s in self.scalars]
        kinds = ", ".join(['"ptr"'] * len(self.pointers) + ['"i32"'] * len(self.scalars))
        body = "\n".join(f"    {line}" for line in self.lines)
        return (f"builtin.module {{\n  func.func @{self.name}({', '.join(params)}) attributes {{qdot.kernel, "
                f"qdot.num_warps = {self.num_warps} : i64, qdot.shared_bytes = {self.shared_bytes} : i64, "
                f"qdot.arg_kinds = [{kinds}]}} {{\n{body}\n    func.return\n  }}\n}}\n")


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
