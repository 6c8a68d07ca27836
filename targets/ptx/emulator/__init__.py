"""A CPU emulator for qdot's lowered GPU kernels, so GPU correctness can be tested without a GPU.

It runs the "LLVM-ready" modules of ``ptx_pipeline`` (``func.func`` kernels of
``arith``, ``cf`` and ``ptx`` ops) one CTA at a time, every thread of the CTA in
lockstep, each op once for all threads on numpy arrays. Instruction semantics are
written from the PTX ISA (shared/reference/ptx.md), not from qdot's layout functions,
so a test that compares an emulated kernel with ``compiler.numerics.dot_scaled`` checks
the compiler's layouts against the ISA — including sm_120a kernels no GPU here can run.

    from targets.ptx.emulator import emulate
    c = np.zeros((m, n), np.float32)
    emulate(module, "gemm_...", [a, b_t, sa, sb, c, m, n, k], grid=4)   # c is written in place

Beyond computing, it checks what a lockstep model would otherwise hide (memory.py):
out-of-range and misaligned accesses, shared-memory races across ``bar.sync``, reads
before ``cp.async.wait_group``, reads of never-written shared memory, two CTAs storing
to the same bytes, divergent branches, padding bits in mma containers, global accesses before
``griddepcontrol.wait`` of arrays its ``not_written_by_previous_grid`` does not list (a kernel with the
wait runs as launched programmatically), and the operations LLVM calls poison (shift by the width,
division by zero, fptosi overflow).
Every violation raises `EmulationError` naming the op, the CTA and the thread.

Numerics: integers are exact; a bf16 / f16 / e4m3 / e5m2 mma.sync or wgmma with f32 results
computes what an H200's tensor cores do, bit for bit (``compiler.numerics.tensor_core``,
measured: terms aligned to the largest exponent and truncated, the sum rounded toward zero;
fp8 mma.sync as the two f16 HMMA ptxas makes of it on sm_90) when ``LaunchOptions.arch`` is
sm_90 (the default) or sm_90a; other float forms and arches form the exact sum in float64
and round it once, which can differ from a GPU's result in the last bits. An f32 multiply and
add marked ``contract`` in one block round once, as the FMA the NVPTX backend makes of them.
With both, whole compiled kernels — MX GEMMs of every sm_90 strategy, wgmma, q4_K prefill and
decode — give the H200's output bit for bit (runs 124–127; ``bench/experiments/emulator_vs_gpu.py``,
``tests/gpu/test_emulator_fidelity_gpu.py``).

Warpgroup MMA (sm_90a, ``wgmma``): operands are read from shared memory through the
descriptor semantics of the PTX ISA, and the asynchronous protocol is checked — a
``wgmma.fence`` before a wgmma whose accumulators other instructions wrote, unfinished
results read by anything but a chained wgmma, operand bytes overwritten before the
``wgmma.wait_group`` that retires their reader, generic-proxy writes read without a
``fence.proxy.async``, groups left pending at exit.

Modules: ``machine`` (`emulate`, `LaunchOptions`), ``program`` (`prepare`, CTA
execution), ``memory`` (global/shared memory and the checks), ``ldmatrix`` / ``mma`` /
``wgmma`` / ``alu`` / ``arith_ops`` (semantics), ``ops`` (binding ops to semantics),
``values`` (how a value of each type is stored), ``numbers`` (bf16 / one-rounding helpers).
"""

from __future__ import annotations

from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.machine import LaunchOptions, RunStats, emulate, find_kernel
from targets.ptx.emulator.program import Kernel, Observer, prepare

__all__ = ["EmulationError", "Kernel", "LaunchOptions", "Observer", "RunStats", "emulate", "find_kernel", "prepare"]
