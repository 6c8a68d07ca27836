"""The `ptx` dialect: one op per PTX instruction qdot emits (MLIR's `nvvm` in spirit).

`PTX` is the Dialect object; `check_arch` rejects instructions a target cannot run;
`dialects.ptx.arch` holds the targets and their PTX ISA versions.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from dialects.ptx.arch import Arch, Feature, PtxVersion, Requirement
from dialects.ptx.attrs import ATTRIBUTES
from dialects.ptx.check import check_arch
from dialects.ptx.ops import OPERATIONS

PTX = Dialect("ptx", OPERATIONS, ATTRIBUTES)

__all__ = ["PTX", "Arch", "Feature", "PtxVersion", "Requirement", "check_arch"]
