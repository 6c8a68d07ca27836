"""The qgpu dialect: layouts and GPU memory, Triton's ``ttg`` under the same spellings (DESIGN.md §2).

Encodings (``encodings``): ``#qgpu.blocked``, ``#qgpu.mma``, ``#qgpu.dot_op``,
``#qgpu.dot_scale``, ``#qgpu.shared``. Type (``types``): ``!qgpu.memdesc``.
Ops (``ops``): ``local_alloc``, ``local_load``, ``local_store``, ``async_copy``,
``async_commit``, ``async_wait``, ``memdesc_index``, ``memdesc_trans``,
``convert_layout``, ``mma``, ``upcast``.

What an encoding means for a tensor — which thread, register and byte holds
which element — is defined once in ``layouts`` (``distributed_layout``,
``shared_layout``, ``describe_module_layouts``); ``ldmatrix`` has the
instruction's own distributions for lowering to match against.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from dialects.qgpu.encodings import (
    BlockedEncodingAttr,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    MmaEncodingAttr,
    SharedEncodingAttr,
)
from dialects.qgpu.ops import (
    ALL_OPS,
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    ConvertLayoutOp,
    LocalAllocOp,
    LocalLoadOp,
    LocalStoreOp,
    MemDescIndexOp,
    MemDescTransOp,
    MmaOp,
    UpcastOp,
    WarpGroupDotOp,
    WarpGroupDotWaitOp,
)
from dialects.qgpu.block_parts import BlockPartEncodingAttr, BlockPartOp
from dialects.qgpu.register_formats import RegFormat, RegFormatAttr, Rescale
from dialects.qgpu.types import MemDescType

QGPU = Dialect(
    "qgpu",
    [*ALL_OPS, BlockPartOp],
    [BlockedEncodingAttr, MmaEncodingAttr, DotOperandEncodingAttr, DotScaleEncodingAttr, SharedEncodingAttr,
     MemDescType, RegFormatAttr, BlockPartEncodingAttr],
)

__all__ = [
    "QGPU",
    "AsyncCommitOp",
    "BlockPartEncodingAttr",
    "BlockPartOp",
    "AsyncCopyOp",
    "AsyncWaitOp",
    "BlockedEncodingAttr",
    "ConvertLayoutOp",
    "DotOperandEncodingAttr",
    "DotScaleEncodingAttr",
    "LocalAllocOp",
    "LocalLoadOp",
    "LocalStoreOp",
    "MemDescIndexOp",
    "MemDescTransOp",
    "MemDescType",
    "MmaEncodingAttr",
    "MmaOp",
    "RegFormat",
    "RegFormatAttr",
    "Rescale",
    "SharedEncodingAttr",
    "UpcastOp",
    "WarpGroupDotOp",
    "WarpGroupDotWaitOp",
]
