"""The qgpu layout encodings: Triton's ``ttg`` attributes under the same names.

    #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
    #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<...>, kWidth = 16, fp4Unpacked = true}>
    #qgpu.dot_scale<{opIdx = 0, parent = #qgpu.mma<...>}>
    #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>

An encoding only names a layout; what it means for a tensor of a given shape
and element type (which thread, register and byte holds which element) is
defined once, in ``dialects.qgpu.layouts``. The checks here are the ones that
need no tensor: counts, permutations, powers of two.

Parameter fields carry the IR spelling (``warpsPerCTA``); the snake_case
properties (``warps_per_cta``) give plain Python values.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dialects.qgpu.syntax import Value, build_checked, parse_keyword_struct, print_keyword_struct
from compiler.diagnostics import dims_text

WARP_SIZE = 32
MAX_WARPS = 32
"""A CTA has at most 1024 threads."""
MMA_INSTR_SHAPE = (16, 8)
"""m16n8kK: the only mma.sync tile qgpu uses (PTX ISA 9.7.14.5)."""
WARP_GROUP = 4
"""Warps of a warpgroup, the unit that issues one wgmma."""


def is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def _ints(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr(IntAttr(v) for v in values)


def _tuple(values: ArrayAttr[IntAttr]) -> tuple[int, ...]:
    return tuple(v.data for v in values.data)


def _flag(attr: BoolAttr) -> bool:
    return bool(attr.value.data)



def check_permutation(what: str, order: Sequence[int], rank: int) -> None:
    if sorted(order) != list(range(rank)):
        raise VerifyException(f"{what} must be a permutation of 0..{rank - 1}, got {dims_text(order)}")


MAX_SIZE_PER_THREAD = 1024
"""The most elements one thread's block of a ``#qgpu.blocked`` layout may hold: four registers'
worth of bytes per register at most 255 registers, rounded up. Lowering enumerates them, so a
damaged ``sizePerThread = [1, 1099511627776]`` would otherwise run for hours."""


def _check_powers_of_two(what: str, values: Sequence[int]) -> None:
    if not all(is_power_of_two(v) for v in values):
        raise VerifyException(f"{what} entries must be powers of two, got {dims_text(values)}")


def _check_warps(what: str, warps: Sequence[int]) -> None:
    _check_powers_of_two(what, warps)
    if prod(warps) > MAX_WARPS:
        raise VerifyException(f"{what} asks for {prod(warps)} warps, more than {MAX_WARPS} per CTA")


@irdl_attr_definition
class BlockedEncodingAttr(ParametrizedAttribute):
    """Triton's blocked layout: each thread holds ``sizePerThread`` contiguous elements.

    Threads of a warp tile ``threadsPerWarp``, warps tile ``warpsPerCTA``, all
    counted along ``order`` (``order[0]`` varies fastest); a tensor larger than
    that CTA tile repeats it, a smaller one wraps around (replication).
    """

    name = "qgpu.blocked"

    sizePerThread: ArrayAttr[IntAttr]
    threadsPerWarp: ArrayAttr[IntAttr]
    warpsPerCTA: ArrayAttr[IntAttr]
    order: ArrayAttr[IntAttr]

    def __init__(self, size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
                 warps_per_cta: Sequence[int], order: Sequence[int]):
        super().__init__(_ints(size_per_thread), _ints(threads_per_warp), _ints(warps_per_cta), _ints(order))

    @property
    def size_per_thread(self) -> tuple[int, ...]:
        return _tuple(self.sizePerThread)

    @property
    def threads_per_warp(self) -> tuple[int, ...]:
        return _tuple(self.threadsPerWarp)

    @property
    def warps_per_cta(self) -> tuple[int, ...]:
        return _tuple(self.warpsPerCTA)

    @property
    def dim_order(self) -> tuple[int, ...]:
        return _tuple(self.order)

    @property
    def rank(self) -> int:
        return len(self.order.data)

    @property
    def num_warps(self) -> int:
        return prod(self.warps_per_cta)

    def verify(self) -> None:
        rank = len(self.size_per_thread)
        for key, values in (("threadsPerWarp", self.threads_per_warp), ("warpsPerCTA", self.warps_per_cta),
                            ("order", self.dim_order)):
            if len(values) != rank:
                raise VerifyException(
                    f"#qgpu.blocked {key} must have one entry per dimension like sizePerThread "
                    f"({rank}), got {len(values)}")
        if rank == 0:
            raise VerifyException("#qgpu.blocked needs at least one dimension")
        _check_powers_of_two("#qgpu.blocked sizePerThread", self.size_per_thread)
        if prod(self.size_per_thread) > MAX_SIZE_PER_THREAD:
            raise VerifyException(
                f"#qgpu.blocked sizePerThread asks for {prod(self.size_per_thread)} elements per thread, more than "
                f"{MAX_SIZE_PER_THREAD} (a thread has at most 255 registers)")
        _check_powers_of_two("#qgpu.blocked threadsPerWarp", self.threads_per_warp)
        if prod(self.threads_per_warp) != WARP_SIZE:
            raise VerifyException(
                f"#qgpu.blocked threadsPerWarp must multiply to {WARP_SIZE}, got "
                f"{dims_text(self.threads_per_warp)} = {prod(self.threads_per_warp)}")
        _check_warps("#qgpu.blocked warpsPerCTA", self.warps_per_cta)
        check_permutation("#qgpu.blocked order", self.dim_order, rank)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        v = parse_keyword_struct(parser, "#qgpu.blocked", {
            "sizePerThread": Value.INT_LIST, "threadsPerWarp": Value.INT_LIST,
            "warpsPerCTA": Value.INT_LIST, "order": Value.INT_LIST})
        attr = build_checked(parser, start, lambda: cls(
            v["sizePerThread"], v["threadsPerWarp"], v["warpsPerCTA"], v["order"]))  # type: ignore[arg-type]
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        print_keyword_struct(printer, [
            ("sizePerThread", self.size_per_thread), ("threadsPerWarp", self.threads_per_warp),
            ("warpsPerCTA", self.warps_per_cta), ("order", self.dim_order)])


@irdl_attr_definition
class MmaEncodingAttr(ParametrizedAttribute):
    """The accumulator layout of ``mma.sync.m16n8kK`` tiles (Triton's ``#ttg.nvidia_mma`` v2).

    Warp ``w`` owns tile row ``w % WM`` and column ``w // WM`` of a
    ``(16·WM) × (8·WN)`` CTA tile, repeated over the tensor (layouts.py).

    ``versionMajor = 3`` is the accumulator of ``wgmma.m64nNk16`` (sm_90a), with
    ``warpsPerCTA = [4·g, 1]`` and ``instrShape = [16, N, 16]``: a wgmma gives each warp of
    its warpgroup 16 rows × N columns in the m16n8 C-fragment arrangement repeated along N,
    so the registers are exactly those of version 2 with ``warpsPerCTA = [4·g, 1]`` — one
    layout function serves both; ``instrShape`` records the N of one instruction.
    """

    name = "qgpu.mma"

    versionMajor: IntAttr
    versionMinor: IntAttr
    warpsPerCTA: ArrayAttr[IntAttr]
    instrShape: ArrayAttr[IntAttr]

    def __init__(self, warps_per_cta: Sequence[int], version_major: int = 2, version_minor: int = 0,
                 instr_shape: Sequence[int] = MMA_INSTR_SHAPE):
        super().__init__(IntAttr(version_major), IntAttr(version_minor), _ints(warps_per_cta), _ints(instr_shape))

    @property
    def version(self) -> tuple[int, int]:
        return self.versionMajor.data, self.versionMinor.data

    @property
    def warps_per_cta(self) -> tuple[int, ...]:
        return _tuple(self.warpsPerCTA)

    @property
    def instr_shape(self) -> tuple[int, ...]:
        return _tuple(self.instrShape)

    @property
    def num_warps(self) -> int:
        return prod(self.warps_per_cta)

    @property
    def is_warp_group(self) -> bool:
        """versionMajor 3: the accumulator of ``wgmma`` (sm_90a) — see the class docstring."""
        return self.version == (3, 0)

    def verify(self) -> None:
        if self.version not in ((2, 0), (3, 0)):
            raise VerifyException(
                f"#qgpu.mma supports versionMajor = 2 (mma.sync) or 3 (wgmma), versionMinor = 0, got "
                f"{self.version[0]}.{self.version[1]}")
        if len(self.warps_per_cta) != 2:
            raise VerifyException(f"#qgpu.mma warpsPerCTA must have 2 entries [M, N], got {dims_text(self.warps_per_cta)}")
        _check_warps("#qgpu.mma warpsPerCTA", self.warps_per_cta)
        if self.is_warp_group:
            self._verify_warp_group()
            return
        if self.instr_shape != MMA_INSTR_SHAPE:
            raise VerifyException(
                f"#qgpu.mma instrShape must be {dims_text(MMA_INSTR_SHAPE)} (m16n8), got {dims_text(self.instr_shape)}")

    def _verify_warp_group(self) -> None:
        wm, wn = self.warps_per_cta
        if wm % WARP_GROUP or wn != 1:
            raise VerifyException(f"#qgpu.mma versionMajor = 3 stacks whole warpgroups along M: warpsPerCTA must be "
                                  f"[4·g, 1], got {dims_text(self.warps_per_cta)}")
        shape = self.instr_shape
        if len(shape) != 3 or shape[0] != 16 or shape[2] != 16 or shape[1] % 8 or not 8 <= shape[1] <= 256:
            raise VerifyException(f"#qgpu.mma versionMajor = 3 instrShape must be [16, N, 16] with N a multiple of 8 "
                                  f"in 8..256 (per warp of an m64nNk16 wgmma), got {dims_text(shape)}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        v = parse_keyword_struct(parser, "#qgpu.mma", {
            "versionMajor": Value.INT, "versionMinor": Value.INT, "warpsPerCTA": Value.INT_LIST,
            "instrShape": Value.INT_LIST})
        attr = build_checked(parser, start, lambda: cls(
            v["warpsPerCTA"], v["versionMajor"], v["versionMinor"], v["instrShape"]))  # type: ignore[arg-type]
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        print_keyword_struct(printer, [
            ("versionMajor", self.versionMajor.data), ("versionMinor", self.versionMinor.data),
            ("warpsPerCTA", self.warps_per_cta), ("instrShape", self.instr_shape)])


def _parse_parent(parser: AttrParser, what: str, parent: object, start: int) -> MmaEncodingAttr:
    if not isinstance(parent, MmaEncodingAttr):
        parser.raise_error(f"{what} parent must be a #qgpu.mma encoding, got {parent}", start, parser.pos)
    return parent


def _check_op_idx(what: str, op_idx: int) -> None:
    if op_idx not in (0, 1):
        raise VerifyException(f"{what} opIdx must be 0 (A, the lhs) or 1 (B, the rhs), got {op_idx}")


@irdl_attr_definition
class DotOperandEncodingAttr(ParametrizedAttribute):
    """An mma operand in registers (Triton's ``#ttg.dot_op``).

    ``kWidth`` is the number of consecutive K elements a thread holds per row
    (A) or column (B); it picks one of three K arrangements (layouts.py).
    ``fp4Unpacked``: the tensor is packed ``i8`` (two e2m1 values per byte along
    K) but every register byte holds one value as ``0000xxxx`` — what
    ``ldmatrix ... .b8x16.b4x16_p64`` produces (PTX ISA 9.7.14.5.15; Triton PR
    #11154). ``kWidth`` still counts packed elements.
    """

    name = "qgpu.dot_op"

    opIdx: IntAttr
    parent: MmaEncodingAttr
    kWidth: IntAttr
    fp4Unpacked: BoolAttr

    def __init__(self, op_idx: int, parent: MmaEncodingAttr, k_width: int, fp4_unpacked: bool = False):
        super().__init__(IntAttr(op_idx), parent, IntAttr(k_width), BoolAttr.from_bool(fp4_unpacked))

    @property
    def op_idx(self) -> int:
        return self.opIdx.data

    @property
    def k_width(self) -> int:
        return self.kWidth.data

    @property
    def fp4_unpacked(self) -> bool:
        return _flag(self.fp4Unpacked)

    @property
    def num_warps(self) -> int:
        return self.parent.num_warps

    def verify(self) -> None:
        _check_op_idx("#qgpu.dot_op", self.op_idx)
        if not is_power_of_two(self.k_width):
            raise VerifyException(f"#qgpu.dot_op kWidth must be a positive power of two, got {self.k_width}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        v = parse_keyword_struct(parser, "#qgpu.dot_op", {
            "opIdx": Value.INT, "parent": Value.ATTR, "kWidth": Value.INT, "fp4Unpacked": Value.BOOL},
            optional=("fp4Unpacked",))
        parent = _parse_parent(parser, "#qgpu.dot_op", v["parent"], start)
        attr = build_checked(parser, start, lambda: cls(
            v["opIdx"], parent, v["kWidth"], bool(v.get("fp4Unpacked", False))))  # type: ignore[arg-type]
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        items: list[tuple[str, int | bool | Attribute]] = [
            ("opIdx", self.op_idx), ("parent", self.parent), ("kWidth", self.k_width)]
        if self.fp4_unpacked:
            items.append(("fp4Unpacked", True))
        print_keyword_struct(printer, items)


@irdl_attr_definition
class DotScaleEncodingAttr(ParametrizedAttribute):
    """The per-block scales one mma operand side needs.

    By default laid out by accumulator ownership: a thread holds the scales of
    every accumulator row (``opIdx = 0``) or column (``opIdx = 1``) it owns in the
    ``parent`` layout, for every K block, so it can rescale its own accumulator
    registers. With ``operand = true`` they follow the dot *operand* instead: the
    rows (A) or columns (B) whose values a thread holds in ``#qgpu.dot_op`` — what
    an upcast that multiplies scales into the values needs. For A the two agree
    (rows g and g+8); for B the operand column is ``g``, not ``2t, 2t+1``
    (layouts.py).
    """

    name = "qgpu.dot_scale"

    opIdx: IntAttr
    parent: MmaEncodingAttr
    operand: BoolAttr

    def __init__(self, op_idx: int, parent: MmaEncodingAttr, operand: bool = False):
        super().__init__(IntAttr(op_idx), parent, BoolAttr.from_bool(operand))

    @property
    def op_idx(self) -> int:
        return self.opIdx.data

    @property
    def operand_side(self) -> bool:
        return _flag(self.operand)

    @property
    def num_warps(self) -> int:
        return self.parent.num_warps

    def verify(self) -> None:
        _check_op_idx("#qgpu.dot_scale", self.op_idx)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        v = parse_keyword_struct(parser, "#qgpu.dot_scale",
                                 {"opIdx": Value.INT, "parent": Value.ATTR, "operand": Value.BOOL},
                                 optional=("operand",))
        parent = _parse_parent(parser, "#qgpu.dot_scale", v["parent"], start)
        attr = build_checked(parser, start, lambda: cls(
            v["opIdx"], parent, bool(v.get("operand", False))))  # type: ignore[arg-type]
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        items: list[tuple[str, int | bool | Attribute]] = [("opIdx", self.op_idx), ("parent", self.parent)]
        if self.operand_side:
            items.append(("operand", True))
        print_keyword_struct(printer, items)


@irdl_attr_definition
class SharedEncodingAttr(ParametrizedAttribute):
    """A shared-memory buffer layout with Triton's XOR swizzle (``#ttg.swizzled_shared``).

    ``order[0]`` is the contiguous dimension; ``vec`` elements move together
    under the swizzle, ``phase = (row // perPhase) % maxPhase``. ``fp4Padded``:
    the buffer holds packed e2m1 ``i8`` and every 8 data bytes of a row are
    followed by 8 padding bytes, the layout ``ldmatrix .b4x16_p64`` reads (PTX
    ISA 9.7.14.5.15; Triton's ``fp4Padded``). ``rowElems = R``: a row holds only R
    elements of the contiguous dimension; the next R continue in a second block of
    all the rows, and so on — the K-split "swizzle atoms" a wgmma descriptor reads
    when K is longer than one 128-byte swizzled row (Triton's NVMMA shared layout). ``rowPad = P``
    (printed when not 0): P bytes (a multiple of 16) after each row of an unswizzled buffer, so that a
    pitch of an even number of 16-byte bank groups becomes odd (``qdot-accelerate-matmul{pad-block-rows}``).
    Offsets: layouts.py.
    """

    name = "qgpu.shared"

    vec: IntAttr
    perPhase: IntAttr
    maxPhase: IntAttr
    order: ArrayAttr[IntAttr]
    fp4Padded: BoolAttr
    rowElems: IntAttr
    rowPad: IntAttr

    def __init__(self, vec: int, per_phase: int, max_phase: int, order: Sequence[int], fp4_padded: bool = False,
                 row_elems: int = 0, row_pad: int = 0):
        super().__init__(IntAttr(vec), IntAttr(per_phase), IntAttr(max_phase), _ints(order),
                         BoolAttr.from_bool(fp4_padded), IntAttr(row_elems), IntAttr(row_pad))

    @property
    def row_pad(self) -> int:
        return self.rowPad.data

    @property
    def row_elems(self) -> int:
        """Elements of the contiguous dimension per row (0: all of them); see the class docstring."""
        return self.rowElems.data

    @property
    def vec_elems(self) -> int:
        return self.vec.data

    @property
    def per_phase(self) -> int:
        return self.perPhase.data

    @property
    def max_phase(self) -> int:
        return self.maxPhase.data

    @property
    def dim_order(self) -> tuple[int, ...]:
        return _tuple(self.order)

    @property
    def fp4_padded(self) -> bool:
        return _flag(self.fp4Padded)

    @property
    def rank(self) -> int:
        return len(self.order.data)

    def with_order(self, order: Sequence[int]) -> SharedEncodingAttr:
        return SharedEncodingAttr(self.vec_elems, self.per_phase, self.max_phase, order, self.fp4_padded,
                                  self.row_elems, self.row_pad)

    def verify(self) -> None:
        for key, value in (("vec", self.vec_elems), ("perPhase", self.per_phase), ("maxPhase", self.max_phase)):
            if not is_power_of_two(value):
                raise VerifyException(f"#qgpu.shared {key} must be a positive power of two, got {value}")
        if self.rank == 0:
            raise VerifyException("#qgpu.shared order needs at least one dimension")
        if self.row_pad < 0 or self.row_pad % 16:
            raise VerifyException(f"#qgpu.shared rowPad must be a multiple of 16 bytes (a bank group), got "
                                  f"{self.row_pad}")
        check_permutation("#qgpu.shared order", self.dim_order, self.rank)
        if self.row_elems and not is_power_of_two(self.row_elems):
            raise VerifyException(f"#qgpu.shared rowElems must be a positive power of two, got {self.row_elems}")
        if self.row_elems and self.fp4_padded:
            raise VerifyException("#qgpu.shared rowElems does not combine with fp4Padded")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        v = parse_keyword_struct(parser, "#qgpu.shared", {
            "vec": Value.INT, "perPhase": Value.INT, "maxPhase": Value.INT, "order": Value.INT_LIST,
            "fp4Padded": Value.BOOL, "rowElems": Value.INT, "rowPad": Value.INT},
            optional=("fp4Padded", "rowElems", "rowPad"))
        attr = build_checked(parser, start, lambda: cls(
            v["vec"], v["perPhase"], v["maxPhase"], v["order"], bool(v.get("fp4Padded", False)),
            int(v.get("rowElems", 0)), int(v.get("rowPad", 0))))  # type: ignore[arg-type]
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        items: list[tuple[str, int | Sequence[int] | bool]] = [
            ("vec", self.vec_elems), ("perPhase", self.per_phase), ("maxPhase", self.max_phase),
            ("order", self.dim_order)]
        if self.fp4_padded:
            items.append(("fp4Padded", True))
        if self.row_elems:
            items.append(("rowElems", self.row_elems))
        if self.row_pad:
            items.append(("rowPad", self.row_pad))
        print_keyword_struct(printer, items)


DistributedEncoding = BlockedEncodingAttr | MmaEncodingAttr | DotOperandEncodingAttr | DotScaleEncodingAttr
"""Encodings that spread a tensor over the registers of a CTA's threads."""
