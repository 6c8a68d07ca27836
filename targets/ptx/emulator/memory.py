"""Global and shared memory of the emulated machine, with the checks that make bugs loud.

Global memory is the caller's numpy arrays: each gets a fake device address (a 64 GiB
window per array, so an address maps back to (array, offset) with a shift) and every
access is checked against the array's extent and its natural alignment.

Shared memory is one byte array per CTA, filled with a poison byte, not zeros, so a
kernel that reads what it never wrote computes garbage rather than a plausible zero.
Because the CTA runs in lockstep, barriers and asynchronous copies cannot go wrong by
timing here the way they can on a GPU; instead the memory keeps, per byte, the thread
and barrier epoch of the last write and of the reads since the last barrier, and which
bytes a ``cp.async`` has been issued for but not yet waited on, and raises on:

* a read of a byte another thread wrote in the same epoch (a missing ``bar.sync``);
* a write that changes a byte another thread read or wrote in the same epoch (a WAR/WAW
  race), and two threads writing different values to one byte in one instruction;
* a read of a byte whose ``cp.async`` has not completed (a missing or short
  ``cp.async.wait_group``), and a write that changes a byte a ``cp.async`` still in
  flight writes;
* a read of a byte nothing has written since the launch.

A kernel with ``griddepcontrol.wait`` is run as launched programmatically: until a CTA has passed the
wait, a load or ``cp.async`` of any array but those its wait lists as ``not_written_by_previous_grid``
raises (the previous kernel of the stream may still be writing it), and so does any store, ``atom`` or
reduction (the previous kernel may still be reading even an array it does not write).

Warpgroup MMA (wgmma.py) reads shared memory through the async proxy; for it the memory
also keeps, per byte, whether a generic write has been followed by a ``fence.proxy.async``,
how many not-yet-retired wgmma read it, and which warpgroups' retired wgmma read it in the
current epoch, and raises on:

* a wgmma read of a byte written in the current epoch (by any thread: the read counts as
  the whole warpgroup's), or whose last write no ``fence.proxy.async`` followed;
* any write to a byte a not-yet-retired wgmma reads (checked even with the race checks off:
  it is what makes computing the product at issue exact);
* a write that changes a byte another warpgroup's wgmma read, retired in the same epoch.

Global memory is written by one CTA at a time (the CTAs run one after another), so a CTA that reads what
another CTA of the same launch stored would see it here whatever the kernel did to order the two; on a GPU
that is a race unless the writer released its stores and the reader acquired them. With the ownership
checks on (``LaunchOptions.check_store_ownership``) such a read raises unless both happened: the writer
executed ``fence.acq_rel.gpu`` after the store and then an ``atom`` (its signal that the store is done), and
the reader an ``atom`` (through which it learned that) and then a ``fence.acq_rel.gpu``, before the read.

A ``cp.async`` writes its data at issue (the data would be the same later: global
inputs do not change during a kernel) but counts as written, for the race rules, only
when the ``cp.async.wait_group`` that completes its group runs.

What these checks do not catch (the PTX memory model is stricter; a review reproduced each, and a kernel
that breaks one of these rules can pass here with plausible numbers):

* release and acquire are tracked per CTA, not per thread: a fence or ``atom`` by any thread counts for
  the whole CTA, with no ``bar.sync`` needed between the other threads' stores (or reads) and it; and the
  reader's ``atom`` need not be on the word the writer's was;
* a read of a byte another CTA stores later in the launch is not checked (the result then depends on
  the order the CTAs run in), nor are atomics part of the ownership checks (a plain access racing an
  ``atom`` / ``red`` of another CTA passes);
* global memory has no race rules within a CTA (shared memory has): a warp may read another warp's
  global store without a barrier, and the threads of one store may write different values to one word;
* a ``cp.async`` reads its global source at issue, so a store to the source before the wait goes unseen;
  ``ld.global.nc`` is not checked against stores of the same launch (qdot emits no ``.nc`` load).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from compiler.launch_plan import available_host_bytes
from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.wgmma import WARPGROUP_THREADS, warpgroup_name

STORED, FENCED, PUBLISHED = 0, 1, 2
"""What a CTA did after storing a byte of global memory (``GlobalMemory.published``)."""
GLOBAL_BASE = 0x0000_7000_0000_0000
WINDOW_BITS = 36
"""Each argument array owns 2^36 bytes of fake address space from GLOBAL_BASE on."""


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


OWNERSHIP_BYTES_PER_BYTE = np.dtype(np.int64).itemsize + np.dtype(np.uint8).itemsize
"""The store-ownership state ``GlobalMemory`` keeps per byte of an array a kernel stores to: the storing CTA (``owner``)
and whether that CTA published the byte (``published``)."""


def _byte_state(name: str, size: int, fill: int, dtype: type) -> np.ndarray:
    """One per-byte state array of the global array ``name`` (``OWNERSHIP_BYTES_PER_BYTE``). Refused with a
    MemoryError that says so where it would take more than the memory this machine can still give: past physical
    memory the allocation does not fail where it is made, the process is killed (or the machine swaps) once the fill
    touches the pages."""
    needed = size * np.dtype(dtype).itemsize
    available = available_host_bytes()
    if available is not None and needed > available:
        raise MemoryError(f"the emulator's store-ownership state of {name} ({size} bytes) would take {needed} bytes, "
                          f"more than this machine's available memory ({available} bytes): give smaller arrays")
    return np.full(size, fill, dtype=dtype)


class GlobalMemory:
    """The pointer arguments of a launch, addressed by fake 64-bit device addresses."""

    def __init__(self, arrays: Sequence[np.ndarray], names: Sequence[str], check_ownership: bool = True):
        self.arrays = list(arrays)
        self.names = list(names)
        self.bytes: list[np.ndarray] = []
        for name, array in zip(self.names, self.arrays, strict=True):
            if not array.flags.c_contiguous:
                raise EmulationError(f"{name} must be a C-contiguous numpy array")
            if array.nbytes >= 1 << WINDOW_BITS:
                raise EmulationError(f"{name} is larger than the {1 << WINDOW_BITS}-byte window")
            self.bytes.append(array.reshape(-1).view(np.uint8))
        self.owner: list[np.ndarray | None] = [None] * len(self.arrays) if check_ownership else []
        self.check_ownership = check_ownership
        self.published: list[np.ndarray | None] = [None] * len(self.arrays)
        """Per byte a CTA stored: ``STORED``, ``FENCED`` once that CTA executed ``fence.acq_rel.gpu`` after the
        store, ``PUBLISHED`` once it executed an ``atom`` after that fence."""
        self.cta = -1
        """The CTA running now (``start_cta``)."""
        self.atomics_seen = False
        self.acquired = False
        """Whether the running CTA has executed an ``atom`` and, after it, ``fence.acq_rel.gpu``: then it may read
        what other CTAs released."""
        self.before_wait: frozenset[int] | None = None
        """While the running CTA of a kernel with ``griddepcontrol.wait`` has not passed it: the arrays (by index)
        it may touch, those marked ``qdot.not_written_by_previous_grid`` (``gate``); None once it has waited."""

    def start_cta(self, cta: int) -> None:
        self.cta = cta
        self.atomics_seen = self.acquired = False

    def gate(self, allowed: frozenset[int] | None) -> None:
        """A CTA starts: until ``open_gate``, only the arrays in ``allowed`` may be accessed (None: any)."""
        self.before_wait = allowed

    def open_gate(self) -> None:
        """``griddepcontrol.wait``: the previous grid has completed and flushed, every array is final."""
        self.before_wait = None

    def address(self, index: int) -> int:
        return GLOBAL_BASE + (index << WINDOW_BITS)

    def _locate(self, addresses: np.ndarray, size: int, threads: np.ndarray, what: str,
                align: int, gated: bool = True, write: bool = False) -> tuple[np.ndarray, np.ndarray]:
        addr = addresses.astype(np.uint64)
        rel = addr - np.uint64(GLOBAL_BASE)
        below = addr < np.uint64(GLOBAL_BASE)
        index = (rel >> np.uint64(WINDOW_BITS)).astype(np.int64)
        offset = (rel & np.uint64((1 << WINDOW_BITS) - 1)).astype(np.int64)
        sizes = np.array([b.size for b in self.bytes] + [0], dtype=np.int64)
        index = np.where(below | (index >= len(self.bytes)), len(self.bytes), index)
        bad = (index == len(self.bytes)) | (offset + size > sizes[index])
        if bad.any():
            i = _first(bad)
            where = "no argument array" if index[i] == len(self.bytes) else (
                f"{self.names[index[i]]} at byte {offset[i]}, past its {sizes[index[i]]} bytes")
            raise EmulationError(f"{what} of {size} bytes at address {int(addr[i]):#x} (thread {int(threads[i])}) "
                                 f"is out of range: {where}")
        misaligned = offset % align != 0
        if misaligned.any():
            i = _first(misaligned)
            raise EmulationError(f"{what} of {size} bytes at {self.names[index[i]]} byte {offset[i]} "
                                 f"(thread {int(threads[i])}) is not {align}-byte aligned")
        if gated and self.before_wait is not None:
            early = ~np.isin(index, [] if write else list(self.before_wait))
            if early.any():
                i = _first(early)
                if write:  # the previous grid may still read even an array it does not write
                    raise EmulationError(f"{what} to {self.names[index[i]]} (thread {int(threads[i])}) before "
                                         "griddepcontrol.wait: launched programmatically, the kernel may only read "
                                         "(arrays marked qdot.not_written_by_previous_grid) before the wait, and the "
                                         "previous grid may still be reading this one")
                raise EmulationError(f"{what} of {self.names[index[i]]} (thread {int(threads[i])}) before "
                                     "griddepcontrol.wait: launched programmatically, the kernel may touch only the "
                                     "arrays marked qdot.not_written_by_previous_grid before the wait, and the "
                                     "previous grid may still be writing this one")
        return index, offset

    def check_addresses(self, addresses: np.ndarray, threads: np.ndarray, what: str) -> None:
        """An EmulationError naming the first address outside every argument array. Not gated by
        ``griddepcontrol.wait``: a prefetch moves no data into the kernel, so one before the wait cannot
        read what the previous grid has not yet written."""
        self._locate(addresses, 1, threads, what, 1, gated=False)

    def load(self, addresses: np.ndarray, size: int, threads: np.ndarray, what: str = "global load",
             align: int | None = None) -> np.ndarray:
        """[n, size] bytes at `addresses` (one per active thread), aligned to `align` (default: size)."""
        index, offset = self._locate(addresses, size, threads, what, align or min(size, 16))
        out = np.empty((addresses.shape[0], size), dtype=np.uint8)
        for buf in np.unique(index):
            sel = index == buf
            where = offset[sel, None] + np.arange(size)
            if self.check_ownership and self.owner[buf] is not None:
                self._check_cross_cta_read(buf, where.reshape(-1), threads[sel], what, size)
            out[sel] = self.bytes[buf][where]
        return out

    def _check_cross_cta_read(self, buf: int, where: np.ndarray, threads: np.ndarray, what: str, size: int) -> None:
        owner = self.owner[buf]
        assert owner is not None
        other = (owner[where] != -1) & (owner[where] != self.cta)
        if not other.any():
            return
        state = self.published[buf]
        unordered = other & (state[where] != PUBLISHED) if state is not None else other
        i = _first(unordered if unordered.any() else other)
        writer, byte, thread = int(owner[where[i]]), int(where[i]), int(threads[i // size])
        read = f"{what} by CTA {self.cta} (thread {thread}) of {self.names[buf]} byte {byte}, which CTA {writer} stored"
        if unordered.any():
            raise EmulationError(f"{read} in this launch without a fence.acq_rel.gpu and then an atom after the "
                                 "store: nothing tells the reader the store is done, the read races with it")
        if not self.acquired:
            raise EmulationError(f"{read} in this launch, without an atom and then a fence.acq_rel.gpu before the "
                                 "read: nothing orders the read after the store")

    def _own_bytes(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(state, mask of the running CTA's bytes) per array it stored to."""
        mine = []
        for buf, owner in enumerate(self.owner):
            if owner is not None:
                if self.published[buf] is None:
                    self.published[buf] = _byte_state(self.names[buf], owner.size, STORED, np.uint8)
                mine.append((self.published[buf], owner == self.cta))
        return mine

    def fence(self) -> None:
        """``fence.acq_rel.gpu``: the running CTA's stores so far are released; after an ``atom``, an acquire."""
        for state, mine in self._own_bytes():
            state[mine & (state == STORED)] = FENCED
        self.acquired = self.acquired or self.atomics_seen

    def atomic_add_u32(self, addresses: np.ndarray, values: np.ndarray, threads: np.ndarray) -> np.ndarray:
        """``atom.global.add.u32``: one addition per active thread, in thread order, each returning the word's
        value before it (atomics from any CTA may target any byte: ownership is not checked)."""
        index, offset = self._locate(addresses, 4, threads, "atom.global.add", 4, write=True)
        self._check_writeable(index, "atom.global.add")
        old = np.empty(len(index), dtype=np.uint32)
        for i, (buf, off, value) in enumerate(zip(index, offset, values.astype(np.uint32), strict=True)):
            view = self.bytes[buf][off:off + 4].view(np.uint32)
            old[i] = view[0]
            view[0] = np.uint32((int(view[0]) + int(value)) & 0xFFFF_FFFF)
        self.atomics_seen = True
        for state, mine in self._own_bytes():
            state[mine & (state == FENCED)] = PUBLISHED
        return old

    def _check_writeable(self, index: np.ndarray, what: str) -> None:
        for buf in np.unique(index):
            if not self.arrays[buf].flags.writeable:
                raise EmulationError(f"{what} into read-only {self.names[buf]}")

    def store(self, addresses: np.ndarray, data: np.ndarray, threads: np.ndarray, cta: int) -> None:
        size = data.shape[1]
        index, offset = self._locate(addresses, size, threads, "global store", min(size, 16), write=True)
        self._check_writeable(index, "global store")
        for buf in np.unique(index):
            sel = index == buf
            where = (offset[sel, None] + np.arange(size)).reshape(-1)
            if self.check_ownership:
                owner = self.owner[buf]
                if owner is None:
                    owner = self.owner[buf] = _byte_state(self.names[buf], self.bytes[buf].size, -1, np.int64)
                other = (owner[where] != -1) & (owner[where] != cta)
                if other.any():
                    i = _first(other)
                    raise EmulationError(f"CTA {cta} stores to {self.names[buf]} byte {int(where[i])}, "
                                         f"which CTA {int(owner[where[i]])} already stored to")
                owner[where] = cta
                if self.published[buf] is not None:
                    self.published[buf][where] = STORED
            self.bytes[buf][where] = data[sel].reshape(-1)


    def atomic_add_f32(self, addresses: np.ndarray, values: np.ndarray, threads: np.ndarray) -> None:
        """``red.global.add.f32``: one f32 addition per active thread, in thread order (atomics
        from any CTA may target any byte, so ownership is not checked). Subnormal inputs and results
        are flushed to zero of their sign, as the PTX ISA says and an H100 does (run 333: 0 + 1e-40 is 0,
        1e-39 + 1e-39 is 0)."""
        index, offset = self._locate(addresses, 4, threads, "red.global.add", 4, write=True)
        self._check_writeable(index, "red.global.add")
        for buf, off, value in zip(index, offset, values.astype(np.float32), strict=True):
            view = self.bytes[buf][off:off + 4].view(np.float32)
            view[0] = _flush(np.float32(_flush(view[0]) + _flush(value)))


def _flush(x: np.float32) -> np.float32:
    """A subnormal f32 as the zero of its sign (``red.global.add.f32``'s flush)."""
    return np.float32(np.copysign(0.0, x)) if x != 0 and abs(x) < np.float32(2.0**-126) else x


@dataclass
class _AsyncGroup:
    where: list[np.ndarray] = field(default_factory=list)
    threads: list[np.ndarray] = field(default_factory=list)


class SharedMemory:
    """The dynamic shared memory of one CTA (``qdot.shared_bytes`` bytes) and its race state."""

    def __init__(self, size: int, poison: int = 0xFF, check_races: bool = True):
        self.size = size
        self.data = np.full(size, poison, dtype=np.uint8)
        self.check_races = check_races
        self.epoch = 0
        self.written = np.zeros(size, dtype=bool)
        self.write_epoch = np.full(size, -1, dtype=np.int64)
        self.writer = np.full(size, -1, dtype=np.int64)
        self.read_epoch = np.full(size, -1, dtype=np.int64)
        self.reader_min = np.zeros(size, dtype=np.int64)
        self.reader_max = np.zeros(size, dtype=np.int64)
        self.pending = np.zeros(size, dtype=bool)
        self.unfenced = np.zeros(size, dtype=bool)
        self.async_readers = np.zeros(size, dtype=np.int32)
        self.async_reader_group = np.zeros(size, dtype=np.int64)
        self.async_reads_pending = 0
        self.async_read_epoch = np.full(size, -1, dtype=np.int64)
        self.async_read_groups = np.zeros(size, dtype=np.int64)
        self.async_release_epoch = -1  # epoch of the latest retirement: skips the check in other epochs
        self.open_group = _AsyncGroup()
        self.committed: list[_AsyncGroup] = []

    # ---- addressing -------------------------------------------------------------------

    def _where(self, offsets: np.ndarray, size: int, threads: np.ndarray, what: str, align: int) -> np.ndarray:
        """[n, size] byte indices of the accesses, after the bounds and alignment checks."""
        off = offsets.astype(np.int64)
        bad = off + size > self.size
        if bad.any():
            i = _first(bad)
            raise EmulationError(f"{what} of {size} bytes at shared offset {int(offsets[i])} (thread "
                                 f"{int(threads[i])}) is out of range: shared memory has {self.size} bytes")
        misaligned = off % align != 0
        if misaligned.any():
            i = _first(misaligned)
            raise EmulationError(f"{what} at shared offset {int(off[i])} (thread {int(threads[i])}) "
                                 f"is not {align}-byte aligned")
        return off[:, None] + np.arange(size)

    # ---- race rules -------------------------------------------------------------------

    def _check_landed(self, flat: np.ndarray, reader: Callable[[int], str]) -> None:
        """Every byte of ``flat`` written, and by no cp.async still in flight; ``reader(i)`` names
        who reads byte ``flat[i]`` in the message."""
        pending = self.pending[flat]
        if pending.any():
            i = _first(pending)
            raise EmulationError(f"{reader(i)} reads shared byte {int(flat[i])} while the cp.async that writes it "
                                 f"has not completed (missing cp.async.wait_group?)")
        unwritten = ~self.written[flat]
        if unwritten.any():
            i = _first(unwritten)
            raise EmulationError(f"{reader(i)} reads shared byte {int(flat[i])}, which nothing has written")

    def _check_read(self, where: np.ndarray, readers: np.ndarray, what: str) -> None:
        flat = where.reshape(-1)
        tids = np.broadcast_to(readers[:, None], where.shape).reshape(-1)
        self._check_landed(flat, lambda i: f"{what} by thread {int(tids[i])}")
        race = (self.write_epoch[flat] == self.epoch) & (self.writer[flat] != tids)
        if race.any():
            i = _first(race)
            raise EmulationError(f"{what} by thread {int(tids[i])} reads shared byte {int(flat[i])} that thread "
                                 f"{int(self.writer[flat[i]])} wrote after the last bar.sync (missing barrier)")
        stale = self.read_epoch[flat] != self.epoch
        self.reader_min[flat[stale]] = np.iinfo(np.int64).max
        self.reader_max[flat[stale]] = -1
        self.read_epoch[flat] = self.epoch
        np.minimum.at(self.reader_min, flat, tids)
        np.maximum.at(self.reader_max, flat, tids)

    def _check_write(self, where: np.ndarray, writers: np.ndarray, data: np.ndarray, what: str) -> None:
        """Races of a write; rewriting a byte with the value it already holds is allowed (the copy
        lowering lets surplus threads repeat the last chunk of a tile, which is harmless)."""
        flat = where.reshape(-1)
        tids = np.broadcast_to(writers[:, None], where.shape).reshape(-1)
        values = data.reshape(-1)
        order = np.argsort(flat, kind="stable")
        dup = (flat[order][1:] == flat[order][:-1]) & (values[order][1:] != values[order][:-1])
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            first, second = order[i], order[i + 1]
            raise EmulationError(f"{what}: threads {int(tids[first])} and {int(tids[second])} write different "
                                 f"values to shared byte {int(flat[first])} in one instruction")
        changes = self.data[flat] != values
        async_now = self.async_read_epoch[flat] == self.epoch if self.async_release_epoch == self.epoch else None
        if async_now is not None and async_now.any():
            own = np.left_shift(np.int64(1), tids // WARPGROUP_THREADS)
            war = async_now & changes & ((self.async_read_groups[flat] & ~own) != 0)
            if war.any():
                i = _first(war)
                others = int(self.async_read_groups[flat[i]] & ~own[i])
                group = (others & -others).bit_length() - 1
                raise EmulationError(f"{what} by thread {int(tids[i])} overwrites shared byte {int(flat[i])} that a "
                                     f"wgmma of {warpgroup_name(group)} read, retired after the last bar.sync "
                                     f"(write-after-read race)")
        pending = self.pending[flat] & changes
        if pending.any():
            i = _first(pending)
            raise EmulationError(f"{what} by thread {int(tids[i])} writes shared byte {int(flat[i])} while an "
                                 f"earlier cp.async to it, with different data, has not completed")
        read_now = self.read_epoch[flat] == self.epoch
        war = read_now & changes & ((self.reader_min[flat] != tids) | (self.reader_max[flat] != tids))
        if war.any():
            i = _first(war)
            other = int(self.reader_min[flat[i]]) if int(self.reader_min[flat[i]]) != int(tids[i]) \
                else int(self.reader_max[flat[i]])
            raise EmulationError(f"{what} by thread {int(tids[i])} overwrites shared byte {int(flat[i])} that "
                                 f"thread {other} read after the last bar.sync (write-after-read race)")
        waw = (self.write_epoch[flat] == self.epoch) & changes & (self.writer[flat] != tids)
        if waw.any():
            i = _first(waw)
            raise EmulationError(f"{what} by thread {int(tids[i])} writes shared byte {int(flat[i])} that thread "
                                 f"{int(self.writer[flat[i]])} wrote after the last bar.sync (write-write race)")

    def _record_write(self, where: np.ndarray, writers: np.ndarray) -> None:
        flat = where.reshape(-1)
        self.written[flat] = True
        self.write_epoch[flat] = self.epoch
        self.writer[flat] = np.broadcast_to(writers[:, None], where.shape).reshape(-1)
        self.unfenced[flat] = True

    def _check_async_readers(self, where: np.ndarray, writers: np.ndarray, what: str) -> None:
        """No write may touch a byte that a not-yet-retired wgmma reads (any value, any thread)."""
        if not self.async_reads_pending:
            return
        busy = self.async_readers[where] > 0
        if busy.any():
            t, j = (int(x) for x in np.argwhere(busy)[0])
            byte = int(where[t, j])
            raise EmulationError(f"{what} by thread {int(writers[t])} writes shared byte {byte}, which a wgmma of "
                                 f"{warpgroup_name(int(self.async_reader_group[byte]))} reads and no ptx.wgmma_wait "
                                 f"has retired yet")

    # ---- instructions -----------------------------------------------------------------

    def load(self, offsets: np.ndarray, size: int, threads: np.ndarray, what: str = "ld.shared",
             consumed: int | None = None) -> np.ndarray:
        """[n, size] bytes; only the first `consumed` bytes of each access count as read."""
        where = self._where(offsets, size, threads, what, min(size, 16))
        if self.check_races:
            self._check_read(where[:, :consumed] if consumed is not None else where, threads, what)
        return self.data[where]

    def store(self, offsets: np.ndarray, data: np.ndarray, threads: np.ndarray, what: str = "st.shared") -> None:
        size = data.shape[1]
        where = self._where(offsets, size, threads, what, min(size, 16))
        self._check_async_readers(where, threads, what)
        if self.check_races:
            self._check_write(where, threads, data, what)
            self._record_write(where, threads)
        self.data[where] = data

    def async_copy(self, offsets: np.ndarray, data: np.ndarray, threads: np.ndarray) -> None:
        size = data.shape[1]
        where = self._where(offsets, size, threads, "cp.async destination", size)
        self._check_async_readers(where, threads, "cp.async")
        if self.check_races:
            self._check_write(where, threads, data, "cp.async")
            self.pending[where.reshape(-1)] = True
            self.open_group.where.append(where)
            self.open_group.threads.append(threads)
        self.data[where] = data

    def commit(self) -> None:
        self.committed.append(self.open_group)
        self.open_group = _AsyncGroup()

    def wait(self, allowed_pending: int) -> None:
        """cp.async.wait_group N: every committed group but the newest N completes now."""
        done = len(self.committed) - allowed_pending
        if done <= 0:
            return
        for group in self.committed[:done]:
            for where, threads in zip(group.where, group.threads, strict=True):
                self.pending[where.reshape(-1)] = False
                self._record_write(where, threads)
        self.committed = self.committed[done:]

    def barrier(self) -> None:
        self.epoch += 1

    # ---- the async proxy (wgmma operands) -------------------------------------------

    def proxy_fence(self) -> None:
        """fence.proxy.async, executed by every thread (lockstep): every completed write so far
        becomes visible to later async-proxy reads."""
        self.unfenced[:] = False

    def async_read(self, where: np.ndarray, what: str) -> np.ndarray:
        """The bytes at `where` ([warpgroups, n] byte indices, in range) that an async-proxy
        instruction of each warpgroup reads; they stay claimed until `async_release`."""
        if self.check_races:
            for group in range(where.shape[0]):
                self._check_async_read(where[group], group, what)
        flat = where.reshape(-1)
        np.add.at(self.async_readers, flat, 1)
        self.async_reader_group[where] = np.arange(where.shape[0])[:, None]
        self.async_reads_pending += flat.size
        return self.data[where]

    def _check_async_read(self, flat: np.ndarray, group: int, what: str) -> None:
        reader = f"{what} of {warpgroup_name(group)}"
        self._check_landed(flat, lambda _: reader)
        race = self.write_epoch[flat] == self.epoch
        if race.any():
            i = _first(race)
            raise EmulationError(f"{reader} reads shared byte {int(flat[i])} that thread {int(self.writer[flat[i]])} "
                                 f"wrote after the last bar.sync (missing barrier: the read counts as every thread "
                                 f"of the warpgroup's)")
        unfenced = self.unfenced[flat]
        if unfenced.any():
            i = _first(unfenced)
            raise EmulationError(f"{reader} reads shared byte {int(flat[i])}, whose write by thread "
                                 f"{int(self.writer[flat[i]])} no fence.proxy.async has made visible to the async "
                                 f"proxy (missing ptx.fence_proxy_async after the store)")

    def async_release(self, where: np.ndarray) -> None:
        """The async reads of `async_read(where)` are done (their wgmma group retired): from now on
        they count as reads by their warpgroup in the current epoch."""
        flat = where.reshape(-1)
        np.subtract.at(self.async_readers, flat, 1)
        self.async_reads_pending -= flat.size
        if not self.check_races:
            return
        self.async_release_epoch = self.epoch
        for group in range(where.shape[0]):
            mine = where[group]
            stale = mine[self.async_read_epoch[mine] != self.epoch]
            self.async_read_groups[stale] = 0
            self.async_read_epoch[mine] = self.epoch
            self.async_read_groups[mine] |= np.int64(1 << group)
