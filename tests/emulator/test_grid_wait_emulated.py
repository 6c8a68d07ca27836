"""The emulator runs a kernel with ``griddepcontrol.wait`` as launched programmatically: until a CTA has
waited it may touch only the arrays its wait lists as ``not_written_by_previous_grid`` (memory.py's gate).

So a wait placed too late — after a copy of the activations the quantize kernel before it writes — is an
error on the CPU, not a race that twelve back-to-back calls on the H200 may or may not show
(tests/gpu/test_mmq_gpu.py); the kernels qdot-to-llvm places the wait in pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.func import FuncOp
from xdsl.traits import IsTerminator

from compiler.mmq_template import MmqConfig, mmq_grid
from dialects.ptx.grid_dependency import GridDepWaitOp
from dialects.ptx.memory import CpAsyncOp
from targets.ptx.emulator import EmulationError, emulate
from tests.emulator.lowering import emulate_and_check, lower_mmq
from tests.gpu.mmq_harness import MmqCase, kernel_weights, make_inputs, poisoned_output

WEIGHTS_FIRST = MmqCase(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, max_m=1,
                                  wait_previous_grid=True, weights_before_wait=True, tiled_weights=True),
                        m=1, n=40, k=512)


def _wait(module) -> GridDepWaitOp:  # noqa: ANN001 - xDSL ModuleOp
    (wait,) = [op for op in module.walk() if isinstance(op, GridDepWaitOp)]
    return wait


def _run(module, case: MmqCase) -> None:  # noqa: ANN001
    data = make_inputs(case, np.random.default_rng(3))
    emulate(module, case.cfg.name, [data["x"], kernel_weights(case.cfg, data["w"]), poisoned_output(case), case.m,
                                    case.n, case.k], mmq_grid(case.cfg, case.m, case.n, case.k))


def test_the_wait_lists_the_marked_weights_and_the_kernel_passes() -> None:
    module = lower_mmq(WEIGHTS_FIRST.cfg)
    assert _wait(module).read_before_wait() == (1,)  # (x, w, y, m, n, k): W
    ops = list(_wait(module).parent_block().ops)
    early = [op for op in ops[:ops.index(_wait(module))] if isinstance(op, CpAsyncOp)]
    assert early, "the weights' first copies come before the wait"
    emulate_and_check(module, WEIGHTS_FIRST, seed=5)


def test_weights_read_before_a_wait_that_does_not_list_them() -> None:
    module = lower_mmq(WEIGHTS_FIRST.cfg)
    del _wait(module).attributes["not_written_by_previous_grid"]
    with pytest.raises(EmulationError, match=r"cp.async source of argument #1 \(thread 0\) before "
                                             r"griddepcontrol.wait: launched programmatically"):
        _run(module, WEIGHTS_FIRST)


def test_a_wait_placed_after_the_activations_copy() -> None:
    """The wait moved to the end of the entry block: the activations' first copy now precedes it."""
    module = lower_mmq(WEIGHTS_FIRST.cfg)
    wait = _wait(module)
    block = wait.parent_block()
    wait.detach()
    terminator = block.last_op
    assert terminator is not None and terminator.has_trait(IsTerminator)
    block.insert_op_before(wait, terminator)
    with pytest.raises(EmulationError, match=r"cp.async source of argument #0 .* before griddepcontrol.wait"):
        _run(module, WEIGHTS_FIRST)


def test_without_a_mark_nothing_may_come_first() -> None:
    """Waiting kernels without marked arguments list nothing: no memory operation comes before their wait."""
    cfg = MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, wait_previous_grid=True)
    module = lower_mmq(cfg)
    wait = _wait(module)
    assert wait.read_before_wait() == ()
    func = next(op for op in module.walk() if isinstance(op, FuncOp) and op.sym_name.data == cfg.name)
    ops = list(func.body.blocks[0].ops)
    assert all(op.name.startswith(("arith.", "ptx.special_reg", "ptx.sreg")) for op in ops[:ops.index(wait)]), \
        sorted({op.name for op in ops[:ops.index(wait)]})
    emulate_and_check(module, MmqCase(cfg, m=2, n=40, k=512), seed=6)


@pytest.mark.parametrize("access", ["ld", "st", "atom"])
def test_before_the_wait_a_listed_array_may_only_be_read(access: str) -> None:
    """``not_written_by_previous_grid`` lets reads move before the wait; a store or an atom through the pointer
    still waits (kernel_attrs.py), since the previous grid may still be reading the array."""
    from tests.emulator.kernel_text import KernelText, run

    k = KernelText(["w", "y"])
    addr = k.address("w", k.binop("muli", k.tid, 4))
    if access == "ld":
        k.op(f"ptx.ld_global {addr} : i32")
    elif access == "st":
        k.op(f"ptx.st_global {addr}, {k.tid} : i32", results=0)
    else:
        k.op(f"ptx.atom_global_add {addr}, {k.const(1)} : i32")
    k.op("ptx.griddepcontrol_wait {not_written_by_previous_grid = array<i64: 0>}", results=0)
    k.store("y", k.binop("muli", k.tid, 4), k.tid)
    args = [np.zeros(32, np.int32), np.zeros(32, np.int32)]
    if access == "ld":
        run(k, args)
        assert list(args[1]) == list(range(32))
        return
    what = "global store" if access == "st" else "atom.global.add"
    with pytest.raises(EmulationError, match=f"{what} to argument #0 .* before griddepcontrol.wait: .* may only read"):
        run(k, args)
