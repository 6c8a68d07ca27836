"""Warpgroup MMA (``wgmma.mma_async``, sm_90a) and its asynchronous protocol, from the PTX ISA.

Sources: PTX ISA §9.7.15 (warpgroup MMA): §9.7.15.5.1.1 register fragments, §9.7.15.5.1.2
shared-memory layouts (canonical K-major layouts, Swizzle<3|2|1, 4, 3> on the byte address)
and §9.7.15.5.1.2.2 the matrix descriptor, §9.7.15.7 ``wgmma.fence`` / ``commit_group`` /
``wait_group``, and ``fence.proxy.async`` (membar section). The op as qdot writes it is
`dialects.ptx.wgmma`.

Operands. A (64×k, K-major: row r holds 32 bytes, k16 of a 16-bit type or k32 of an 8-bit
one) and B (N×k, K-major: the N columns of the k×N matrix stored as rows) are read from shared
memory at the i32 offset the op takes, through the descriptor fields its properties carry.
Byte ``kb`` of row r of an operand:

* swizzle S ∈ {128, 64, 32} bytes: ``u = start + (r // 8)·sbo + (r % 8)·S + kb``, then the
  16-byte chunk bits [4, 4 + log2(S/16)) of u are XORed with the bits 3 above them;
* no swizzle: core matrices of 8 rows × 16 bytes,
  ``u = start + (r // 8)·sbo + (kb // 16)·lbo + (r % 8)·16 + kb % 16``.

The XOR works on the shared-window address, so it repeats every 8·S bytes from address 0;
qdot's descriptors carry base offset 0, which the ISA allows only when the pattern starts at a
multiple of 8·S, so a swizzled start must lie in the first S-byte row of its pattern (a start
advanced along K inside that row, as a k-loop does, is fine).

Accumulators. Warp ``w = warp % 4`` of the warpgroup, lane ``l``: register ``4·j + i`` holds
element row ``16·w + l//4 + 8·(i//2)``, column ``8·j + 2·(l%4) + i%2`` of the 64×N tile (the
m16n8 C fragment of ``mma.sync`` repeated N/8 times). A bf16, f16, e4m3 or e5m2 wgmma computes
each D element as the H200's tensor cores do, bit for bit (``compiler.numerics.tensor_core``: one
fused step that aligns the products and C and truncates them — 25 fraction bits for bf16 / f16,
13 and a 13-bit result for the fp8 types, which is why no MX kernel uses fp8 wgmma; measured in
runs 122–126 and 132–133 of bench/RESULTS.md; mixed e4m3 × e5m2 the same as fp8). s8
operands accumulate exactly into s32, wrapping, which matches the hardware bit for bit.

Protocol (each rule an `EmulationError`). The product is computed eagerly at issue; the rules
make that indistinguishable from the hardware computing it any time before the group retires:

1. a wgmma needs a ``wgmma.fence`` since the kernel start or the last ``wgmma.wait_group``,
   and a C operand that another instruction wrote (not a wgmma: chaining accumulators of
   wgmma needs no fence) must have been written before the last ``wgmma.fence`` — the ISA
   requires the fence between a register write and the wgmma that reads the register;
2. ``wgmma.commit_group`` closes the group of the wgmma issued since the previous commit (an
   empty group when there were none); ``wgmma.wait_group N`` retires the oldest committed
   groups until at most N remain; uncommitted wgmma are not retired;
3. the results of a wgmma whose group has not retired may only be the C operand of another
   wgmma; block-argument copies carry the "not retired" mark along (a phi is the same
   registers, no read), every other read is an error, and so is ending the kernel with a
   wgmma not retired. It is checked on the SSA values program.py passes between steps, every
   op's operands included, so no read escapes it;
4. no write (st.shared, cp.async) may touch a byte that a not-yet-retired wgmma reads —
   SharedMemory enforces it, even with the race checks off;
5. the bytes a wgmma reads must have been written (cp.async: completed), ordered before it by a
   ``bar.sync`` (they count as read by all 128 threads of the warpgroup), and made visible to
   the async proxy by a ``fence.proxy.async`` after the write. The lockstep machine runs every
   op in every thread, so the fence is always executed by the writer too: what is checked is
   that one came after the write. After retirement the bytes count as read by the warpgroup
   at its ``wgmma.wait_group``, so another warpgroup must pass a ``bar.sync`` before
   overwriting them (memory.py).

The lockstep machine runs each op in every warp of the CTA, so all four warps of every
warpgroup always issue a wgmma together; the CTA must consist of whole warpgroups, and A and B
must be uniform within each warpgroup (the ISA requires identical descriptors).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from dialects.ptx.attrs import MmaType
from dialects.ptx.wgmma import WGMMA_K_BYTES, WGMMA_M, WGMMA_TYPES, SmemDescriptor, accumulator_count, accumulator_type
from compiler.numerics.tensor_core import tensor_core_dot
from targets.ptx.emulator.errors import EmulationError

if TYPE_CHECKING:
    from targets.ptx.emulator.memory import SharedMemory

WARPGROUP_THREADS = 128
"""Four consecutive warps, the unit that issues a wgmma ([ISA] 9.7.15.1)."""



def warpgroup_name(group: int) -> str:
    first = WARPGROUP_THREADS * group
    return f"warpgroup {group} (threads {first}-{first + WARPGROUP_THREADS - 1})"


def operand_addresses(start: np.ndarray, rows: int, desc: SmemDescriptor) -> np.ndarray:
    """[groups, rows, 32] shared byte address of every byte of a K-major operand ([ISA] 9.7.15.5.1.2.1.3)."""
    r = np.arange(rows, dtype=np.int64)[:, None]
    kb = np.arange(WGMMA_K_BYTES, dtype=np.int64)[None, :]
    s = desc.swizzle
    if s:
        offset = (r // 8) * desc.sbo + (r % 8) * s + kb
    else:
        offset = (r // 8) * desc.sbo + (kb // 16) * desc.lbo + (r % 8) * 16 + kb % 16
    u = start.astype(np.int64)[:, None, None] + offset[None]
    if s:
        u = u ^ (((u >> 7) & (s // 16 - 1)) << 4)
    return u


def accumulator_coords(n: int) -> tuple[np.ndarray, np.ndarray]:
    """([registers, 128], [registers, 128]): row and column of each accumulator register of each
    thread of a warpgroup in the 64×N tile."""
    reg = np.arange(accumulator_count(n), dtype=np.int64)[:, None]
    t = np.arange(WARPGROUP_THREADS, dtype=np.int64)[None, :]
    warp, lane = t // 32, t % 32
    j, i = reg // 4, reg % 4
    return 16 * warp + lane // 4 + 8 * (i // 2), 8 * j + 2 * (lane % 4) + i % 2


@dataclass(frozen=True)
class WgmmaPlan:
    """One ``ptx.wgmma`` op's shape, element types and descriptors, built once per op."""

    n: int
    a_type: MmaType
    b_type: MmaType
    desc_a: SmemDescriptor
    desc_b: SmemDescriptor
    rows: np.ndarray
    cols: np.ndarray

    @staticmethod
    def build(n: int, a_type: MmaType, b_type: MmaType, desc_a: SmemDescriptor,
              desc_b: SmemDescriptor) -> WgmmaPlan:
        for type_ in (a_type, b_type):
            if type_ not in WGMMA_TYPES:
                raise EmulationError(f"wgmma with {type_} operands is not emulated ({', '.join(WGMMA_TYPES)})")
        rows, cols = accumulator_coords(n)
        return WgmmaPlan(n, a_type, b_type, desc_a, desc_b, rows, cols)

    @property
    def integer(self) -> bool:
        return accumulator_type(self.a_type) is MmaType.S32


def _uniform_start(values: np.ndarray, groups: int, side: str) -> np.ndarray:
    """[threads] offsets -> [groups]: the one offset of each warpgroup."""
    per = values.astype(np.int64).reshape(groups, WARPGROUP_THREADS)
    bad = per != per[:, :1]
    if bad.any():
        g, t = (int(x) for x in np.argwhere(bad)[0])
        first = WARPGROUP_THREADS * g
        raise EmulationError(f"{side} offset must be the same in every thread of {warpgroup_name(g)}: thread "
                             f"{first} has {int(per[g, 0])}, thread {first + t} has {int(per[g, t])}")
    return per[:, 0]


def _check_start(start: np.ndarray, desc: SmemDescriptor, side: str) -> None:
    for g, address in enumerate(start.tolist()):
        if address % 16:
            raise EmulationError(f"{side} of {warpgroup_name(g)} starts at shared byte {address}, which is not "
                                 f"16-byte aligned (a descriptor holds address / 16)")
        if desc.swizzle and address % (8 * desc.swizzle) >= desc.swizzle:
            raise EmulationError(f"{side} of {warpgroup_name(g)} starts at shared byte {address}, row "
                                 f"{address % (8 * desc.swizzle) // desc.swizzle} of a {desc.swizzle}-byte swizzle "
                                 f"pattern: with base offset 0 the pattern must start at a multiple of "
                                 f"{8 * desc.swizzle} bytes")


def _values(data: np.ndarray, type_: MmaType) -> np.ndarray:
    """[..., 32] bytes of each row -> [..., k] float64 element values (k16 of a 16-bit type,
    little-endian; k32 of an 8-bit one)."""
    if type_ is MmaType.S8:
        return data.astype(np.uint8).view(np.int8).astype(np.float64)
    if type_ in (MmaType.E4M3, MmaType.E5M2):
        import ml_dtypes

        dtype = ml_dtypes.float8_e4m3fn if type_ is MmaType.E4M3 else ml_dtypes.float8_e5m2
        return data.astype(np.uint8).view(dtype).astype(np.float64)
    codes = data.astype(np.uint16)
    codes = codes[..., 0::2] | (codes[..., 1::2] << np.uint16(8))
    if type_ is MmaType.BF16:
        return (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return codes.view(np.float16).astype(np.float64)


@dataclass
class _Issue:
    seq: int
    where: np.ndarray
    """[groups, bytes] shared bytes the wgmma reads (A then B), for retirement."""


@dataclass
class WgmmaState:
    """The wgmma protocol state of one CTA (all warpgroups move in lockstep, so one state serves
    them all; the shared bytes each warpgroup reads are kept per warpgroup)."""

    fenced: bool = False
    waited: bool = False
    next_seq: int = 0
    open_group: list[_Issue] = field(default_factory=list)
    committed: list[list[_Issue]] = field(default_factory=list)
    pending_slots: dict[int, int] = field(default_factory=dict)
    """SSA slot -> issue number of the not-yet-retired wgmma whose result it holds."""
    unfenced_slots: set[int] = field(default_factory=set)
    """Slots that feed a wgmma C operand, written by a non-wgmma op since the last wgmma.fence."""

    # ---- instructions -------------------------------------------------------------

    def fence(self) -> None:
        self.fenced = True
        self.unfenced_slots.clear()

    def commit(self) -> None:
        self.committed.append(self.open_group)
        self.open_group = []

    def wait(self, allowed_pending: int, shared: SharedMemory) -> None:
        done = len(self.committed) - allowed_pending
        for group in self.committed[:max(done, 0)]:
            for issue in group:
                shared.async_release(issue.where)
        if done > 0:
            self.committed = self.committed[done:]
        oldest = self._oldest_pending()
        self.pending_slots = {s: q for s, q in self.pending_slots.items() if q >= oldest}
        self.fenced = False
        self.waited = True

    def issue(self, plan: WgmmaPlan, shared: SharedMemory, a: np.ndarray, b: np.ndarray,
              c: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        """D = A·B + C of every warpgroup, computed now; the reads stay pending until retired."""
        threads = a.shape[0]
        if threads % WARPGROUP_THREADS:
            raise EmulationError(f"wgmma needs whole warpgroups of 4 warps; the CTA has {threads // 32} warps")
        groups = threads // WARPGROUP_THREADS
        if not self.fenced:
            raise EmulationError(f"{warpgroup_name(0)} issues a wgmma without a ptx.wgmma_fence since "
                                 f"{'the last ptx.wgmma_wait' if self.waited else 'the kernel start'}")
        start_a = _uniform_start(a, groups, "A")
        start_b = _uniform_start(b, groups, "B")
        _check_start(start_a, plan.desc_a, "A")
        _check_start(start_b, plan.desc_b, "B")
        where_a = operand_addresses(start_a, WGMMA_M, plan.desc_a).reshape(groups, -1)
        where_b = operand_addresses(start_b, plan.n, plan.desc_b).reshape(groups, -1)
        for side, where in (("A", where_a), ("B", where_b)):
            bad = (where < 0) | (where >= shared.size)
            if bad.any():
                g, i = (int(x) for x in np.argwhere(bad)[0])
                raise EmulationError(f"{side} of {warpgroup_name(g)} reaches shared byte {int(where[g, i])}, out of "
                                     f"range: shared memory has {shared.size} bytes")
        where = np.concatenate([where_a, where_b], axis=1)
        data = shared.async_read(where, "wgmma")
        av = _values(data[:, :where_a.shape[1]].reshape(groups, WGMMA_M, WGMMA_K_BYTES), plan.a_type)
        bv = _values(data[:, where_a.shape[1]:].reshape(groups, plan.n, WGMMA_K_BYTES), plan.b_type)
        regs = accumulator_count(plan.n)
        if not c:  # D = A·B (scale-d 0)
            c = tuple(np.zeros(threads, np.int32 if plan.integer else np.float32) for _ in range(regs))
        if plan.integer:  # s8: the products' sum is exact in float64 (|sum| <= 2^19), C wraps as s32
            cv = np.stack(c).astype(np.int64).reshape(regs, groups, WARPGROUP_THREADS)
            cm = np.zeros((groups, WGMMA_M, plan.n), dtype=np.int64)
            cm[:, plan.rows, plan.cols] = cv.swapaxes(0, 1)
            d = np.matmul(av, bv.swapaxes(1, 2)).astype(np.int64) + cm
            picked = d[:, plan.rows, plan.cols].swapaxes(0, 1).astype(np.uint32).view(np.int32)
        else:  # per element: its row of A, its column of B (a row of the N×k B), its C
            cv = np.stack(c).astype(np.float32).reshape(regs, groups, WARPGROUP_THREADS)
            types = (plan.a_type.value, plan.b_type.value)
            picked = tensor_core_dot("wgmma", types, av[:, plan.rows, :], bv[:, plan.cols, :], cv.swapaxes(0, 1),
                                     "sm_90a").swapaxes(0, 1)  # [regs, groups, 128]
        self.open_group.append(_Issue(self.next_seq, where))
        self.next_seq += 1
        return tuple(picked.reshape(regs, threads))

    # ---- SSA values holding unretired results (called by program.py) --------------

    def _oldest_pending(self) -> int:
        for group in [*self.committed, self.open_group]:
            if group:
                return group[0].seq
        return self.next_seq

    def check_reads(self, inputs: tuple[int, ...], allowed_from: int) -> None:
        """Operands before position `allowed_from` must not hold an unretired wgmma result."""
        for position, slot in enumerate(inputs[:allowed_from]):
            seq = self.pending_slots.get(slot)
            if seq is not None:
                raise EmulationError(f"operand #{position} of {warpgroup_name(0)} is a result of wgmma #{seq}, "
                                     f"whose group no ptx.wgmma_wait has retired yet (only the C operand of "
                                     f"another ptx.wgmma may use it before then)")

    def check_accumulators(self, inputs: tuple[int, ...], first: int) -> None:
        """The C operands (`inputs[first:]`) of a wgmma about to issue were written before the last fence
        (without any fence, `issue` reports that instead)."""
        if not self.fenced:
            return
        for position, slot in enumerate(inputs[first:], start=first):
            if slot in self.unfenced_slots:
                raise EmulationError(f"C operand #{position} of {warpgroup_name(0)} was written by an instruction "
                                     f"after the last ptx.wgmma_fence (a wgmma.fence must separate register "
                                     f"writes from the wgmma that reads them)")

    def define(self, outputs: tuple[int, ...], async_results: bool, feeds_wgmma: bool) -> None:
        """Record that an op wrote `outputs`: a wgmma's are its just-issued, unretired results; an
        op whose results feed a wgmma C operand wrote them after the last fence."""
        for slot in outputs:
            if async_results:
                self.pending_slots[slot] = self.next_seq - 1
            else:
                self.pending_slots.pop(slot, None)
            if feeds_wgmma and not async_results:
                self.unfenced_slots.add(slot)
            else:
                self.unfenced_slots.discard(slot)

    def copy(self, sources: tuple[int, ...], targets: tuple[int, ...]) -> None:
        """A branch copies block arguments: the marks travel with the values (a phi is a
        renaming, not a register access)."""
        marks = [(self.pending_slots.get(s), s in self.unfenced_slots) for s in sources]
        for slot, (pending, unfenced) in zip(targets, marks, strict=True):
            if pending is None:
                self.pending_slots.pop(slot, None)
            else:
                self.pending_slots[slot] = pending
            if unfenced:
                self.unfenced_slots.add(slot)
            else:
                self.unfenced_slots.discard(slot)

    def finish(self) -> None:
        """At the end of the kernel every wgmma must have been committed and waited for."""
        pending = sum(len(g) for g in self.committed)
        if pending or self.open_group:
            raise EmulationError(f"the kernel ends with {pending} wgmma in {len(self.committed)} committed group(s) "
                                 f"and {len(self.open_group)} uncommitted wgmma of {warpgroup_name(0)} not retired "
                                 f"(missing ptx.wgmma_commit / ptx.wgmma_wait 0)")
