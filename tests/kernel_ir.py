"""A writer of LLVM-ready kernel IR text (func / arith / cf / ptx), without xDSL.

`KernelText` only numbers SSA values and joins lines; what each line means is written out by
the test that uses it, in IR, so the IR under test stays visible. It imports nothing of the
compiler, so the GPU tests (whose machine has no xDSL) can build the same kernels and find their
PTX in the kernel cache; tests/emulator/kernel_text.py parses and emulates them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


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
