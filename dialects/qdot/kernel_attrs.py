"""The kernel attributes of the qdot dialect: what a ``func.func`` carries to be a kernel and to ask the
compiler for a launch property or a lowering choice (``qdot.kernel``, ``qdot.num_warps``, ``qdot.divisibility``
on an argument, ``qdot.wait_previous_grid``, ``qdot.pad_block_rows``, …), and the one check of them all.

Every such attribute is named here once: the verifier (``kernel_attribute_problem``, a located error for a misspelt
or malformed one), the passes that read them and the templates that write them use these names. The ops a kernel
body uses are ``dialects.qdot.kernel``'s.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, UnitAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute

from dialects.ptx.memory import l2_prefetch_problem
from dialects.qdot.types import PtrType
from compiler.pipelines import Q4K_FOLDS

KERNEL_ATTR = "qdot.kernel"
"""Unit attribute on a ``func.func`` that makes it a qdot kernel."""
NUM_WARPS_ATTR = "qdot.num_warps"
"""Optional ``i64`` attribute on a kernel: warps per program (thread block)."""
DEFAULT_NUM_WARPS = 4
DIVISIBILITY_ATTR = "qdot.divisibility"
"""Optional ``i64`` attribute on an index argument of a kernel: a power of two the argument is
always a multiple of (Triton's ``tt.divisibility``). Lowering relies on it (16-byte copies,
paired stores), so the runner refuses a launch whose argument breaks it."""
WAIT_PREVIOUS_GRID_ATTR = "qdot.wait_previous_grid"
"""Optional unit attribute on a kernel (sm_90+): it starts with ``griddepcontrol.wait``, so a
launch with programmatic stream serialization (``launch(..., programmatic=True)``) may start it
while the previous kernel of the stream runs — it waits for that kernel to finish and flush
before its first instruction, and its launch and set-up overlap the other's tail."""
NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR = "qdot.not_written_by_previous_grid"
"""Optional unit attribute on a ``!qdot.ptr`` argument of a kernel with ``qdot.wait_previous_grid``: the
array is final before the previous kernel of the stream starts (that kernel, and anything that runs
beside it, leaves it alone), so the kernel may read it before ``griddepcontrol.wait``. qdot-to-llvm
then places the wait after the kernel's first reads of such arrays, before its first access of any
other memory (``passes/support/grid_wait.py``): a GEMM's weight copies go out while the quantize
kernel before it still runs. Only reads move: a store through the pointer still waits."""
LAUNCH_DEPENDENTS_ATTR = "qdot.launch_dependents"
"""Optional unit attribute on a kernel (sm_90+): it starts with
``griddepcontrol.launch_dependents``, so the next kernel of the stream, launched
programmatically, may be scheduled at once (its ``griddepcontrol.wait`` still waits for this
kernel to complete)."""
L2_PREFETCH_ATTR = "qdot.l2_prefetch"
"""Optional ``i64`` attribute on a kernel: 64, 128 or 256. Every ``cp.async`` of the kernel carries
the L2 prefetch-size hint ``.L2::<n>B`` (sm_80+, PTX ISA 7.4): on a miss, L2 fetches the whole
aligned n-byte block around the request from DRAM, not just the sectors asked for. It pays in a
kernel that reads its rows in pieces ending mid-line (the q4_K decode kernel copies 144 bytes of
each weight row per K step: ``MmqConfig.l2_prefetch``) and wastes DRAM bandwidth where the extra
bytes go unused, so it is a per-kernel choice, not a default. It changes no value the kernel
computes."""


UNGUARDED_COPIES_ATTR = "qdot.unguarded_copies"
"""Optional unit attribute on a kernel: ``qdot-pipeline`` leaves its K-split loops' copies ahead as a loop
from 0's are, as ``qdot-pipeline{guard-copies=false}`` does for every kernel: past the share's end they take
the share's last tile again instead of being skipped. The choice travels with the kernel
(``MmqConfig.guard_copies``), so a kernel the guard slows can keep the old form under the default pipeline,
which is what its users compile with. It changes no value the kernel computes."""


PAD_BLOCK_ROWS_ATTR = "qdot.pad_block_rows"
"""Optional unit attribute on a kernel: ``qdot-accelerate-matmul`` pads the rows of its staged ggml block tiles as
its ``pad-block-rows=true`` does for every kernel (16 bytes after each row whose pitch is an even number of 16-byte
groups: the q8_1_mmq activation tile's ldmatrix and d / s reads free of bank conflicts). The choice travels with the
kernel (``MmqConfig.pad_block_rows``): run 317 (an H200) found it faster for q4_K's repacked one-token kernel and
1.10 × slower for the 8-token kernel at M = 8, N = 32768. It changes no value the kernel computes."""
SWIZZLE_FOLD_BUFFERS_ATTR = "qdot.swizzle_fold_buffers"
"""Optional unit attribute on a kernel: ``qdot-accelerate-matmul`` swizzles its dmin mma's f16 operand buffers as
its ``swizzle-fold-buffers=true`` does for every kernel. The choice travels with the kernel
(``MmqConfig.swizzle_fold_buffers``): run 317 (an H200) found q4_K's repacked 8-token kernel 0.91–1.01 × its time
with it and the prefill kernel 1.00–1.01 ×. It changes no value the kernel computes."""

BROADCAST_RHS_ATTR = "qdot.broadcast_rhs"
"""Optional unit attribute on a kernel that stores column 0 of its dots' results alone (a one-token decode kernel,
``MmqConfig(max_m=1, broadcast_rhs=True)``): ``qdot-accelerate-matmul`` reads each ggml block dot's rhs tile (the
tokens) as its first row in every column, so the eight row addresses of each ``ldmatrix`` of its quants are one
(one shared-memory wavefront instead of two: rows r and r + 4 of the 288-byte activation rows share a bank group)
and its d / s reads one address per warp. Unlike the other layout attributes it changes values: every column of
each dot's result is then column 0's, so a kernel that stores another column must not carry it. Run 319 (an H100)
timed q4_K's repacked one-token kernel with it at 1.00–1.03 × the time of the padded form (``qdot.pad_block_rows``)
that ``choose_mmq`` takes, so nothing chooses it yet."""


Q4K_FOLD_ATTR = "qdot.q4k_fold"
"""Optional string attribute on a kernel, ``"mma"`` or ``"fma"``: how ``qdot-accelerate-matmul`` applies the min
term of the kernel's q4_K, q5_K, q4_1 or q5_1 × q8_1_mmq dots where the pass's ``q4k-fold`` is ``auto`` (an explicit
``q4k-fold=`` applies to every kernel of the module). The choice travels with the kernel (``MmqConfig.q4k_fold``):
the one-token decode kernels were timed with the FMA form, which ``auto`` never takes for q4_K and q5_K (it takes
the mma in both operand orders). Both forms add the same products, in another order."""
Q4K_FOLD_VALUES = tuple(fold for fold in Q4K_FOLDS if fold != "auto")
"""What ``qdot.q4k_fold`` takes: the pass option's values but ``auto``, which is the attribute's absence."""


MIN_BLOCKS_PER_SM_ATTR = "qdot.min_blocks_per_sm"
"""Optional ``i64`` attribute on a kernel: ask ptxas for this many resident programs per SM
(``.minnctapersm``, which caps the registers per thread)."""
ARG_KINDS_ATTR = "qdot.arg_kinds"
"""Written by ``qdot-to-llvm`` on a kernel: what the runner passes for each argument."""
SHARED_BYTES_ATTR = "qdot.shared_bytes"
"""Written by ``qdot-to-llvm`` on a kernel: its dynamic shared memory in bytes."""

_UNIT_ATTRS = (KERNEL_ATTR, WAIT_PREVIOUS_GRID_ATTR, LAUNCH_DEPENDENTS_ATTR, UNGUARDED_COPIES_ATTR, PAD_BLOCK_ROWS_ATTR,
               SWIZZLE_FOLD_BUFFERS_ATTR, BROADCAST_RHS_ATTR)
ARGUMENT_ATTRS = (DIVISIBILITY_ATTR, NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR)
"""Every ``qdot.*`` attribute a kernel argument may carry."""
_COUNT_ATTRS = (NUM_WARPS_ATTR, MIN_BLOCKS_PER_SM_ATTR)
_COUNT_LIMIT = 32
"""At most 32 warps per program (1024 threads, the limit of CUDA and Metal alike) and 32
resident programs per SM (sm_80 … sm_120's limit); beyond either, LLVM's NVPTX back end stops
the process on the kernel's annotations."""
KERNEL_ATTRS = (*_UNIT_ATTRS, *_COUNT_ATTRS, L2_PREFETCH_ATTR, Q4K_FOLD_ATTR, ARG_KINDS_ATTR, SHARED_BYTES_ATTR)
"""Every ``qdot.*`` attribute a ``func.func`` may carry. (The passes read ``qdot.num_warps`` of any
function, kernel or not, so these are not kernel-only here; the LLVM emitter refuses a launch
bound on a function that is not a kernel.)"""


def kernel_attribute_problem(func: FuncOp) -> str | None:
    """What is wrong with the ``qdot.*`` attributes of ``func`` and of its arguments, or None.

    They are discardable attributes, which no op definition checks, so the verifier asks this
    of every function: a misspelt kernel attribute would otherwise be ignored in silence (a
    kernel compiled without the option asked for), and a malformed one found only by the pass
    that reads it, or never."""
    attrs = func.attributes
    for name, attr in attrs.items():
        if not name.startswith("qdot."):
            continue
        if name not in KERNEL_ATTRS:
            return f"unknown kernel attribute '{name}'; a function takes {', '.join(KERNEL_ATTRS)}"
        if name in _UNIT_ATTRS and not isinstance(attr, UnitAttr):
            return f"{name} is a unit attribute (it takes no value), got {attr}"
        if name in _COUNT_ATTRS and not (isinstance(attr, IntegerAttr) and 1 <= attr.value.data <= _COUNT_LIMIT):
            return f"{name} must be an integer from 1 to {_COUNT_LIMIT}, got {attr}"
        if name == L2_PREFETCH_ATTR:
            try:
                l2_prefetch(func)
            except ValueError as err:
                return str(err)
        if name == Q4K_FOLD_ATTR and not (isinstance(attr, StringAttr) and attr.data in Q4K_FOLD_VALUES):
            return f"{name} must be one of {', '.join(map(repr, Q4K_FOLD_VALUES))} (a string), got {attr}"
    for what, given, count in (("arg_attrs", func.arg_attrs, len(func.function_type.inputs.data)),
                               ("res_attrs", func.res_attrs, len(func.function_type.outputs.data))):
        # one dictionary per argument (result), as MLIR requires: the custom form pairs them up and drops the rest
        if given is not None and len(given.data) != count:
            return (f"{what} has {len(given.data)} entr{'y' if len(given.data) == 1 else 'ies'} for "
                    f"{count} {'argument' if what == 'arg_attrs' else 'result'}{'s' if count != 1 else ''}")
    if func.arg_attrs is None:
        return None
    for index, arg_attrs in enumerate(func.arg_attrs.data):
        for name, attr in arg_attrs.data.items():
            if not name.startswith("qdot."):
                continue
            if name not in ARGUMENT_ATTRS:
                return f"unknown attribute '{name}' on argument {index}; an argument takes {', '.join(ARGUMENT_ATTRS)}"
            if name == NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR:
                if (problem := _not_written_problem(func, index, attr)) is not None:
                    return problem
                continue
            value = attr.value.data if isinstance(attr, IntegerAttr) else 0
            if value < 1 or value & (value - 1):
                return f"{DIVISIBILITY_ATTR} of argument {index} must be a power of two, got {attr}"
            if not isinstance(func.function_type.inputs.data[index], (IndexType, IntegerType)):
                return (f"{DIVISIBILITY_ATTR} applies to integer arguments; argument {index} is "
                        f"{func.function_type.inputs.data[index]}")
    return None


def _not_written_problem(func: FuncOp, index: int, attr: Attribute) -> str | None:
    name = NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR
    if not isinstance(attr, UnitAttr):
        return f"{name} on argument {index} is a unit attribute (it takes no value), got {attr}"
    if not isinstance(func.function_type.inputs.data[index], PtrType):
        return f"{name} applies to pointer arguments; argument {index} is {func.function_type.inputs.data[index]}"
    if WAIT_PREVIOUS_GRID_ATTR not in func.attributes:
        return (f"{name} on argument {index} says when the kernel may read the array, relative to its "
                f"griddepcontrol.wait, and this kernel has none: add {WAIT_PREVIOUS_GRID_ATTR} or remove it")
    return None


def not_written_by_previous_grid(func: FuncOp) -> tuple[int, ...]:
    """The indices of the arguments marked ``qdot.not_written_by_previous_grid``."""
    if func.arg_attrs is None:
        return ()
    return tuple(index for index, attrs in enumerate(func.arg_attrs.data)
                 if NOT_WRITTEN_BY_PREVIOUS_GRID_ATTR in attrs.data)


def is_kernel(func: FuncOp) -> bool:
    return KERNEL_ATTR in func.attributes


def num_warps(func: FuncOp) -> int:
    """The kernel's ``qdot.num_warps``, or ``DEFAULT_NUM_WARPS`` when it has none."""
    attr = func.attributes.get(NUM_WARPS_ATTR)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return DEFAULT_NUM_WARPS


def l2_prefetch(func: FuncOp) -> int | None:
    """The kernel's ``qdot.l2_prefetch`` in bytes, None when it has none; ValueError saying what
    is wrong with any other attribute of that name (the passes report it at the kernel)."""
    attr = func.attributes.get(L2_PREFETCH_ATTR)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr):
        raise ValueError(f"{L2_PREFETCH_ATTR} must be an integer 64, 128 or 256 (bytes), got {attr}")
    if (problem := l2_prefetch_problem(attr.value.data, L2_PREFETCH_ATTR)) is not None:
        raise ValueError(problem)
    return attr.value.data


def kernel_q4k_fold(func: FuncOp) -> str | None:
    """The kernel's ``qdot.q4k_fold`` (the verifier has checked it), None when it has none."""
    attr = func.attributes.get(Q4K_FOLD_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def mark_kernel(func: FuncOp, warps: int | None = None) -> None:
    """Make ``func`` a kernel (for builders that construct kernels from Python)."""
    func.attributes[KERNEL_ATTR] = UnitAttr()
    if warps is not None:
        func.attributes[NUM_WARPS_ATTR] = IntegerAttr(warps, i64)
