"""Every qgpu op, from one import: memory ops (``memory_ops``) and register compute (``compute_ops``)."""

from __future__ import annotations

from dialects.qgpu.compute_ops import ConvertLayoutOp, MmaOp, UpcastOp
from dialects.qgpu.memory_ops import (
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    LocalAllocOp,
    LocalLoadOp,
    LocalStoreOp,
    MemDescIndexOp,
    MemDescTransOp,
    check_layout,
    transposed_memdesc,
)
from dialects.qgpu.warp_group_dot import WarpGroupDotOp, WarpGroupDotWaitOp

ALL_OPS = (
    LocalAllocOp,
    LocalLoadOp,
    LocalStoreOp,
    AsyncCopyOp,
    AsyncCommitOp,
    AsyncWaitOp,
    MemDescIndexOp,
    MemDescTransOp,
    ConvertLayoutOp,
    MmaOp,
    UpcastOp,
    WarpGroupDotOp,
    WarpGroupDotWaitOp,
)

__all__ = [
    "ALL_OPS",
    "AsyncCommitOp",
    "AsyncCopyOp",
    "AsyncWaitOp",
    "ConvertLayoutOp",
    "LocalAllocOp",
    "LocalLoadOp",
    "LocalStoreOp",
    "MemDescIndexOp",
    "MemDescTransOp",
    "MmaOp",
    "UpcastOp",
    "WarpGroupDotOp",
    "WarpGroupDotWaitOp",
    "check_layout",
    "transposed_memdesc",
]
