"""qgpu ops that compute in registers: ``convert_layout``, ``mma``, ``upcast``.

    %t2 = qgpu.convert_layout %t : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
    %d  = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<..., #dot_a>, tensor<..., #dot_b>, tensor<..., #mma>
          -> tensor<...xi32, #mma>
    %d  = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e2m1 {rescale = "hw"}
          : tensor<...>, tensor<...>, tensor<...>, tensor<...xf8E8M0FNU, #sa>, tensor<...xf8E8M0FNU, #sb> -> tensor<...>
    %u  = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #dot_op<kWidth = 4>> -> tensor<16x64xi8, #dot_op<kWidth = 8>>
    %u  = qgpu.upcast %x scale %s from = e2m1 to = bf16 : tensor<...xi8, ...>, tensor<...xf8E8M0FNU, ...> -> tensor<...xbf16, ...>

Layouts are checked through ``dialects.qgpu.layouts``; format facts come from
``register_formats`` (and through it from the qdot formats table).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from compiler.diagnostics import dims_text
from dialects.qdot.formats import Format, scale_info, scale_kind_of
from dialects.qgpu.encodings import BlockedEncodingAttr, DotOperandEncodingAttr, DotScaleEncodingAttr, MmaEncodingAttr
from dialects.qgpu.layouts import DotOperandLayout, distributed_layout
from dialects.qgpu.memory_ops import check_layout
from dialects.qgpu.register_formats import (
    HIGH_BITS,
    HIGH_WORDS,
    INTEGER_FORMATS,
    INTEGER_SCALED,
    NIBBLE_K_WIDTH,
    keeps_k_width,
    nibble_span,
    SMALL_FLOATS,
    RegFormat,
    RegFormatAttr,
    Rescale,
    element_type,
    mma_pair_problem,
    upcast_problem,
    values_per_element,
)

def _per_group_problem(value: SSAValue | None, res_enc: DotOperandEncodingAttr, dst: DotOperandLayout, group: int,
                       element: Attribute) -> str | None:
    """What is wrong with an upcast's per-``group``-values operand (q5_0's qh words, q2_K's scales), which
    must sit in the operand scale layout of the result's parent and side — the threads of the operand's
    values — or None."""
    tensor = _tensor(value)
    enc = tensor.encoding
    want = (dst.shape[dst.mn_dim], dst.shape[dst.k_dim] // group)
    if isinstance(enc, DotScaleEncodingAttr) and enc.op_idx == res_enc.op_idx and enc.parent == res_enc.parent and \
            enc.operand_side and tensor.get_element_type() == element and tensor.get_shape() == want:
        return None
    return (f"{element} of shape {dims_text(want)} (one per {group} values) in #qgpu.dot_scale<{{opIdx = "
            f"{res_enc.op_idx}, parent = ..., operand = true}}> of the result's parent (the threads of the operand's "
            f"values), got {tensor}")


_PARTS_OF_BYTE = {2: "two nibbles", 4: "four 2-bit fields"}
"""How the values of one packed byte are named in a diagnostic, by values per byte."""

PER_BLOCK_SCALE_TYPES = ("f32", "f16", "bf16")
"""Scale element types accepted besides ue8m0/ue4m3 when the rescale happens in f32 (per_block)."""



def _format_attr(fmt: RegFormat | str | RegFormatAttr) -> RegFormatAttr:
    return fmt if isinstance(fmt, RegFormatAttr) else RegFormatAttr(RegFormat(fmt))


def _tensor(value: SSAValue) -> TensorType[Attribute]:
    assert isinstance(value.type, TensorType)
    return value.type  # pyright: ignore[reportUnknownVariableType]


@irdl_op_definition
class ConvertLayoutOp(IRDLOperation):
    """The same tensor in another distributed layout (``ttg.convert_layout``)."""

    name = "qgpu.convert_layout"

    src = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: TensorType[Attribute]):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        src, result = _tensor(self.src), _tensor(self.result)
        if src.get_shape() != result.get_shape():
            raise VerifyException(
                f"result shape {dims_text(result.get_shape())} must equal the source shape {dims_text(src.get_shape())}")
        if src.get_element_type() != result.get_element_type():
            raise VerifyException(
                f"result element type {result.get_element_type()} must equal the source's {src.get_element_type()}")
        check_layout("source", src)
        check_layout("result", result)


def _check_dot_operand(name: str, value: SSAValue, op_idx: int, parent: MmaEncodingAttr | None,
                       fmt: RegFormat) -> DotOperandLayout:
    tensor = _tensor(value)
    enc = tensor.encoding
    if not isinstance(enc, DotOperandEncodingAttr) or enc.op_idx != op_idx:
        raise VerifyException(f"{name} must have a #qgpu.dot_op encoding with opIdx = {op_idx}, got {enc}")
    if parent is not None and enc.parent != parent:
        raise VerifyException(f"{name} encoding parent {enc.parent} must be the result's #qgpu.mma encoding {parent}")
    check_layout(name, tensor)
    expected = element_type(fmt)
    if tensor.get_element_type() != expected:
        raise VerifyException(f"{name} format {fmt} travels in {expected} elements, got {tensor.get_element_type()}")
    if enc.fp4_unpacked and fmt != RegFormat.E2M1:
        raise VerifyException(f"{name} is fp4Unpacked, which holds e2m1 values, but its format is {fmt}")
    layout = distributed_layout(tensor)
    assert isinstance(layout, DotOperandLayout)
    return layout


def _scale_group(name: str, scale: TensorType[Attribute], k_values: int, rescale: Rescale | None) -> int:
    """K values per scale of a scale tensor: from its element type, or (per_block f32 scales) from its shape."""
    elem = scale.get_element_type()
    kind = scale_kind_of(elem)
    if kind is not None:
        return scale_info(kind).group_size
    if rescale == Rescale.PER_BLOCK and str(elem) in PER_BLOCK_SCALE_TYPES:
        cols = scale.get_shape()[1] if len(scale.get_shape()) == 2 else 0
        group = k_values // cols if cols else 0
        if group not in (16, 32) or group * cols != k_values:
            raise VerifyException(
                f"{name} has {cols} columns for K = {k_values} values: a {elem} scale must cover 16 or 32 values each")
        return group
    allowed = "f8E8M0FNU (ue8m0, per 32) or f8E4M3FN (ue4m3, per 16)"
    if rescale == Rescale.PER_BLOCK:
        allowed += " or, for per_block, f32/f16/bf16"
    raise VerifyException(f"{name} element type must be {allowed}, got {elem}")


def _check_scale_tensor(name: str, value: SSAValue, op_idx: int, parent: MmaEncodingAttr, rows: int,
                        k_values: int, rescale: Rescale | None) -> int:
    scale = _tensor(value)
    enc = scale.encoding
    if not isinstance(enc, DotScaleEncodingAttr) or enc.op_idx != op_idx or enc.parent != parent:
        raise VerifyException(
            f"{name} must have a #qgpu.dot_scale encoding with opIdx = {op_idx} and the parent {parent}, got {enc}")
    group = _scale_group(name, scale, k_values, rescale)
    if k_values % group:
        raise VerifyException(f"K = {k_values} values is not a multiple of the {name} group of {group}")
    expected = (rows, k_values // group)
    if scale.get_shape() != expected:
        dim = "M" if op_idx == 0 else "N"
        raise VerifyException(
            f"{name} must have shape [{dim}, K/{group}] = {dims_text(expected)}, got {dims_text(scale.get_shape())}")
    check_layout(name, scale)
    return group


def _scale_chunks_problem(name: str, layout: DotOperandLayout, values_per_reg_value: int, group: int,
                          rescale: Rescale) -> str | None:
    """Whether the instructions of ``layout`` see whole scale groups.

    ``hw``: the instruction splits its own K into chunks of ``group`` values and
    scales chunk i with one scale, so chunk i of k-tile rk must hold exactly the
    logical values of group ``rk·(Kt/group) + i``. ``per_block``: one mma per
    scale, so all values of a k-tile must share one group.
    """
    tile_values = layout.k_tile * values_per_reg_value
    for rk in range(layout.rep_k):
        groups: set[int] = set()
        for position, logical in layout.instruction_k(rk):
            for nibble in range(values_per_reg_value):
                got = (logical * values_per_reg_value + nibble) // group
                if rescale == Rescale.HW:
                    want = rk * (tile_values // group) + (position * values_per_reg_value + nibble) // group
                    if got != want:
                        return (f"{name} kWidth = {layout.k_width} permutes K across the {group}-value scale groups "
                                f"of rescale = \"hw\" (k-tile {rk} would need scale {got} where the instruction "
                                f"applies scale {want}); use the ISA arrangement kWidth")
                groups.add(got)
        if rescale == Rescale.PER_BLOCK and len(groups) > 1:
            return (f"{name} k-tile {rk} holds K values of {len(groups)} scale groups of {group}, but "
                    f"rescale = \"per_block\" runs one mma per group")
    return None


@irdl_op_definition
class MmaOp(IRDLOperation):
    """D = A · B + C with ``mma.sync`` tiles on register operands, optionally block-scaled.

    ``lhs``/``rhs`` name what the registers hold (``register_formats``). A and B are
    ``#qgpu.dot_op`` operands (opIdx 0 and 1) of the result's ``#qgpu.mma``
    encoding with the same kWidth counted in values; C and D share a type (f32,
    or i32 for s8 / u8 operands without scales). Scales come in pairs, in
    ``#qgpu.dot_scale`` layouts, shaped ``[M, K/g]`` and ``[N, K/g]``; ``rescale``
    says how they apply (``"hw"``: the instruction's ``.block_scale`` operands,
    sm_120a; ``"per_block"``: one mma per group and an f32 fold; reference/ptx.md §4, §6.4).
    ``{qdot.scale_bits = n}`` (per_block only) says each f32 scale (and, with mins, each fold factor) has
    at most n significant bits, which lets qdot-lower-mma fold the s32 → f32 conversion into the scaling
    for n ≤ 22.
    ``{qdot.exp = array<i64: ea, eb>}`` (qdot-accelerate-matmul's, for promote-int8) gives the
    power-of-two shift of each side's values that the fold divides out.
    ``lhs_sub %sa`` / ``rhs_sub %sb`` (per_block, s8 / u8 only) are one side's integer factors per
    16 values, i32 ``[M, K/16]`` / ``[N, K/16]`` in that side's scale layout: each 32-value block's
    sum is then ``sub[2kb] · A₀B₀ + sub[2kb + 1] · A₁B₁`` over its two halves, exact in s32, before
    its f32 scales apply — q6_K's int8 scale per 16 values (llama.cpp's MMQ applies it the same way).
    ``lhs_min %ma`` / ``rhs_min %mb`` (with a fold, s8 / u8 only; one side) are that side's integer min per
    16 values, i8 ``[M, K/16]`` / ``[N, K/16]`` (bytes of the side's own format) in its *operand* scale layout (``#qgpu.dot_scale<…,
    operand = true>``): the fold term of each 32-value block is then ``fa · fb · Σ_k min[k/16] · other[k]``
    — a second s8 mma, its operand each half's min broadcast to the half's 16 values, instead of
    ``fa · fb`` alone: q2_K's dmin · m per 16 values against the activations (q8_1 keeps only per-32 sums).
    """

    name = "qgpu.mma"

    a = operand_def(TensorType)
    b = operand_def(TensorType)
    T: ClassVar = VarConstraint("T", base(TensorType))
    c = operand_def(T)
    a_scale = opt_operand_def(TensorType)
    b_scale = opt_operand_def(TensorType)
    a_fold = opt_operand_def(TensorType)
    b_fold = opt_operand_def(TensorType)
    a_sub = opt_operand_def(TensorType)
    b_sub = opt_operand_def(TensorType)
    a_min = opt_operand_def(TensorType)
    b_min = opt_operand_def(TensorType)
    lhs_format = prop_def(RegFormatAttr, prop_name="lhs")
    rhs_format = prop_def(RegFormatAttr, prop_name="rhs")
    rescale = opt_prop_def(StringAttr)
    result = result_def(T)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$a `,` $b `,` $c (`scale` $a_scale^ `,` $b_scale)? (`fold` $a_fold^ `,` $b_fold)?"
        " (`lhs_sub` $a_sub^)? (`rhs_sub` $b_sub^)? (`lhs_min` $a_min^)? (`rhs_min` $b_min^)?"
        " `lhs` `=` $lhs `rhs` `=` $rhs attr-dict"
        " `:` type($a) `,` type($b) `,` type($c) (`,` type($a_scale)^ `,` type($b_scale))?"
        " (`fold` type($a_fold)^ `,` type($b_fold))? (`lhs_sub` type($a_sub)^)? (`rhs_sub` type($b_sub)^)?"
        " (`lhs_min` type($a_min)^)? (`rhs_min` type($b_min)^)?"
        " `->` type($result)"
    )

    def __init__(self, a: SSAValue | Operation, b: SSAValue | Operation, c: SSAValue | Operation,
                 lhs: RegFormat | str | RegFormatAttr, rhs: RegFormat | str | RegFormatAttr,
                 a_scale: SSAValue | Operation | None = None, b_scale: SSAValue | Operation | None = None,
                 rescale: Rescale | str | None = None, a_fold: SSAValue | Operation | None = None,
                 b_fold: SSAValue | Operation | None = None, a_sub: SSAValue | Operation | None = None,
                 b_sub: SSAValue | Operation | None = None, a_min: SSAValue | Operation | None = None,
                 b_min: SSAValue | Operation | None = None):
        acc = SSAValue.get(c)
        properties: dict[str, Attribute] = {"lhs": _format_attr(lhs), "rhs": _format_attr(rhs)}
        if rescale is not None:
            properties["rescale"] = StringAttr(str(Rescale(rescale)))
        super().__init__(operands=[a, b, acc, a_scale, b_scale, a_fold, b_fold, a_sub, b_sub, a_min, b_min],
                         result_types=[acc.type], properties=properties)

    @property
    def lhs(self) -> RegFormat:
        return self.lhs_format.data

    @property
    def rhs(self) -> RegFormat:
        return self.rhs_format.data

    @property
    def rescale_mode(self) -> Rescale:
        """``none`` when the attribute is absent."""
        if self.rescale is None:
            return Rescale.NONE
        return Rescale(self.rescale.data)

    def verify_(self) -> None:
        if self.rescale is not None and self.rescale.data not in tuple(Rescale):
            choices = ", ".join(f'"{r}"' for r in Rescale)
            raise VerifyException(f"rescale must be one of {choices}, got \"{self.rescale.data}\"")
        result = _tensor(self.result)
        mma = result.encoding
        if not isinstance(mma, MmaEncodingAttr):
            raise VerifyException(f"result must have a #qgpu.mma encoding, got {mma}")
        check_layout("result", result)
        m, n = result.get_shape()
        lhs, rhs = self.lhs, self.rhs
        a = _check_dot_operand("lhs", self.a, 0, mma, lhs)
        b = _check_dot_operand("rhs", self.b, 1, mma, rhs)
        problem = mma_pair_problem(lhs, rhs)
        if problem:
            raise VerifyException(problem)
        packed = [fmt == RegFormat.E2M1 and not layout.fp4_unpacked for fmt, layout in ((lhs, a), (rhs, b))]
        if packed[0] != packed[1]:
            side = "lhs" if packed[0] else "rhs"
            raise VerifyException(
                f"{side} holds e2m1 packed two per byte (kind::mxf4, m16n8k64), which pairs only with another packed "
                f"e2m1 operand; give it fp4Unpacked (one value per byte, kind::f8f6f4) or upcast it")
        vpe_a, vpe_b = values_per_element(lhs), values_per_element(rhs)
        ka, kb = a.k_width * vpe_a, b.k_width * vpe_b
        if ka != kb:
            raise VerifyException(
                f"kWidth must be equal on both sides in values: lhs kWidth = {a.k_width} is {ka} {lhs} values, "
                f"rhs kWidth = {b.k_width} is {kb} {rhs} values")
        k_a, k_b = a.shape[1] * vpe_a, b.shape[0] * vpe_b
        if k_a != k_b:
            raise VerifyException(
                f"K must agree: lhs {dims_text(a.shape)} holds K = {k_a} values, rhs {dims_text(b.shape)} holds K = {k_b}")
        if a.shape[0] != m or b.shape[1] != n:
            raise VerifyException(
                f"lhs [M, K] = {dims_text(a.shape)} and rhs [K, N] = {dims_text(b.shape)} must match the result "
                f"[M, N] = {dims_text((m, n))}")
        self._verify_accumulator(result.get_element_type())
        self._verify_scales(mma, m, n, k_a, a, b, packed[0])
        self._verify_fold(mma, m, n, k_a)
        self._verify_sub(a, b, m, n, k_a)
        self._verify_min(mma, m, n, k_a)
        self._verify_scale_bits()
        self._verify_exp()

    def _verify_exp(self) -> None:
        """``{qdot.exp = array<i64: ea, eb>}``: the power-of-two shifts that made each side's values
        s8 integers (e2m1 × 2, e2m3 × 8), which the per-block fold divides out again."""
        exp = self.attributes.get("qdot.exp")
        if exp is None:
            return
        values = exp.get_values() if isinstance(exp, DenseArrayBase) and exp.elt_type == i64 else None
        if values is None or len(values) != 2 or not all(0 <= v <= 24 for v in values):
            raise VerifyException(f"qdot.exp must be array<i64: ea, eb>, two shifts from 0 to 24, got {exp}")
    def _verify_scale_bits(self) -> None:
        """``{qdot.scale_bits = n}``: every f32 scale — and, with ``lhs_min`` / ``rhs_min``, every fold
        factor — has at most n significant bits (and is below 2^104), which qdot-lower-mma trusts to take its
        magic-number rescale (n ≤ 22)."""
        bits = self.attributes.get("qdot.scale_bits")
        if bits is None:
            return
        if not isinstance(bits, IntegerAttr) or not 1 <= bits.value.data <= 24:
            raise VerifyException(f"qdot.scale_bits must be an integer from 1 to 24 (significant bits of an f32 "
                                  f"scale), got {bits}")
        if self.rescale_mode != Rescale.PER_BLOCK:
            raise VerifyException("qdot.scale_bits describes per-block scales: it needs rescale = \"per_block\"")

    def _verify_fold(self, mma: MmaEncodingAttr, m: int, n: int, k: int) -> None:
        """``fold %fa, %fb``: D -= fa[m, kb] · fb[n, kb] per scale block (the rank-1 q4_K dmin term)."""
        if (self.a_fold is None) != (self.b_fold is None):
            raise VerifyException("fold terms come in pairs: give both the lhs and the rhs fold, or neither")
        if self.a_fold is None:
            return
        if self.rescale_mode != Rescale.PER_BLOCK:
            raise VerifyException("fold terms apply per scale block: they need rescale = \"per_block\"")
        for name, value, op_idx, rows, scale in (("lhs fold", self.a_fold, 0, m, self.a_scale),
                                                 ("rhs fold", self.b_fold, 1, n, self.b_scale)):
            if _tensor(value).get_element_type() != Float32Type():
                raise VerifyException(f"{name} must hold f32 values, got {_tensor(value).get_element_type()}")
            if scale is not None and _tensor(value).encoding != _tensor(scale).encoding:
                raise VerifyException(f"{name} must have the layout of the matching scale, "
                                      f"{_tensor(scale).encoding}, got {_tensor(value).encoding}")
            if scale is not None and _tensor(value).get_shape() != _tensor(scale).get_shape():
                raise VerifyException(f"{name} must have the shape of the matching scale")

    def _verify_sub(self, a: DotOperandLayout, b: DotOperandLayout, m: int, n: int, k: int) -> None:
        """``lhs_sub`` / ``rhs_sub``: i32 factors per 16 values of one side, in its scale's layout. The lowering
        weights each m16n8k16 half of a 32-value block by one factor, which is the half's 16 values only in the
        ISA's K order (kWidth = 4): kWidth = 8 gives each half values 0-3, 8-11, 16-19 and 24-27."""
        for name, value, rows, scale in (("lhs_sub", self.a_sub, m, self.a_scale), ("rhs_sub", self.b_sub, n, self.b_scale)):
            if value is None:
                continue
            if self.rescale_mode != Rescale.PER_BLOCK or self.lhs not in INTEGER_FORMATS or \
                    self.rhs not in INTEGER_FORMATS:
                raise VerifyException(f"{name} splits each per-block s8 / u8 sum in two: it needs rescale = "
                                      f"\"per_block\" and integer operands, got lhs = {self.lhs}, rhs = {self.rhs}")
            for side, layout in (("lhs", a), ("rhs", b)):
                width = layout.k_width
                if width != 4:
                    raise VerifyException(f"{name} weights each 16-value half of a block, which an m16n8k16 holds "
                                          f"in the ISA's K order only: the {side} operand needs kWidth = 4, got "
                                          f"kWidth = {width}")
            tensor, scale_t = _tensor(value), _tensor(scale)
            if tensor.get_element_type() != IntegerType(32):
                raise VerifyException(f"{name} must hold i32 factors, got {tensor.get_element_type()}")
            if k % 32 or scale_t.get_shape()[1] != k // 32:
                raise VerifyException(f"{name} halves 32-value scale blocks: the scales must be per 32 values")
            want = [rows, k // 16]
            if list(tensor.get_shape()) != want:
                raise VerifyException(f"{name} must have shape {dims_text(want)} (one factor per 16 values), "
                                      f"got {dims_text(tensor.get_shape())}")
            if tensor.encoding != scale_t.encoding:
                raise VerifyException(f"{name} must have the layout of the matching scale, {scale_t.encoding}, "
                                      f"got {tensor.encoding}")

    def _verify_min(self, mma: MmaEncodingAttr, m: int, n: int, k: int) -> None:
        """``lhs_min`` / ``rhs_min``: one side's i8 min per 16 values, in its operand scale layout, which
        weights the fold term by a second s8 mma against the other side."""
        given = [(name, value, op_idx, rows) for name, value, op_idx, rows in
                 (("lhs_min", self.a_min, 0, m), ("rhs_min", self.b_min, 1, n)) if value is not None]
        if not given:
            return
        if len(given) > 1:
            raise VerifyException("lhs_min and rhs_min: a min per 16 values weights the other side's values; "
                                  "give it on one side only")
        name, value, op_idx, rows = given[0]
        if self.a_fold is None:
            raise VerifyException(f"{name} weights the fold term: it needs fold operands (fa · fb scale its sum)")
        if self.lhs not in INTEGER_FORMATS or self.rhs not in INTEGER_FORMATS:
            raise VerifyException(f"{name} is the operand of a second s8 mma: it needs integer operands, got "
                                  f"lhs = {self.lhs}, rhs = {self.rhs}")
        operand = _check_dot_operand(name.split("_")[0], self.a if op_idx == 0 else self.b, op_idx, mma,
                                     self.lhs if op_idx == 0 else self.rhs)
        if operand.k_width != 4:
            raise VerifyException(f"{name} repeats a min over each operand register's four values: the "
                                  f"{name.split('_')[0]} operand needs kWidth = 4, got kWidth = {operand.k_width}")
        tensor = _tensor(value)
        if tensor.get_element_type() != IntegerType(8):
            raise VerifyException(f"{name} must hold i8 mins (one byte each, the operand's values), "
                                  f"got {tensor.get_element_type()}")
        want = [rows, k // 16]
        if k % 32 or list(tensor.get_shape()) != want:
            raise VerifyException(f"{name} must have shape {dims_text(want)} (one min per 16 values), "
                                  f"got {dims_text(tensor.get_shape())}")
        expected = DotScaleEncodingAttr(op_idx, mma, operand=True)
        if tensor.encoding != expected:
            raise VerifyException(f"{name} must be in its side's operand scale layout, {expected}, "
                                  f"got {tensor.encoding}")

    def _verify_accumulator(self, acc: Attribute) -> None:
        if acc == IntegerType(32):
            if self.lhs not in INTEGER_FORMATS or self.rhs not in INTEGER_FORMATS or self.a_scale is not None:
                raise VerifyException(
                    f"an i32 accumulator needs s8 / u8 operands and no scales, got lhs = {self.lhs}, rhs = {self.rhs}"
                    f"{' with scales' if self.a_scale is not None else ''}")
        elif acc != Float32Type():
            raise VerifyException(f"accumulator and result must be f32 (or i32 for s8 / u8 operands), got {acc}")

    def _verify_scales(self, mma: MmaEncodingAttr, m: int, n: int, k: int, a: DotOperandLayout,
                       b: DotOperandLayout, packed: bool) -> None:
        rescale = self.rescale_mode
        if (self.a_scale is None) != (self.b_scale is None):
            raise VerifyException("scales come in pairs: give both the lhs and the rhs scale, or neither")
        if packed and self.a_scale is None:  # scales come in pairs: neither side has one
            raise VerifyException(
                "e2m1 packed two per byte is read only by the block-scaled kind::mxf4 / mxf4nvf4 m16n8k64: it "
                "needs scales with rescale = \"hw\" (unit ue8m0 scales for an unscaled product), or fp4Unpacked "
                "operands (one value per byte, kind::f8f6f4)")
        if self.a_scale is None or self.b_scale is None:
            if rescale != Rescale.NONE:
                raise VerifyException(f"rescale = \"{rescale}\" needs scale operands")
            return
        if rescale == Rescale.NONE:
            raise VerifyException("scale operands need rescale = \"hw\" or \"per_block\"")
        group_a = _check_scale_tensor("lhs scale", self.a_scale, 0, mma, m, k, rescale)
        group_b = _check_scale_tensor("rhs scale", self.b_scale, 1, mma, n, k, rescale)
        sa, sb = _tensor(self.a_scale).get_element_type(), _tensor(self.b_scale).get_element_type()
        if sa != sb:
            raise VerifyException(f"lhs and rhs scales must have the same element type, got {sa} and {sb}")
        if group_a != group_b:
            # Each instruction (hw) or each per-block mma scales one K chunk from both sides at once.
            raise VerifyException(f"lhs and rhs scales must have the same group size (values per scale), "
                                  f"got {group_a} for lhs and {group_b} for rhs")
        if rescale == Rescale.HW:
            if self.lhs not in SMALL_FLOATS or self.rhs not in SMALL_FLOATS:
                raise VerifyException(
                    f"rescale = \"hw\" needs the block-scaled kinds (e4m3, e5m2, e2m3, e3m2, e2m1 operands); "
                    f"lhs = {self.lhs}, rhs = {self.rhs} has none")
            kind = scale_kind_of(sa)
            only = scale_info(kind).only_format if kind is not None else None
            if only == Format.E2M1 and not packed:
                raise VerifyException(
                    f"{sa} scales per 16 (ue4m3) exist only for packed e2m1 × e2m1 (kind::mxf4nvf4), got "
                    f"lhs = {self.lhs}, rhs = {self.rhs}{' (fp4Unpacked)' if a.fp4_unpacked or b.fp4_unpacked else ''}")
        for name, layout, fmt in (("lhs", a, self.lhs), ("rhs", b, self.rhs)):
            per_value = values_per_element(fmt) if not layout.fp4_unpacked else 1
            problem = _scale_chunks_problem(name, layout, per_value, group_a, rescale)
            if problem:
                raise VerifyException(problem)
        b_enc = _tensor(self.b_scale).encoding
        want_operand = rescale == Rescale.HW
        if isinstance(b_enc, DotScaleEncodingAttr) and b_enc.operand_side != want_operand:
            side = ("operand = true (the block-scaled mma takes column g's scale from lane 4g + thread-id-b)"
                    if want_operand else
                    "the accumulator columns (operand = false): per_block rescales each thread's own "
                    "accumulator columns 2t, 2t+1")
            raise VerifyException(f"rhs scale for rescale = \"{rescale}\" must use {side}")


@irdl_op_definition
class UpcastOp(IRDLOperation):
    """Convert an mma operand in registers to a wider format, exactly (``register_formats.UPCASTS``).

    Packed e2m1 unpacks to one value per element: the result's K is twice the
    source's and so is its kWidth, with the same parent and opIdx, so every
    thread keeps its own values (a thread holds k with ``(k // kWidth) % 4 == t``
    whatever the element width). ``to = s8`` yields ``value · S8_FACTOR[from]``; q4_K
    ``to = u8`` yields each nibble masked in place (a high nibble as 16 · q). A
    ``scale`` (ue8m0 per 32 or ue4m3 per 16 values, ``#qgpu.dot_scale`` with the
    same parent and opIdx) multiplies each value, for ``to = bf16`` / ``fp16`` only. q6_K
    (``from = q6_K``, its ``ql`` nibbles) takes the top two bits of every code from a ``high``
    operand, its ``qh`` bytes: i8 with the same parent, opIdx and kWidth, K a quarter of the
    result's; q5_K (its ``qs`` nibbles) the top bit, K an eighth of the result's
    (``register_formats.HIGH_BITS``), as q3_K does (its ``qs`` bytes hold four 2-bit fields each: the
    result's K is four times the source's, ``register_formats.LOW_BITS``). q5_0 and q5_1 take theirs
    from one i32 ``qh`` word per 32-value block, in the #qgpu.dot_scale layout of the result's parent and
    side (``HIGH_WORDS``). q2_K (``to = u8``, its codes 0..3) may take an integer ``scale``: i8 per 16 values
    in that operand scale layout, multiplied into each code (``INTEGER_SCALED``: its 4-bit scales, at most
    15 · 3 = 45, exact in a byte; a factor that does not keep the product below 256 wraps).
    """

    name = "qgpu.upcast"

    src = operand_def(TensorType)
    high = opt_operand_def(TensorType)
    scale = opt_operand_def(TensorType)
    from_format = prop_def(RegFormatAttr, prop_name="from")
    to_format = prop_def(RegFormatAttr, prop_name="to")
    result = result_def(TensorType)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$src (`high` $high^)? (`scale` $scale^)? `from` `=` $from `to` `=` $to attr-dict"
        " `:` type($src) (`high` type($high)^)? (`,` type($scale)^)? `->` type($result)"
    )

    def __init__(self, src: SSAValue | Operation, source: RegFormat | str | RegFormatAttr,
                 target: RegFormat | str | RegFormatAttr, result_type: TensorType[Attribute],
                 scale: SSAValue | Operation | None = None, high: SSAValue | Operation | None = None):
        super().__init__(operands=[src, high, scale], result_types=[result_type],
                         properties={"from": _format_attr(source), "to": _format_attr(target)})

    @property
    def source(self) -> RegFormat:
        return self.from_format.data

    @property
    def target(self) -> RegFormat:
        return self.to_format.data

    @property
    def k_dim(self) -> int:
        """The dimension along which values are blocked (and fp4 packed): K of a dot operand;
        the contiguous dimension (``order[0]``) of a blocked layout, which is K when a tile is
        dequantized cooperatively before it is staged for the mma."""
        enc = _tensor(self.result).encoding
        if isinstance(enc, DotOperandEncodingAttr):
            return 1 if enc.op_idx == 0 else 0
        assert isinstance(enc, BlockedEncodingAttr)
        return enc.dim_order[0]

    def verify_(self) -> None:
        problem = upcast_problem(self.source, self.target)
        if problem:
            raise VerifyException(problem)
        result = _tensor(self.result)
        res_enc = result.encoding
        if (self.high is None) != (self.source not in HIGH_BITS and self.source not in HIGH_WORDS):
            takers = ", ".join(sorted(str(f) for f in (*HIGH_BITS, *HIGH_WORDS)))
            raise VerifyException(f"from = {self.source} takes a high operand (its codes' top bits)" if self.high is None
                                  else f"only {takers} take a high operand, got from = {self.source}")
        if isinstance(res_enc, BlockedEncodingAttr):
            if self.high is not None:
                raise VerifyException(f"a {self.source} upcast converts mma operands (#qgpu.dot_op), not blocked tiles")
            self._verify_blocked(res_enc)
            return
        if not isinstance(res_enc, DotOperandEncodingAttr):
            raise VerifyException(f"result must have a #qgpu.dot_op or #qgpu.blocked encoding, got {res_enc}")
        src = _check_dot_operand("source", self.src, res_enc.op_idx, res_enc.parent, self.source)
        dst = _check_dot_operand("result", self.result, res_enc.op_idx, res_enc.parent, self.target)
        factor = values_per_element(self.source)
        expected = list(src.shape)
        expected[src.k_dim] *= factor
        if list(dst.shape) != expected:
            raise VerifyException(
                f"result shape must be {dims_text(expected)} (the source {dims_text(src.shape)} with K times {factor}), "
                f"got {dims_text(dst.shape)}")
        if nibble_span(self.source) is not None and src.k_width != NIBBLE_K_WIDTH:
            parts = "both halves" if factor == 2 else f"all {factor} parts"
            raise VerifyException(
                f"a {self.source} upcast reads kWidth = {NIBBLE_K_WIDTH} (a thread's bytes 4t..4t+3 then hold its "
                f"values of {parts} of a span), got kWidth = {src.k_width}")
        if self.high is not None and self.source in HIGH_WORDS:
            problem = _per_group_problem(self.high, res_enc, dst, 32, IntegerType(32))
            if problem:
                raise VerifyException(f"high of from = {self.source} must be the blocks' qh words: {problem}")
        elif self.high is not None:
            high = _check_dot_operand("high", self.high, res_enc.op_idx, res_enc.parent, RegFormat.S8)
            want = list(dst.shape)
            per_byte = 8 // HIGH_BITS[self.source]
            want[dst.k_dim] //= per_byte
            if list(high.shape) != want or high.k_width != NIBBLE_K_WIDTH:
                raise VerifyException(f"high must be {dims_text(want)} with kWidth = {NIBBLE_K_WIDTH} (the result's K / "
                                      f"{per_byte}: {per_byte} codes' top bits per byte), got {dims_text(high.shape)} "
                                      f"with kWidth = {high.k_width}")
        width = src.k_width if keeps_k_width(self.source) else src.k_width * factor
        if dst.k_width != width:
            raise VerifyException(
                f"result kWidth must be {width} (source kWidth = {src.k_width} of {self.source}), got {dst.k_width}")
        if self.scale is not None and self.source in INTEGER_SCALED:
            self._verify_integer_scale(res_enc, dst)
        elif self.scale is not None:
            if self.target not in (RegFormat.BF16, RegFormat.FP16):
                raise VerifyException(f"a scale needs to = bf16 or fp16, got to = {self.target}")
            rows = dst.shape[dst.mn_dim]
            group = _check_scale_tensor("scale", self.scale, res_enc.op_idx, res_enc.parent, rows,
                                        dst.shape[dst.k_dim], None)
            scale_enc = _tensor(self.scale).encoding
            if res_enc.op_idx == 1 and isinstance(scale_enc, DotScaleEncodingAttr) and not scale_enc.operand_side:
                raise VerifyException(
                    "a B-side upcast scale must follow the operand columns: use #qgpu.dot_scale<{opIdx = 1, "
                    "parent = ..., operand = true}> (a B-operand thread holds column g, not the accumulator "
                    "columns 2t, 2t+1)")
            kind = scale_kind_of(_tensor(self.scale).get_element_type())
            only = scale_info(kind).only_format if kind is not None else None
            if only == Format.E2M1 and self.source != RegFormat.E2M1:
                raise VerifyException(f"ue4m3 scales (per {group}) scale e2m1 only, got from = {self.source}")

    def _verify_integer_scale(self, res_enc: DotOperandEncodingAttr, dst: DotOperandLayout) -> None:
        """q2_K's 4-bit scale per 16 values, multiplied into its u8 codes (``INTEGER_SCALED``)."""
        problem = _per_group_problem(self.scale, res_enc, dst, 16, IntegerType(8))
        if problem:
            raise VerifyException(f"scale of from = {self.source} must be its integer scales: {problem}")

    def _verify_blocked(self, res_enc: BlockedEncodingAttr) -> None:
        """Cooperative dequantization: every thread converts a run of values along K in
        place; the scale (if any) is blocked the same way with one element per ``group``
        values of the run, so each thread holds the scales of its own values."""
        src_t, dst_t = _tensor(self.src), _tensor(self.result)
        src_enc = src_t.encoding
        if not isinstance(src_enc, BlockedEncodingAttr):
            raise VerifyException(f"source must be #qgpu.blocked like the result, got {src_enc}")
        # The layout rules (rank, whole CTA tiles) first: the rules below index the encodings by dimension.
        check_layout("source", src_t)
        check_layout("result", dst_t)
        k = res_enc.dim_order[0]
        factor = values_per_element(self.source)
        if (src_enc.threads_per_warp, src_enc.warps_per_cta, src_enc.dim_order) != \
                (res_enc.threads_per_warp, res_enc.warps_per_cta, res_enc.dim_order):
            raise VerifyException("source and result blocked layouts must place threads and warps alike")
        want_spt = list(src_enc.size_per_thread)
        want_spt[k] *= factor
        if list(res_enc.size_per_thread) != want_spt:
            raise VerifyException(f"result sizePerThread must be {want_spt} (the source's with dimension {k} "
                                  f"times {factor}), got {list(res_enc.size_per_thread)}")
        want_shape = list(src_t.get_shape())
        want_shape[k] *= factor
        if list(dst_t.get_shape()) != want_shape:
            raise VerifyException(f"result shape must be {dims_text(want_shape)}, got {dims_text(dst_t.get_shape())}")
        span = nibble_span(self.source)
        run = min(res_enc.size_per_thread[k], dst_t.get_shape()[k])  # a layout larger than the tensor replicates
        if span is not None and run % span:
            raise VerifyException(
                f"each thread's run of {run} values along K must hold whole {span}-value "
                f"{self.source} spans (a byte's {_PARTS_OF_BYTE[values_per_element(self.source)]} are "
                f"{span // values_per_element(self.source)} values apart)")
        for name, t, fmt in (("source", src_t, self.source), ("result", dst_t, self.target)):
            if t.get_element_type() != element_type(fmt):
                raise VerifyException(f"{name} format {fmt} travels in {element_type(fmt)} elements, "
                                      f"got {t.get_element_type()}")
        if self.scale is None:
            return
        if self.target not in (RegFormat.BF16, RegFormat.FP16):
            raise VerifyException(f"a scale needs to = bf16 or fp16, got to = {self.target}")
        scale_t = _tensor(self.scale)
        scale_enc = scale_t.encoding
        kind = scale_kind_of(scale_t.get_element_type())
        if kind is None:
            raise VerifyException(f"scale must be ue8m0 or ue4m3 codes, got {scale_t.get_element_type()}")
        group = scale_info(kind).group_size
        run = res_enc.size_per_thread[k]
        if run % group:
            raise VerifyException(f"each thread's run of {run} values along K must hold whole scale groups "
                                  f"of {group}")
        want_scale_spt = list(res_enc.size_per_thread)
        want_scale_spt[k] = run // group
        if not isinstance(scale_enc, BlockedEncodingAttr) or list(scale_enc.size_per_thread) != want_scale_spt or \
                (scale_enc.threads_per_warp, scale_enc.warps_per_cta, scale_enc.dim_order) != \
                (res_enc.threads_per_warp, res_enc.warps_per_cta, res_enc.dim_order):
            raise VerifyException(f"scale must be #qgpu.blocked like the result with sizePerThread "
                                  f"{want_scale_spt}, got {scale_enc}")
        want = list(dst_t.get_shape())
        want[k] //= group
        if list(scale_t.get_shape()) != want:
            raise VerifyException(f"scale must have shape {dims_text(want)}, got {dims_text(scale_t.get_shape())}")
        check_layout("scale", scale_t)
