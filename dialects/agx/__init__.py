"""The agx dialect: Apple's 8x8 simdgroup matrix multiply-accumulate on register fragments.

Types: ``!agx.frag<fp16>`` / ``!agx.frag<fp32, r8>`` (``dialects.agx.types``).
Ops: ``agx.load_frag``, ``agx.dequant_frag``, ``agx.mma8``, ``agx.store_tile``
(``dialects.agx.ops``). Lowered from ``qdot.dot_scaled`` by ``qdot-to-agx``;
registers by ``agx-allocate-registers``; hints and wait slots by
``agx-hints-and-waits``; bytes by ``targets.agx.emit``.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from dialects.agx.ops import FORM_ATTR, DequantFragOp, LoadFragOp, Mma8Op, StoreTileOp, form_of
from dialects.agx.types import FragType

AGX = Dialect("agx", [LoadFragOp, DequantFragOp, Mma8Op, StoreTileOp], [FragType])

__all__ = ["AGX", "FORM_ATTR", "DequantFragOp", "FragType", "LoadFragOp", "Mma8Op", "StoreTileOp", "form_of"]
