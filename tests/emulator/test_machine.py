"""The machine: control flow, launch checks, global/shared memory rules, cp.async, races."""

from __future__ import annotations

import numpy as np
import pytest

from targets.ptx.emulator import EmulationError, LaunchOptions, emulate
from tests.emulator.kernel_text import KernelText, parse, run


def test_special_registers_over_a_grid() -> None:
    k = KernelText(["out"], num_warps=2)
    regs = [k.op(f"ptx.special_reg {r}") for r in ("tid.x", "laneid", "warpid", "ctaid.x", "ntid.x", "nctaid.x")]
    base = k.per_thread(4 * len(regs))
    for i, r in enumerate(regs):
        k.store("out", k.binop("addi", base, 4 * i), r)
    out = np.zeros((3 * 64, 6), np.int32)
    stats = run(k, [out], grid=3)
    tid = np.tile(np.arange(64), 3)
    cta = np.repeat(np.arange(3), 64)
    assert np.array_equal(out, np.stack([tid, tid % 32, tid // 32, cta, np.full(192, 64), np.full(192, 3)], 1))
    assert stats.ctas == 3 and stats.ops["ptx.st_global"] == 6 * 3


def loop_kernel(condition_on_tid: bool = False) -> str:
    """out[tid] = tid + sum(i for i < n), with a cf loop carrying two block arguments."""
    bound = "%tid_n" if condition_on_tid else "%n"
    return f"""builtin.module {{
  func.func @loop(%out: i64, %n: i32) attributes {{qdot.kernel, qdot.num_warps = 1 : i64,
      qdot.shared_bytes = 0 : i64, qdot.arg_kinds = ["ptr", "i32"]}} {{
    %tid = ptx.special_reg tid.x
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tid_n = arith.addi %tid, %n : i32
    cf.br ^head(%zero, %tid : i32, i32)
  ^head(%i: i32, %acc: i32):
    %more = arith.cmpi slt, %i, {bound} : i32
    cf.cond_br %more, ^body, ^exit
  ^body:
    %next_acc = arith.addi %acc, %i : i32
    %next_i = arith.addi %i, %one : i32
    cf.br ^head(%next_i, %next_acc : i32, i32)
  ^exit:
    %four = arith.constant 4 : i32
    %off = arith.muli %tid, %four : i32
    %off64 = arith.extui %off : i32 to i64
    %addr = arith.addi %out, %off64 : i64
    ptx.st_global %addr, %acc : i32
    func.return
  }}
}}
"""


def test_loop_with_block_arguments() -> None:
    out = np.zeros(32, np.int32)
    stats = emulate(parse(loop_kernel()), "loop", [out, 10], 1)
    assert np.array_equal(out, np.arange(32) + 45)
    assert stats.ops["cf.cond_br"] == 11 and stats.ops["arith.addi"] == 1 + 2 * 10 + 1


def test_divergent_branch_is_an_error() -> None:
    with pytest.raises(EmulationError, match="branch condition is not uniform"):
        emulate(parse(loop_kernel(condition_on_tid=True)), "loop", [np.zeros(32, np.int32), 3], 1)


def test_launch_arguments_are_checked() -> None:
    module = parse(loop_kernel())
    out = np.zeros(32, np.int32)
    with pytest.raises(EmulationError, match="takes 2 arguments, got 1"):
        emulate(module, "loop", [out], 1)
    with pytest.raises(EmulationError, match="argument #0 is a pointer: pass a numpy array"):
        emulate(module, "loop", [0, 1], 1)
    with pytest.raises(EmulationError, match="argument #1 is a numpy array, but parameter #1 of @loop is a scalar of type "):
        emulate(module, "loop", [out, out], 1)
    with pytest.raises(EmulationError, match="qdot.num_warps = 1"):
        emulate(module, "loop", [out, 1], 1, 64)
    with pytest.raises(EmulationError, match="no function @nope"):
        emulate(module, "nope", [out, 1], 1)


def test_ops_the_machine_does_not_run_are_reported_before_running() -> None:
    text = loop_kernel().replace("%tid_n = arith.addi %tid, %n : i32",
                                 "%tid_n = arith.addi %tid, %n : i32\n    %r = math.absi %n : i32")
    with pytest.raises(EmulationError, match="op math.absi is not emulated"):
        emulate(parse(text), "loop", [np.zeros(32, np.int32), 1], 1)


def test_predicated_global_access() -> None:
    k = KernelText(["src", "out"])
    even = k.op(f"arith.cmpi eq, {k.binop('andi', k.tid, 1)}, {k.const(0)} : i32")
    off = k.binop("muli", k.tid, 4)
    src = k.address("src", off)
    value = k.op(f"ptx.ld_global {src} if {even} : i32")
    k.op(f"ptx.st_global {k.address('out', off)}, {value} if {even} : i32", results=0)
    odd = k.op(f"arith.xori {even}, {k.op('arith.constant true')} : i1")
    k.op(f"ptx.st_global {k.address('out', k.binop('addi', off, 128))}, {value} if {odd} : i32", results=0)
    src_data = np.arange(1, 33, dtype=np.int32)
    out = np.full(64, -7, np.int32)
    run(k, [src_data, out])
    assert np.array_equal(out[:32:2], src_data[::2]) and (out[1:32:2] == -7).all()  # skipped stores
    assert (out[33::2] == 0).all() and (out[32::2] == -7).all()  # predicated-off loads read 0


@pytest.mark.parametrize("offset,size,message", [(4 * 32, 4, "out of range"), (2, 4, "not 4-byte aligned")])
def test_bad_global_access_is_an_error(offset: int, size: int, message: str) -> None:
    k = KernelText(["src", "out"])
    value = k.load("src", k.const(offset), {4: "i32"}[size])
    k.store("out", k.binop("muli", k.tid, 4), value)
    with pytest.raises(EmulationError, match=message):
        run(k, [np.zeros(32, np.int32), np.zeros(32, np.int32)])


def test_two_ctas_storing_the_same_element_is_an_error() -> None:
    k = KernelText(["out"])
    k.store("out", k.binop("muli", k.tid, 4), k.tid)
    with pytest.raises(EmulationError, match="CTA 1 stores to .* which CTA 0 already stored to"):
        run(k, [np.zeros(32, np.int32)], grid=2)


def cp_async_kernel(wait: bool = True, barrier: bool = True, cp_size: int = 16) -> KernelText:
    """Thread t copies row t (16 bytes) with src-size = sizes[t], then thread t reads row (t+1) % 32."""
    k = KernelText(["src", "sizes", "out"], shared_bytes=32 * 16)
    row = k.binop("muli", k.tid, 16)
    size = k.load("sizes", k.binop("muli", k.tid, 4))
    k.op(f"ptx.cp_async {'cg' if cp_size == 16 else 'ca'} {row}, {k.address('src', row)}, {cp_size}, {size}",
         results=0)
    k.op("ptx.cp_async_commit", results=0)
    if wait:
        k.op("ptx.cp_async_wait 0", results=0)
    if barrier:
        k.op("ptx.bar_sync", results=0)
    other = k.binop("muli", k.binop("andi", k.binop("addi", k.tid, 1), 31), 16)
    value = k.op(f"ptx.ld_shared {other} : vector<4xi32>")
    k.store("out", row, value, "vector<4xi32>")
    return k


def test_cp_async_src_size_zero_fills() -> None:
    src = np.arange(32 * 16, dtype=np.uint8).reshape(32, 16)
    sizes = np.array([16, 0, 8, 4] * 8, dtype=np.int32)
    sizes[31] = 0  # the last row's source lies partly past `src`: with src-size 0 it is never read
    src_short = src.reshape(-1)[:31 * 16 + 4].copy()
    out = np.zeros((32, 16), np.uint8)
    run(cp_async_kernel(), [src_short, sizes, out])
    for t in range(32):
        row = (t + 1) % 32
        n = sizes[row]
        assert out[t, :n].tolist() == src[row, :n].tolist() and not out[t, n:].any(), t


def test_cp_async_source_past_the_array_is_an_error() -> None:
    src = np.zeros(31 * 16 + 4, np.uint8)
    with pytest.raises(EmulationError, match="cp.async source of 16 bytes .* out of range"):
        run(cp_async_kernel(), [src, np.full(32, 16, np.int32), np.zeros((32, 16), np.uint8)])


def test_reading_before_cp_async_wait_is_an_error() -> None:
    with pytest.raises(EmulationError, match="cp.async that writes it has not completed"):
        run(cp_async_kernel(wait=False), [np.zeros(512, np.uint8), np.full(32, 16, np.int32),
                                          np.zeros((32, 16), np.uint8)])


def test_reading_another_threads_copy_without_barrier_is_an_error() -> None:
    with pytest.raises(EmulationError, match="thread 1 wrote after the last bar.sync \\(missing barrier\\)"):
        run(cp_async_kernel(barrier=False), [np.zeros(512, np.uint8), np.full(32, 16, np.int32),
                                             np.zeros((32, 16), np.uint8)])


def test_race_checks_can_be_turned_off() -> None:
    out = np.zeros((32, 16), np.uint8)
    k = cp_async_kernel(barrier=False)
    emulate(parse(k.text()), k.name, [np.ones(512, np.uint8), np.full(32, 16, np.int32), out], 1, None,
            LaunchOptions(check_races=False))
    assert (out == 1).all()


def test_write_after_read_without_barrier_is_an_error() -> None:
    k = KernelText(["out"], shared_bytes=128)
    mine = k.binop("muli", k.tid, 4)
    k.op(f"ptx.st_shared {mine}, {k.tid} : i32", results=0)
    k.op("ptx.bar_sync", results=0)
    neighbour = k.binop("muli", k.binop("andi", k.binop("addi", k.tid, 1), 31), 4)
    value = k.op(f"ptx.ld_shared {neighbour} : i32")
    k.op(f"ptx.st_shared {mine}, {value} : i32", results=0)  # thread t-1 read this word since the barrier
    with pytest.raises(EmulationError, match="write-after-read race"):
        run(k, [np.zeros(32, np.int32)])


def test_reading_unwritten_shared_memory_is_an_error() -> None:
    k = KernelText(["out"], shared_bytes=256)
    value = k.op(f"ptx.ld_shared {k.binop('muli', k.tid, 4)} : i32")
    k.store("out", k.binop("muli", k.tid, 4), value)
    with pytest.raises(EmulationError, match="which nothing has written"):
        run(k, [np.zeros(32, np.int32)])


def test_shared_memory_starts_poisoned_without_checks() -> None:
    k = KernelText(["out"], shared_bytes=256)
    value = k.op(f"ptx.ld_shared {k.binop('muli', k.tid, 4)} : i32")
    k.store("out", k.binop("muli", k.tid, 4), value)
    out = np.zeros(32, np.uint32)
    emulate(parse(k.text()), k.name, [out], 1, None, LaunchOptions(check_races=False, shared_poison=0xA5))
    assert (out == 0xA5A5A5A5).all()


def test_observer_sees_results_and_ctas_can_be_selected() -> None:
    k = KernelText(["out"])
    k.store("out", k.binop("muli", k.tid, 4), k.op("ptx.special_reg ctaid.x"))
    seen: list[tuple[str, int, int]] = []

    def observe(op, cta, results) -> None:  # noqa: ANN001
        if op.name == "ptx.special_reg" and op.reg.data.value == "ctaid.x":
            seen.append((op.name, cta, int(results[0][5])))

    out = np.full(32, -1, np.int32)
    stats = emulate(parse(k.text()), k.name, [out], 4, None, LaunchOptions(observer=observe, ctas=[2]))
    assert stats.ctas == 1 and seen == [("ptx.special_reg", 2, 2)] and (out == 2).all()


@pytest.mark.parametrize("op", ["atom", "red"])
def test_an_atomic_into_a_read_only_array_is_the_emulators_error(op: str) -> None:
    """As a store's is: numpy's own "assignment destination is read-only" named no op and no location."""
    k = KernelText(["c"])
    first = k.op(f"arith.cmpi eq, {k.tid}, {k.const(0)} : i32")
    addr = k.address("c", k.const(0))
    if op == "atom":
        k.op(f"ptx.atom_global_add {addr}, {k.const(1)} if {first} : i32")
    else:
        k.op(f"ptx.red_global_add {addr}, {k.const(1.0, 'f32')} if {first} : f32", results=0)
    c = np.zeros(1, np.float32 if op == "red" else np.int32)
    c.flags.writeable = False
    with pytest.raises(EmulationError, match=f"{'atom' if op == 'atom' else 'red'}.global.add into read-only"):
        run(k, [c])


@pytest.mark.parametrize(("acc", "value", "result"), [
    (0.0, 1e-40, 0.0), (2.0**-126, -(2.0**-126) + 2.0**-149, 2.0**-126), (1.0, 1e-40, 1.0), (1e-40, 0.0, 0.0),
    (1e-39, 1e-39, 0.0), (1.5, 2.25, 3.75)])
def test_red_add_f32_flushes_subnormals(acc: float, value: float, result: float) -> None:
    """What an H100 gave for each pair (run 333, ``bench/experiments/red_add_subnormals.py``): subnormal inputs
    and results are zero, as the PTX ISA's red says for f32 on global memory."""
    k = KernelText(["acc", "val"])
    first = k.op(f"arith.cmpi eq, {k.tid}, {k.const(0)} : i32")
    v = k.load("val", k.const(0), "f32")
    k.op(f"ptx.red_global_add {k.address('acc', k.const(0))}, {v} if {first} : f32", results=0)
    total = np.array([acc], np.float32)
    run(k, [total, np.array([value], np.float32)])
    assert total.view(np.uint32)[0] == np.array([result], np.float32).view(np.uint32)[0]
