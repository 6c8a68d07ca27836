"""The op table: for every op a kernel may contain, the function that executes it on a CTA.

`handler(op)` is called once per op when a kernel is prepared; it reads the op's
properties and types and returns ``fn(cta, *operands)``, which returns the result
array, a tuple of them (multi-result ops) or None. Semantics live in `alu`, `ldmatrix`,
`mma`, `wgmma` and `arith_ops`; this module only binds them to the IR. `async_roles` tells
program.py which operands of an op may hold a not-yet-retired wgmma result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Operation

from dialects.ptx.attrs import SpecialReg
from dialects.ptx.base import int_value
from dialects.ptx.ops import (
    AtomGlobalAddOp,
    BarRedOrOp,
    BarSyncOp,
    BitcastOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
    CvtOp,
    FenceAcqRelGpuOp,
    FenceProxyAsyncOp,
    FmaRnBf16x2Op,
    GridDepLaunchDependentsOp,
    GridDepWaitOp,
    LdGlobalOp,
    LdmatrixOp,
    LdSharedOp,
    Lop3Op,
    MmaSyncOp,
    MulRnBf16x2Op,
    PackOp,
    UnpackOp,
    PrmtOp,
    ShflSyncOp,
    SpecialRegOp,
    PrefetchGlobalL2Op,
    RedGlobalAddOp,
    StGlobalOp,
    StSharedOp,
    WgmmaCommitOp,
    WgmmaFenceOp,
    WgmmaOp,
    WgmmaWaitOp,
)
from targets.ptx.emulator import alu
from targets.ptx.emulator.arith_ops import arith_handler
from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.ldmatrix import LdmatrixForm, gather, source_table
from targets.ptx.emulator.mma import MmaPlan, mma
from targets.ptx.emulator.state import CtaState
from targets.ptx.emulator.values import Kind, from_bytes, reg_type, to_bytes
from targets.ptx.emulator.wgmma import WgmmaPlan

Handler = Callable[..., Any]


def _special_reg(op: SpecialRegOp) -> Handler:
    reg = op.reg.data

    def read(cta: CtaState) -> np.ndarray:
        tid = cta.tid
        value: np.ndarray | int = {
            SpecialReg.TID_X: tid, SpecialReg.LANEID: tid % 32, SpecialReg.WARPID: tid // 32,
            SpecialReg.NTID_X: cta.threads, SpecialReg.NTID_Y: 1, SpecialReg.NTID_Z: 1,
            SpecialReg.CTAID_X: cta.ctaid[0], SpecialReg.CTAID_Y: cta.ctaid[1], SpecialReg.CTAID_Z: cta.ctaid[2],
            SpecialReg.NCTAID_X: cta.dims[0], SpecialReg.NCTAID_Y: cta.dims[1], SpecialReg.NCTAID_Z: cta.dims[2],
        }.get(reg, 0)
        return np.broadcast_to(np.asarray(value, dtype=np.uint32), (cta.threads,)).copy()
    return read


def _ldmatrix(op: LdmatrixOp) -> Handler:
    form = LdmatrixForm(*op.form)
    table = source_table(form)

    def run(cta: CtaState, offsets: np.ndarray) -> tuple[np.ndarray, ...]:
        warps = cta.warps
        supplying = offsets.reshape(warps, 32)[:, :form.rows].reshape(-1)
        lanes = (np.arange(warps)[:, None] * 32 + np.arange(form.rows)[None, :]).reshape(-1)
        raw = cta.shared.load(supplying, 16, lanes, what=op.ptx_mnemonic(), consumed=form.consumed_bytes)
        regs = gather(form, raw.reshape(warps, form.rows, 16), table)
        return tuple(r.reshape(-1) for r in regs)
    return run


def _ld_shared(op: LdSharedOp) -> Handler:
    rt = reg_type(op.res.type)
    size = rt.byte_size
    return lambda cta, off: from_bytes(cta.shared.load(off, size, cta.tid), rt)


def _st_shared(op: StSharedOp) -> Handler:
    rt = reg_type(op.value.type)

    def run(cta: CtaState, off: np.ndarray, value: np.ndarray) -> None:
        cta.shared.store(off, to_bytes(value, rt), cta.tid)
    return run


def _active(cta: CtaState, predicate: np.ndarray | None) -> np.ndarray:
    return cta.tid if predicate is None else np.flatnonzero(predicate)


def _ld_global(op: LdGlobalOp) -> Handler:
    rt = reg_type(op.res.type)
    size = rt.byte_size
    predicated = op.predicate is not None

    def run(cta: CtaState, address: np.ndarray, predicate: np.ndarray | None = None) -> np.ndarray:
        active = _active(cta, predicate)
        data = np.zeros((cta.threads, size), dtype=np.uint8)
        if active.size:
            data[active] = cta.memory.load(address[active], size, active, what=op.ptx_mnemonic())
        return from_bytes(data, rt)
    return run if predicated else (lambda cta, address: run(cta, address))


def _st_global(op: StGlobalOp) -> Handler:
    rt = reg_type(op.value.type)

    def run(cta: CtaState, address: np.ndarray, value: np.ndarray, predicate: np.ndarray | None = None) -> None:
        active = _active(cta, predicate)
        if active.size:
            cta.memory.store(address[active], to_bytes(value, rt)[active], active, cta.cta)
    return run


def _red_global_add(op: RedGlobalAddOp) -> Handler:
    def run(cta: CtaState, address: np.ndarray, value: np.ndarray, predicate: np.ndarray | None = None) -> None:
        active = _active(cta, predicate)
        if active.size:
            cta.memory.atomic_add_f32(address[active], value[active], active)
    return run


def _atom_global_add(op: AtomGlobalAddOp) -> Handler:
    def run(cta: CtaState, address: np.ndarray, value: np.ndarray, predicate: np.ndarray | None = None) -> np.ndarray:
        active = _active(cta, predicate)
        old = np.zeros(cta.threads, dtype=np.uint32)
        if active.size:
            old[active] = cta.memory.atomic_add_u32(address[active], value[active], active)
        return old
    return run


def _bar_red_or(op: BarRedOrOp) -> Handler:
    """A barrier (the race checks' epoch ends, as at ``bar.sync``) whose result is every thread's OR."""
    def run(cta: CtaState, predicate: np.ndarray) -> np.ndarray:
        cta.shared.barrier()
        return np.full(cta.threads, bool(predicate.any()))
    return run


def _prefetch_global_l2(op: PrefetchGlobalL2Op) -> Handler:
    """A hint the emulator has no cache for; but an address outside every argument array is an
    error (the lowering's bounds), as a load's would be."""
    def run(cta: CtaState, address: np.ndarray, predicate: np.ndarray | None = None) -> None:
        active = _active(cta, predicate)
        if active.size:
            cta.memory.check_addresses(address[active], active, "prefetch.global.L2")
    return run


def _cp_async(op: CpAsyncOp) -> Handler:
    """The copy; its L2 prefetch-size hint (``l2_prefetch``) tells L2 how much to fetch and
    changes no value, so it is ignored."""
    size = op.size.value.data

    def run(cta: CtaState, dst: np.ndarray, src: np.ndarray, src_size: np.ndarray | None = None) -> None:
        tid = cta.tid
        data = np.zeros((cta.threads, size), dtype=np.uint8)
        sizes = np.full(cta.threads, size, dtype=np.int64) if src_size is None else src_size.astype(np.int64)
        if (sizes > size).any():
            i = int(np.flatnonzero(sizes > size)[0])
            raise EmulationError(f"cp.async src-size {int(sizes[i])} exceeds cp-size {size} (thread {i})")
        for n in np.unique(sizes):
            n = int(n)
            if n == 0:
                continue  # zero fill, no global access
            sel = np.flatnonzero(sizes == n)
            data[sel, :n] = cta.memory.load(src[sel], n, sel, what="cp.async source", align=size)
        cta.shared.async_copy(dst, data, tid)
    return run


def _mma(op: MmaSyncOp) -> Handler:
    plan = MmaPlan.build(op.signature)
    na, nb, nc = len(op.a), len(op.b), len(op.c)
    scaled = bool(op.scale_a)
    f16 = reg_type(op.c[0].type).lanes == 2

    def run(cta: CtaState, *values: np.ndarray) -> tuple[np.ndarray, ...]:
        warps = cta.warps

        def regs(chunk: tuple[np.ndarray, ...]) -> np.ndarray:
            return np.stack([v.reshape(warps, 32, *v.shape[1:]) for v in chunk])

        a = regs(values[:na])
        b = regs(values[na:na + nb])
        c = regs(values[na + nb:na + nb + nc])
        scale_a = scale_b = None
        if scaled:
            rest = [v.reshape(warps, 32) for v in values[na + nb + nc:]]
            scale_a, scale_b = (rest[0], rest[1], rest[2]), (rest[3], rest[4], rest[5])
        d = mma(plan, a, b, c, scale_a, scale_b, arch=cta.arch)
        return tuple(r.reshape(cta.threads, 2) if f16 else r.reshape(cta.threads) for r in d)
    return run


def _wgmma(op: WgmmaOp) -> Handler:
    plan = WgmmaPlan.build(op.n_value, op.a_type.data, op.b_type.data, op.desc_a, op.desc_b)

    def run(cta: CtaState, a: np.ndarray, b: np.ndarray, *c: np.ndarray) -> tuple[np.ndarray, ...]:
        return cta.wgmma.issue(plan, cta.shared, a, b, c)
    return run


def _wgmma_wait(op: WgmmaWaitOp) -> Handler:
    pending = int_value(op.pending)
    return lambda cta: cta.wgmma.wait(pending, cta.shared)


def async_roles(op: Operation) -> tuple[int, bool]:
    """(index of the first operand that may hold a not-yet-retired wgmma result, whether the op's
    results are such results): only a wgmma's C operands may, and only a wgmma makes them."""
    if isinstance(op, WgmmaOp):
        return 2, True
    return len(op.operands), False


def _shfl(op: ShflSyncOp) -> Handler:
    mode = op.mode.data
    is_float = reg_type(op.value.type).kind is not Kind.INT

    def run(cta: CtaState, value: np.ndarray, lane: np.ndarray, clamp: np.ndarray, mask: np.ndarray) -> np.ndarray:
        bits = value.view(np.uint32) if is_float else value
        out = alu.shfl(mode, bits, lane, clamp, mask)
        return out.view(np.float32) if is_float else out
    return run


def _cvt(op: CvtOp) -> Handler:
    kind, relu = op.kind.data, op.relu is not None
    return lambda cta, *values: alu.cvt(kind, list(values), relu)


def _bitcast(op: BitcastOp) -> Handler:
    src, dst = reg_type(op.source.type), reg_type(op.res.type)
    return lambda cta, value: from_bytes(to_bytes(value, src), dst)


def _pack(op: PackOp) -> Handler:
    """The 32-bit registers' bits side by side in one vector<Nxi32> (a register renaming in PTX)."""
    types = [reg_type(p.type) for p in op.parts]

    def run(cta: CtaState, *parts: np.ndarray) -> np.ndarray:
        words = [to_bytes(v, rt).view(np.uint32).reshape(cta.threads) for v, rt in zip(parts, types, strict=True)]
        return np.stack(words, axis=1)
    return run


def _unpack(op: UnpackOp) -> Handler:
    """The vector register's 32-bit words as registers (the inverse of ``_pack``)."""
    vector_type = reg_type(op.vector.type)
    part_type = reg_type(op.parts[0].type)

    def run(cta: CtaState, vector: np.ndarray) -> tuple[np.ndarray, ...]:
        data = to_bytes(vector, vector_type)
        return tuple(from_bytes(data[:, 4 * i: 4 * i + 4], part_type) for i in range(len(op.parts)))
    return run


def _no_op(op: Operation) -> Handler:
    return lambda cta: None


_PTX: dict[type[Operation], Callable[[Any], Handler]] = {
    SpecialRegOp: _special_reg,
    LdmatrixOp: _ldmatrix,
    LdSharedOp: _ld_shared,
    StSharedOp: _st_shared,
    LdGlobalOp: _ld_global,
    StGlobalOp: _st_global,
    RedGlobalAddOp: _red_global_add,
    PrefetchGlobalL2Op: _prefetch_global_l2,
    CpAsyncOp: _cp_async,
    CpAsyncCommitOp: lambda op: (lambda cta: cta.shared.commit()),
    CpAsyncWaitOp: lambda op: (lambda cta, n=op.pending.value.data: cta.shared.wait(n)),
    BarSyncOp: lambda op: (lambda cta: cta.shared.barrier()),
    BarRedOrOp: _bar_red_or,
    AtomGlobalAddOp: _atom_global_add,
    FenceAcqRelGpuOp: lambda op: (lambda cta: cta.memory.fence()),
    MmaSyncOp: _mma,
    WgmmaOp: _wgmma,
    WgmmaFenceOp: lambda op: (lambda cta: cta.wgmma.fence()),
    WgmmaCommitOp: lambda op: (lambda cta: cta.wgmma.commit()),
    WgmmaWaitOp: _wgmma_wait,
    FenceProxyAsyncOp: lambda op: (lambda cta: cta.shared.proxy_fence()),
    # one grid at a time: every earlier grid has finished; the wait opens the CTA's gate (memory.py)
    GridDepWaitOp: lambda op: (lambda cta: cta.memory.open_gate()),
    GridDepLaunchDependentsOp: lambda op: (lambda cta: None),
    ShflSyncOp: _shfl,
    PrmtOp: lambda op: (lambda cta, a, b, c: alu.prmt(a, b, c)),
    Lop3Op: lambda op: (lambda cta, a, b, c, lut=op.lut.value.data: alu.lop3(a, b, c, lut)),
    CvtOp: _cvt,
    FmaRnBf16x2Op: lambda op: (lambda cta, a, b, c: alu.fma_bf16x2(a, b, c)),
    MulRnBf16x2Op: lambda op: (lambda cta, a, b: alu.mul_bf16x2(a, b)),
    BitcastOp: _bitcast,
    PackOp: _pack,
    UnpackOp: _unpack,
}


def handler(op: Operation) -> Handler:
    """``fn(cta, *operand_arrays)`` for `op`, or EmulationError naming an op nobody emulates."""
    maker = _PTX.get(type(op))
    if maker is not None:
        return maker(op)
    if op.name.startswith("arith.") or op.name == "math.fma":
        fn = arith_handler(op)
        return lambda cta, *values: fn(*values)
    raise EmulationError(f"op {op.name} is not emulated (the emulator runs LLVM-ready kernels: "
                         "func, cf, arith, math.fma and ptx ops)")
