"""Every op of the `ptx` dialect (one op per PTX instruction), gathered from its concept modules."""

from __future__ import annotations

from dialects.ptx.alu import (
    ALU_OPS,
    CVT_FORMS,
    BitcastOp,
    CvtForm,
    CvtOp,
    FmaRnBf16x2Op,
    Lop3Op,
    MulRnBf16x2Op,
    PackOp,
    PrmtOp,
    ShflSyncOp,
    SpecialRegOp,
    UnpackOp,
)
from dialects.ptx.base import PtxInstruction
from dialects.ptx.grid_dependency import GRID_DEPENDENCY_OPS, GridDepLaunchDependentsOp, GridDepWaitOp
from dialects.ptx.memory import (
    MEMORY_OPS,
    BarSyncOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
    LdGlobalOp,
    LdmatrixOp,
    LdSharedOp,
    PrefetchGlobalL2Op,
    RedGlobalAddOp,
    StGlobalOp,
    StSharedOp,
    ldmatrix_register_count,
)
from dialects.ptx.mma import MMA_OPS, MmaForm, MmaSignature, MmaSyncOp, mma_form
from dialects.ptx.sync import SYNC_OPS, AtomGlobalAddOp, BarRedOrOp, FenceAcqRelGpuOp
from dialects.ptx.wgmma import (
    WGMMA_OPS,
    FenceProxyAsyncOp,
    SmemDescriptor,
    WgmmaCommitOp,
    WgmmaFenceOp,
    WgmmaOp,
    WgmmaWaitOp,
)

OPERATIONS = [*MEMORY_OPS, *SYNC_OPS, *MMA_OPS, *WGMMA_OPS, *GRID_DEPENDENCY_OPS, *ALU_OPS]

__all__ = [
    "CVT_FORMS",
    "OPERATIONS",
    "AtomGlobalAddOp",
    "BarRedOrOp",
    "BarSyncOp",
    "BitcastOp",
    "CpAsyncCommitOp",
    "CpAsyncOp",
    "CpAsyncWaitOp",
    "CvtForm",
    "CvtOp",
    "FenceAcqRelGpuOp",
    "FenceProxyAsyncOp",
    "FmaRnBf16x2Op",
    "GridDepLaunchDependentsOp",
    "GridDepWaitOp",
    "LdGlobalOp",
    "LdSharedOp",
    "LdmatrixOp",
    "Lop3Op",
    "MmaForm",
    "MmaSignature",
    "MmaSyncOp",
    "MulRnBf16x2Op",
    "PackOp",
    "PrefetchGlobalL2Op",
    "PrmtOp",
    "PtxInstruction",
    "RedGlobalAddOp",
    "ShflSyncOp",
    "UnpackOp",
    "SmemDescriptor",
    "SpecialRegOp",
    "StGlobalOp",
    "StSharedOp",
    "WgmmaCommitOp",
    "WgmmaFenceOp",
    "WgmmaOp",
    "WgmmaWaitOp",
    "ldmatrix_register_count",
    "mma_form",
]
