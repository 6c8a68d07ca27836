"""The shape rules of ``qdot.dot_scaled``, as one function every client shares.

``dot_problem`` reads the operand types of a dot and returns its logical
problem (M, N, K, formats, scale kinds, packing), or raises a
``VerifyException`` naming the first rule the operands break. The op's
verifier is this function; passes call it (through ``DotScaledOp.problem()``)
instead of re-deriving M, N and K from packed or blocked shapes.

Each rule has one message that names the operand and the numbers, e.g.
``rhs scale must have shape [N, K/32] = [128, 4], got [128, 8]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from compiler.diagnostics import dims_text
from dialects.qdot.formats import (
    SCALABLE_FORMATS,
    Format,
    FormatInfo,
    ScaleKind,
    accumulator_type,
    block_pairs_sorted,
    format_info,
    is_supported_pair,
    scale_info,
    scale_kind_of,
)


@dataclass(frozen=True)
class DotProblem:
    """The logical GEMM a well-formed ``qdot.dot_scaled`` computes: D[M, N] = A[M, K] · B[K, N] + C."""

    m: int
    n: int
    k: int
    lhs: Format
    rhs: Format
    lhs_scale: ScaleKind | None
    rhs_scale: ScaleKind | None
    lhs_k_pack: bool = True
    rhs_k_pack: bool = True

    @property
    def scale_kind(self) -> ScaleKind | None:
        """The one scale kind of the dot (both scaled sides agree), or None if unscaled."""
        return self.lhs_scale or self.rhs_scale


@dataclass(frozen=True)
class OperandTypes:
    """The types of one dot's operands (scales None when absent)."""

    lhs: Attribute
    rhs: Attribute
    acc: Attribute
    lhs_scale: Attribute | None = None
    rhs_scale: Attribute | None = None



def _check_rank2(name: str, t: Attribute | None) -> None:
    if t is None:
        return
    if not isinstance(t, TensorType):
        raise VerifyException(f"{name} must be a ranked tensor, got {t}")
    shape = t.get_shape()
    if len(shape) != 2:
        raise VerifyException(f"{name} must have rank 2, got rank {len(shape)} ({dims_text(shape)})")
    if any(d < 0 for d in shape):
        raise VerifyException(f"{name} must have a static shape, got {dims_text(shape)}")
    if 0 in shape:  # as !qdot.desc tiles: the lowerings tile by the extents (a zero M divided by the warps)
        raise VerifyException(f"{name} must have positive dimensions, got {dims_text(shape)}")


def _shape(t: Attribute) -> tuple[int, int]:
    assert isinstance(t, TensorType)
    rows, cols = t.get_shape()
    return rows, cols


def _element_type(t: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return t.get_element_type()


@dataclass(frozen=True)
class _Side:
    """One operand of the dot with its logical extents, read from its packed/blocked shape."""

    name: str  # "lhs" | "rhs"
    info: FormatInfo
    k_pack: bool
    shape: tuple[int, int]

    @property
    def fmt(self) -> Format:
        return self.info.format

    @property
    def k_granule(self) -> int:
        """K must be a multiple of this for the operand's shape to hold it."""
        if self.info.is_block or (self.info.is_packed and self.k_pack):
            return self.info.values_per_element
        return 1

    @property
    def k(self) -> int:
        rows, cols = self.shape
        return (cols if self.name == "lhs" else rows) * self.k_granule

    @property
    def other(self) -> int:
        """M for the lhs, N for the rhs."""
        rows, cols = self.shape
        free = rows if self.name == "lhs" else cols
        return free * (self.info.values_per_element if self.info.is_packed and not self.k_pack else 1)

    @property
    def formula(self) -> str:
        """The operand's shape in terms of M/N and K, e.g. ``[K/2, N]``."""
        free = "M" if self.name == "lhs" else "N"
        k = "K"
        if self.k_granule > 1:
            k = f"K/{self.k_granule}"
        elif self.info.is_packed:
            free = f"{free}/{self.info.values_per_element}"
        return f"[{free}, {k}]" if self.name == "lhs" else f"[{k}, {free}]"

    def k_reason(self) -> str:
        if self.info.is_block:
            return f"the {self.fmt} block size of {self.name}"
        return f"{self.name} = {self.fmt} packed {self.info.values_per_element} per byte along K"


def _check_k_pack(name: str, fmt: Format, k_pack: bool) -> None:
    if not k_pack and not format_info(fmt).is_packed:
        raise VerifyException(f"{name}_k_pack = false needs {name} = e2m1, got {name} = {fmt}")


def _check_element(name: str, fmt: Format, t: Attribute) -> None:
    info = format_info(fmt)
    got = _element_type(t)
    if info.matches_element_type(got):
        return
    packed = f" ({info.values_per_element} values per byte)" if info.is_packed else ""
    raise VerifyException(f"{name} = {fmt} needs element type {info.element_type}{packed}, got {got}")


def _check_pair(lhs: Format, rhs: Format) -> None:
    if is_supported_pair(lhs, rhs):
        return
    lhs_block, rhs_block = format_info(lhs).is_block, format_info(rhs).is_block
    if lhs_block and rhs_block:
        supported = ", ".join(f"{a} × {b}" for a, b in block_pairs_sorted())
        raise VerifyException(f"unsupported block pair lhs = {lhs}, rhs = {rhs} (supported: {supported})")
    if lhs_block or rhs_block:
        raise VerifyException(f"block formats pair only with block formats: lhs = {lhs}, rhs = {rhs}")
    raise VerifyException(f"i8 pairs only with i8: lhs = {lhs}, rhs = {rhs}")


def _scale_kind(name: str, fmt: Format, t: Attribute | None) -> ScaleKind | None:
    if t is None:
        return None
    info = format_info(fmt)
    if info.is_block:
        raise VerifyException(f"{name} = {fmt} carries its scales inside its blocks and takes no {name} scale")
    if not info.takes_scale:
        scalable = ", ".join(SCALABLE_FORMATS)
        raise VerifyException(f"{name} scale needs a scalable {name} format ({scalable}), got {name} = {fmt}")
    element = _element_type(t)
    kind = scale_kind_of(element)
    if kind is None:
        raise VerifyException(
            f"{name} scale must have element type f8E8M0FNU (ue8m0) or f8E4M3FN (ue4m3), got {element}")
    only = scale_info(kind).only_format
    if only is not None and only != fmt:
        raise VerifyException(
            f"{name} scale of element type {element} ({kind}) needs {name} = {only}, got {name} = {fmt}")
    return kind


def _check_k(lhs: _Side, rhs: _Side) -> int:
    for side, other in ((lhs, rhs), (rhs, lhs)):
        if side.k % other.k_granule:
            raise VerifyException(
                f"K = {side.k} from {side.name} {side.formula} = {dims_text(side.shape)} must be a multiple of "
                f"{other.k_granule}, {other.k_reason()}")
    if lhs.k != rhs.k:
        raise VerifyException(
            f"K of lhs and rhs must match: lhs {lhs.formula} = {dims_text(lhs.shape)} gives K = {lhs.k}, "
            f"rhs {rhs.formula} = {dims_text(rhs.shape)} gives K = {rhs.k}")
    return lhs.k


def _check_scale_shape(name: str, kind: ScaleKind | None, t: Attribute | None, free: int, k: int) -> None:
    if kind is None or t is None:
        return
    group = scale_info(kind).group_size
    if k % group:
        raise VerifyException(f"K = {k} must be a multiple of {group} for {kind} scales ({name} scale)")
    free_name = "M" if name == "lhs" else "N"
    expected = (free, k // group)
    got = _shape(t)
    if got != expected:
        raise VerifyException(
            f"{name} scale must have shape [{free_name}, K/{group}] = {dims_text(expected)}, got {dims_text(got)}")


def check_quantized_operand(name: str, fmt: Format, data: Attribute, scale: Attribute | None, free: int,
                            k: int) -> None:
    """The rules a quantized operand and its scale follow wherever they travel: the element type ``fmt`` travels in,
    the scale's kind, and its ``[free, K/group]`` shape. ``qdot.dot_scaled`` applies them per side, and
    ``agx.dequant_frag`` to its whole source, so the two cannot drift apart."""
    _check_element(name, fmt, data)
    _check_scale_shape(name, _scale_kind(name, fmt, scale), scale, free, k)


def dot_problem(
    types: OperandTypes, lhs: Format, rhs: Format, lhs_k_pack: bool = True, rhs_k_pack: bool = True
) -> DotProblem:
    """Check every rule of ``qdot.dot_scaled`` and return the logical problem."""
    for name, t in (("lhs", types.lhs), ("rhs", types.rhs), ("acc", types.acc),
                    ("lhs scale", types.lhs_scale), ("rhs scale", types.rhs_scale)):
        _check_rank2(name, t)
    _check_k_pack("lhs", lhs, lhs_k_pack)
    _check_k_pack("rhs", rhs, rhs_k_pack)
    _check_element("lhs", lhs, types.lhs)
    _check_element("rhs", rhs, types.rhs)
    _check_pair(lhs, rhs)

    lhs_scale = _scale_kind("lhs", lhs, types.lhs_scale)
    rhs_scale = _scale_kind("rhs", rhs, types.rhs_scale)
    if lhs_scale is not None and rhs_scale is not None and lhs_scale != rhs_scale:
        raise VerifyException(
            f"lhs scale and rhs scale must use the same scale kind, got {lhs_scale} and {rhs_scale}")

    lhs_side = _Side("lhs", format_info(lhs), lhs_k_pack, _shape(types.lhs))
    rhs_side = _Side("rhs", format_info(rhs), rhs_k_pack, _shape(types.rhs))
    k = _check_k(lhs_side, rhs_side)
    m, n = lhs_side.other, rhs_side.other
    _check_scale_shape("lhs", lhs_scale, types.lhs_scale, m, k)
    _check_scale_shape("rhs", rhs_scale, types.rhs_scale, n, k)

    acc_shape = _shape(types.acc)
    if acc_shape != (m, n):
        raise VerifyException(f"acc must have shape [M, N] = {dims_text((m, n))}, got {dims_text(acc_shape)}")
    acc_element = _element_type(types.acc)
    wanted = accumulator_type(lhs, rhs)
    if acc_element != wanted:
        why = " for i8 × i8" if lhs == Format.I8 else ""
        raise VerifyException(f"acc must have element type {wanted}{why}, got {acc_element}")
    return DotProblem(m, n, k, lhs, rhs, lhs_scale, rhs_scale, lhs_k_pack, rhs_k_pack)
