"""The qdot dialect: quantized dot products at the tensor level, and a Triton-like kernel vocabulary.

Formats and their facts: ``dialects.qdot.formats`` (``Format``, ``format_info``, ``ScaleKind``).
Types: ``!qdot.block<q4_K>``, ``!qdot.ptr<T>``, ``!qdot.desc<64x128xT>`` (``dialects.qdot.types``).
Ops: ``qdot.dot_scaled`` (``dialects.qdot.ops``) and the kernel ops ``program_id``,
``num_programs``, ``make_desc``, ``load``, ``store``, ``trans``, ``quantize``
(``dialects.qdot.kernel``).
"""

from __future__ import annotations

from xdsl.ir import Dialect

from dialects.qdot.attrs import Axis, AxisAttr, FormatAttr
from dialects.qdot.dot import DotProblem, OperandTypes, dot_problem
from dialects.qdot.formats import (
    BLOCK_PAIRS,
    FORMAT_INFO,
    SCALE_INFO,
    Format,
    FormatInfo,
    ScaleInfo,
    ScaleKind,
    format_info,
    scale_info,
    scale_kind_of,
)
from dialects.qdot.kernel import (
    BarrierOp,
    LastArrivalOp,
    LoadOp,
    MakeDescOp,
    NumProgramsOp,
    PrefetchOp,
    ProgramIdOp,
    QuantizeOp,
    StoreOp,
    TransOp,
)
from dialects.qdot.kernel_attrs import (
    KERNEL_ATTR,
    NUM_WARPS_ATTR,
    is_kernel,
    mark_kernel,
    num_warps,
)
from dialects.qdot.ops import DotScaledOp
from dialects.qdot.types import BlockType, DescType, PtrType

QDot = Dialect(
    "qdot",
    [DotScaledOp, ProgramIdOp, NumProgramsOp, MakeDescOp, LoadOp, StoreOp, PrefetchOp, TransOp, QuantizeOp,
     LastArrivalOp, BarrierOp],
    [FormatAttr, AxisAttr, BlockType, PtrType, DescType],
)

__all__ = [
    "BLOCK_PAIRS",
    "FORMAT_INFO",
    "KERNEL_ATTR",
    "NUM_WARPS_ATTR",
    "SCALE_INFO",
    "Axis",
    "AxisAttr",
    "BarrierOp",
    "BlockType",
    "DescType",
    "DotProblem",
    "DotScaledOp",
    "Format",
    "FormatAttr",
    "FormatInfo",
    "LastArrivalOp",
    "LoadOp",
    "MakeDescOp",
    "NumProgramsOp",
    "OperandTypes",
    "PrefetchOp",
    "ProgramIdOp",
    "PtrType",
    "QDot",
    "QuantizeOp",
    "ScaleInfo",
    "ScaleKind",
    "StoreOp",
    "TransOp",
    "dot_problem",
    "format_info",
    "is_kernel",
    "mark_kernel",
    "num_warps",
    "scale_info",
    "scale_kind_of",
]
