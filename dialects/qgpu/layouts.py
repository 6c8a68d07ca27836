"""The one definition of every qgpu layout: which thread, register and byte holds which element.

Lowering, verification and ``qdot-opt --print-layout`` all call these functions;
nothing else re-derives a layout. Entry points:

    distributed_layout(tensor_type) -> DistributedLayout    (blocked, mma, dot_op, dot_scale)
    shared_layout(memdesc_type)     -> SharedLayout         (#qgpu.shared; shared_layout.py)
    describe_module_layouts(module) -> str                  (--print-layout; describe.py)

Import from here; the classes live in ``distributed.py`` (the shared decomposition),
``mma_layouts.py`` (mma, dot_op, dot_scale), ``blocked_layout.py`` and ``shared_layout.py``.

A distributed layout answers, for a thread ``(warp, lane)`` and byte ``byte``
(0..3) of its 32-bit register ``reg``, ``coords(warp, lane, reg, byte)``: the
logical element that byte holds, or None. An element wider than a byte maps
only from the byte it starts at (16-bit: bytes 0 and 2; 32-bit: byte 0).
``owners(coords)`` is the inverse and lists every slot holding the element
(operands are replicated across warps). Every layout here has the form

    coords = (reg_offset(reg, byte) + Σ lane fields + Σ warp fields) mod shape

where a field is ``((lane or warp) >> shift & (2^width - 1)) · scale`` added to
one dimension: ``coord_exprs(reg, byte)`` hands that structure to lowering,
which evaluates ``reg_offset`` at compile time and builds index arithmetic from
the fields. ``coords`` is computed from this same structure.

Conventions (``g = lane >> 2``, ``t = lane & 3``; PTX ISA 9.0 §9.7.14.5, reference/ptx.md §3):

``#qgpu.mma<{warpsPerCTA = [WM, WN], instrShape = [16, 8]}>`` on an ``M × N`` f32/i32
accumulator: warp ``w`` has ``wm = w % WM``, ``wn = w // WM``. The CTA tile is
``(16·WM) × (8·WN)``, repeated ``repM = M/(16·WM)`` × ``repN = N/(8·WN)`` times.
Element ``(m, n)``: ``mi = m % 16``, ``rm = m // (16·WM)``, ``ni = n % 8``,
``rn = n // (8·WN)``; lane ``4·(mi & 7) + (ni >> 1)``, register
``(rm·repN + rn)·4 + 2·(mi >> 3) + (ni & 1)``, byte 0. This is the C/D fragment of
m16n8k16/m16n8k32: ``c_i`` at row ``g + 8(i >> 1)``, column ``2t + (i & 1)`` (§9.7.14.5.8/.10).

``#qgpu.dot_op<{opIdx, parent = #mma, kWidth}>``: values of ``b`` bits (8 for i8/f8 and
fp4Unpacked, 16 for bf16/f16), ``kpr = 32/b`` per register, ``Kt = 256/b`` per
instruction k-tile (m16n8k32 for 8-bit, m16n8k16 for 16-bit). A (``M × K``, opIdx 0)
has 4 registers per 16 × Kt tile, register ``r`` on row ``g + 8·(r & 1)`` and
column half ``c = r >> 1``; B (``K × N``, opIdx 1) has 2 registers per Kt × 8 tile,
column ``n = g``, ``c = r``. Byte/half ``j`` of a register holds, by ``kWidth``
(in values, ``w``):

* ``w = kpr`` — the ISA's own layout: ``k = kpr·t + c·Kt/2 + j``
  (8-bit: §9.7.14.5.10, reference/ptx.md §3.1; bf16: §9.7.14.5.8, §3.6);
* ``w = 2·kpr`` — ``k = 2·kpr·t + c·kpr + j``: thread ``t`` holds 2·kpr consecutive k
  of the tile (a K permutation inside the tile; applied to A and B alike it leaves
  the product unchanged; what upcasts from packed fp4 produce);
* ``w = 4·kpr`` — Triton's "largeK": thread ``t`` holds 4·kpr consecutive k of a
  pair of tiles, tile ``s ∈ {0, 1}``: ``k = 4·kpr·t + 2·kpr·s + c·kpr + j``.

In all three, thread ``t`` holds exactly the k with ``(k // w) % 4 == t``.
Registers: A ``(rm·repK + rk)·4 + r``, B ``(rn·repK + rk)·2 + r`` for k-tile ``rk``;
A's warps follow ``wm`` (replicated over ``wn``), B's follow ``wn``.
``fp4Unpacked``: the tensor is packed i8 (two e2m1 along K, low nibble first) but each
register byte holds one value ``0000xxxx`` (after ``ldmatrix .b8x16.b4x16_p64``):
the values follow the 8-bit layout with ``kWidth`` counted in packed bytes
(``w = 2·kWidth``), and coordinates gain a nibble: A ``(m, k_packed, nibble)``,
B ``(k_packed, n, nibble)`` with value ``k = 2·k_packed + nibble``. This is the
``kind::f8f6f4`` e2m1 container fragment (§9.7.14.5.14, reference/ptx.md §3.3).

``#qgpu.dot_scale<{opIdx, parent = #mma}>`` on ``[M, KB]`` (A) / ``[N, KB]`` (B) scales
(KB = K/32 for ue8m0, K/16 for ue4m3): each thread holds the scales of its own
accumulator rows/columns. A: rows ``wm·16 + rm·16·WM + g + 8h``; B: columns
``wn·8 + rn·8·WN + 2t + h``; element ``e = (rep·2 + h)·KB + kb`` at register
``e // (32/bits)``, byte position ``e % (32/bits)`` (one byte each for f8 scales).

``#qgpu.blocked``: Triton's blocked layout. Lanes and warps are split over the
dimensions along ``order`` (``order[0]`` fastest); dimension ``d`` of an element is
``rep·(spt·tpw·wpc) + warp_d·(spt·tpw) + lane_d·spt + s``, modulo the shape (a tensor
smaller than the CTA tile wraps, i.e. is replicated). A thread's elements are numbered
with ``sizePerThread`` positions fastest, then repetitions, each along ``order``, and
packed into registers by width (8-bit: 4 per register, 16-bit: 2, 32-bit: 1).
"""

from __future__ import annotations


from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, Operation

from compiler.diagnostics import dims_text
from dialects.qgpu.blocked_layout import BlockedLayout
from dialects.qgpu.distributed import BitField, CoordExpr, DistributedLayout, Slot, Source
from dialects.qgpu.elements import storage_bits
from dialects.qgpu.encodings import (
    BlockedEncodingAttr,
    DotOperandEncodingAttr,
    DotScaleEncodingAttr,
    MmaEncodingAttr,
)
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.mma_layouts import MMA_M, MMA_N, DotOperandLayout, DotScaleLayout, KMode, MmaLayout, warps_of_mma
from dialects.qgpu.shared_layout import (
    SharedLayout,
    Swizzle,
    allocation_bytes,
    conflict_free_swizzle,
    shared_encoding_for,
    shared_layout,
)



def _mma_layout(shape: tuple[int, ...], element_type: Attribute, mma: MmaEncodingAttr) -> MmaLayout:
    if len(shape) != 2:
        raise LayoutError(f"an #qgpu.mma accumulator must be 2-D [M, N], got shape {dims_text(shape)}")
    bits = storage_bits(element_type)
    if bits not in (16, 32):
        raise LayoutError(f"an #qgpu.mma tensor must have 32-bit elements (an f32 or i32 accumulator) or 16-bit "
                          f"ones (an accumulator converted to bf16 or f16), got {element_type}")
    wm, wn = warps_of_mma(mma)
    _check_multiple(shape[0], MMA_M * wm, "dimension 0 (M)", f"16·warpsPerCTA[0] = {MMA_M * wm}")
    _check_multiple(shape[1], MMA_N * wn, "dimension 1 (N)", f"8·warpsPerCTA[1] = {MMA_N * wn}")
    return MmaLayout(shape, element_type, wm, wn, bits)


def _check_multiple(value: int, unit: int, what: str, rule: str) -> None:
    if value % unit:
        raise LayoutError(f"{what} = {value} must be a multiple of {rule}")


def _dot_operand_layout(shape: tuple[int, ...], element_type: Attribute,
                        enc: DotOperandEncodingAttr) -> DotOperandLayout:
    side = "A (opIdx 0)" if enc.op_idx == 0 else "B (opIdx 1)"
    if len(shape) != 2:
        raise LayoutError(f"a #qgpu.dot_op operand {side} must be 2-D, got shape {dims_text(shape)}")
    if enc.fp4_unpacked:
        if element_type != IntegerType(8):
            raise LayoutError(f"an fp4Unpacked operand holds packed fp4 in i8, got element type {element_type}")
        value_bits = 8
    else:
        bits = storage_bits(element_type)
        if bits not in (8, 16):
            raise LayoutError(f"a #qgpu.dot_op operand needs 8- or 16-bit elements, got {element_type}")
        value_bits = bits
    wm, wn = warps_of_mma(enc.parent)
    layout = DotOperandLayout(shape, element_type, enc.op_idx, wm, wn, enc.k_width, enc.fp4_unpacked, value_bits)
    kpr = layout.values_per_reg
    allowed = (kpr, 2 * kpr, 4 * kpr)
    if layout.k_width_values not in allowed:
        if enc.fp4_unpacked:
            raise LayoutError(
                f"kWidth = {enc.k_width} is not valid for an fp4Unpacked operand: it counts packed bytes and must "
                f"be {kpr // 2}, {kpr} or {2 * kpr} (= {kpr}, {2 * kpr} or {4 * kpr} fp4 values)")
        raise LayoutError(
            f"kWidth = {enc.k_width} is not valid for {value_bits}-bit elements: it must be "
            f"{allowed[0]}, {allowed[1]} or {allowed[2]}")
    if layout.is_a:
        _check_multiple(shape[0], layout.mn_tile, "dimension 0 (M) of operand A", f"16·warpsPerCTA[0] = {layout.mn_tile}")
    else:
        _check_multiple(shape[1], layout.mn_tile, "dimension 1 (N) of operand B", f"8·warpsPerCTA[1] = {layout.mn_tile}")
    span = layout.k_tile * (2 if layout.k_mode == KMode.LARGE_K else 1)
    k_name = f"dimension {layout.k_dim} (K) of operand {'A' if layout.is_a else 'B'}"
    if enc.fp4_unpacked:
        _check_multiple(layout.k_values, span, f"{k_name} in fp4 values ({shape[layout.k_dim]} packed bytes)",
                        f"{span} (the k-span of kWidth = {enc.k_width})")
    else:
        _check_multiple(shape[layout.k_dim], span, k_name, f"{span} (the k-span of kWidth = {enc.k_width} for "
                                                             f"{value_bits}-bit elements)")
    return layout


def _dot_scale_layout(shape: tuple[int, ...], element_type: Attribute, enc: DotScaleEncodingAttr) -> DotScaleLayout:
    if len(shape) != 2:
        raise LayoutError(f"a #qgpu.dot_scale tensor must be 2-D [rows, K blocks], got shape {dims_text(shape)}")
    bits = storage_bits(element_type)
    if bits not in (8, 16, 32):
        raise LayoutError(f"a #qgpu.dot_scale tensor needs 8-, 16- or 32-bit elements, got {element_type}")
    wm, wn = warps_of_mma(enc.parent)
    layout = DotScaleLayout(shape, element_type, enc.op_idx, wm, wn, bits, enc.operand_side)
    what = "dimension 0 (M) of an A scale" if layout.is_a else "dimension 0 (N) of a B scale"
    rule = f"16·warpsPerCTA[0] = {layout.mn_tile}" if layout.is_a else f"8·warpsPerCTA[1] = {layout.mn_tile}"
    _check_multiple(shape[0], layout.mn_tile, what, rule)
    return layout


def _blocked_layout(shape: tuple[int, ...], element_type: Attribute, enc: BlockedEncodingAttr) -> BlockedLayout:
    if len(shape) != enc.rank:
        raise LayoutError(f"a #qgpu.blocked encoding of rank {enc.rank} cannot lay out a tensor of shape {dims_text(shape)}")
    bits = storage_bits(element_type)
    if bits not in (8, 16, 32):
        raise LayoutError(f"a #qgpu.blocked tensor needs 8-, 16- or 32-bit elements, got {element_type}")
    layout = BlockedLayout(shape, element_type, enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta,
                           enc.dim_order, bits)
    for d, (n, tile) in enumerate(zip(shape, layout.cta_tile, strict=True)):
        if n % tile and tile % n:
            raise LayoutError(
                f"dimension {d} = {n} must divide or be a multiple of the CTA tile sizePerThread·threadsPerWarp·"
                f"warpsPerCTA = {tile}")
    return layout


def distributed_layout(tensor_type: Attribute) -> DistributedLayout:
    """The layout of a ``tensor<..., #enc>``; raises ``LayoutError`` when the encoding does not fit."""
    if not isinstance(tensor_type, TensorType):
        raise LayoutError(f"expected a tensor type, got {tensor_type}")
    shape = tensor_type.get_shape()
    if any(d <= 0 for d in shape):
        raise LayoutError(f"a distributed tensor needs a static, non-empty shape, got {dims_text(shape)}")
    element_type = tensor_type.get_element_type()
    enc = tensor_type.encoding
    if isinstance(enc, MmaEncodingAttr):
        return _mma_layout(shape, element_type, enc)
    if isinstance(enc, DotOperandEncodingAttr):
        return _dot_operand_layout(shape, element_type, enc)
    if isinstance(enc, DotScaleEncodingAttr):
        return _dot_scale_layout(shape, element_type, enc)
    if isinstance(enc, BlockedEncodingAttr):
        return _blocked_layout(shape, element_type, enc)
    raise LayoutError(f"tensor has no qgpu layout encoding (#qgpu.blocked, mma, dot_op or dot_scale), got {enc}")


def has_distributed_encoding(tensor_type: Attribute) -> bool:
    return isinstance(tensor_type, TensorType) and isinstance(
        tensor_type.encoding, BlockedEncodingAttr | MmaEncodingAttr | DotOperandEncodingAttr | DotScaleEncodingAttr)


def describe_module_layouts(module: Operation) -> str:
    """The ``--print-layout`` report of every distributed tensor and memdesc type in ``module`` (describe.py)."""
    from dialects.qgpu.describe import describe_module_layouts as describe  # describe.py imports this module

    return describe(module)


__all__ = [
    "BitField",
    "BlockedLayout",
    "CoordExpr",
    "DistributedLayout",
    "DotOperandLayout",
    "DotScaleLayout",
    "KMode",
    "LayoutError",
    "MmaLayout",
    "SharedLayout",
    "Slot",
    "Source",
    "Swizzle",
    "allocation_bytes",
    "conflict_free_swizzle",
    "describe_module_layouts",
    "distributed_layout",
    "has_distributed_encoding",
    "shared_encoding_for",
    "shared_layout",
]
