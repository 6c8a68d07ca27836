"""The ldmatrix path and the scalar fallback of qdot-lower-local-load deliver the same registers.

Two independent arguments, both over every warp, lane, register and byte:

* **Analytically**, from the pass's own helpers (``passes/lower_local_load.py``:
  ``_access``, ``_match_ldmatrix``, ``Access``) and the ldmatrix distributions
  (``dialects/qgpu/ldmatrix.py``): the (shared byte offset, nibble) each register byte
  receives from the matched ``ldmatrix`` form, with the row addresses computed the
  way ``_emit_ldmatrix`` lowers them, equals the one the fallback reads
  (``Access.byte_offset`` / ``Access.nibble``), which equals what the layout function
  composed with the shared layout asks for.
* **On the emitted IR**: the load is lowered twice (``ldmatrix=true`` and
  ``ldmatrix=false``), each lowering is executed by a small lockstep interpreter of
  the ops it emits over one random shared-memory image (padding included), and the
  registers of every thread must be equal — and equal to the bytes (nibbles widened
  to ``0000xxxx``) the layout function names. Loads no ldmatrix form fits (scales over
  several warps, an N-major 8-bit B, an N-contiguous fp4 B, kWidth 8) check the fallback alone
  against the layouts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, TensorType, UnrealizedConversionCastOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser

from compiler.registry import make_context
from dialects.ptx.ldmatrix_forms import LdmatrixElt, LdmatrixShape
from dialects.qgpu.ldmatrix import LdmatrixForm
from dialects.qgpu.ops import LocalLoadOp
from passes.lower_local_load import Access, LowerLocalLoadPass, _access, _match_ldmatrix

WARP = 32


@dataclass(frozen=True)
class Case:
    name: str
    arch: str
    memdesc: str
    tensor: str
    encodings: str
    form: LdmatrixForm | None
    """The form the pass must pick for this load (None: no ldmatrix form fits, scalar loads)."""
    fallback: bool = False
    """The load carries ``fallback`` (scalar loads asked for; what lets an fp4Unpacked load read an unpadded buffer)."""

    def text(self) -> str:
        attr = " {fallback}" if self.fallback else ""
        return (f"{self.encodings}\n"
                f"func.func @{self.name}(%m: {self.memdesc}) -> {self.tensor} {{\n"
                f"  %r = qgpu.local_load %m{attr} : {self.memdesc} -> {self.tensor}\n"
                f"  func.return %r : {self.tensor}\n"
                f"}}\n")


FP4_X4 = LdmatrixForm(LdmatrixShape.M8N16, 4, False, LdmatrixElt.B8X16_B4X16_P64)
B16_X4 = LdmatrixForm(LdmatrixShape.M8N8, 4, False, LdmatrixElt.B16)
B16_X4_TRANS = LdmatrixForm(LdmatrixShape.M8N8, 4, True, LdmatrixElt.B16)
B16_X2_TRANS = LdmatrixForm(LdmatrixShape.M8N8, 2, True, LdmatrixElt.B16)


def _mma(warps: str) -> str:
    return f"#mma = #qgpu.mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {warps}, instrShape = [16, 8]}}>"


CASES = (
    # fp4Padded → fp4Unpacked B operand (K-contiguous rows of packed nibbles), one warp
    Case("fp4_b_1warp", "sm_120a",
         "!qgpu.memdesc<32x32xi8, #s>", "tensor<32x32xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>",
         FP4_X4),
    # the same operand spread over a 2×2 warp grid (warp bits in the row addresses)
    Case("fp4_b_4warps", "sm_120a",
         "!qgpu.memdesc<32x64xi8, #s>", "tensor<32x64xi8, #d>",
         _mma("[2, 2]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>",
         FP4_X4),
    # the B tile of examples/mx_gemm_e4m3_e2m1.mlir: 128 K-values × 128 columns, 8-phase swizzle
    Case("fp4_b_example_tile", "sm_120a",
         "!qgpu.memdesc<64x128xi8, #s>", "tensor<64x128xi8, #d>",
         _mma("[2, 2]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>",
         FP4_X4),
    # fp4Unpacked A operand (e2m1 × e4m3): rows along M, K contiguous
    Case("fp4_a_1warp", "sm_120a",
         "!qgpu.memdesc<32x32xi8, #s>", "tensor<32x32xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2, fp4Unpacked = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], fp4Padded = true}>",
         FP4_X4),
    # an 8-bit A operand in the ISA arrangement (kWidth 4)
    Case("i8_a_1warp", "sm_90",
         "!qgpu.memdesc<32x64xi8, #s>", "tensor<32x64xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
         B16_X4),
    # an 8-bit e4m3 B operand over 4 warps
    Case("e4m3_b_4warps", "sm_120a",
         "!qgpu.memdesc<64x64xf8E4M3FN, #s>", "tensor<64x64xf8E4M3FN, #d>",
         _mma("[2, 2]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 4, order = [0, 1]}>",
         B16_X4),
    # a bf16 B operand stored N-contiguous: the .trans form
    # block scales in the A scale layout: every lane of a quad holds its rows' scales, which
    # the .trans form delivers by giving several rows the same address
    Case("ue8m0_scale_a", "sm_90",
         "!qgpu.memdesc<32x2xf8E8M0FNU, #s>", "tensor<32x2xf8E8M0FNU, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>",
         B16_X2_TRANS),
    Case("ue8m0_scale_b_operand", "sm_120a",
         "!qgpu.memdesc<32x2xf8E8M0FNU, #s>", "tensor<32x2xf8E8M0FNU, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 64, maxPhase = 1, order = [1, 0]}>",
         B16_X2_TRANS),
    # no ldmatrix form fits these: the scalar fallback alone (checked against the layouts)
    Case("ue8m0_scale_a_4warps", "sm_90",
         "!qgpu.memdesc<128x4xf8E8M0FNU, #s>", "tensor<128x4xf8E8M0FNU, #d>",
         _mma("[2, 2]") + "\n#d = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 32, maxPhase = 1, order = [1, 0]}>",
         None),
    Case("i8_b_n_major", "sm_90",
         "!qgpu.memdesc<64x32xi8, #s>", "tensor<64x32xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>",
         None),
    # an fp4Padded → fp4Unpacked B operand whose buffer is N-contiguous (order [1, 0]: the two K values of a
    # packed byte are neighbours, the next two a whole row further): no ldmatrix row fits it, so every register
    # byte is one byte load and a nibble pick — the low nibble for even K, the high one for odd K
    Case("fp4_b_n_contiguous", "sm_120a",
         "!qgpu.memdesc<32x32xi8, #s>", "tensor<32x32xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], fp4Padded = true}>",
         None),
    # the same operand in an unpadded buffer, its load marked fallback (padding gains nothing where no ldmatrix
    # reads the rows): the same byte loads and nibble picks
    Case("fp4_b_n_contiguous_unpadded", "sm_120a",
         "!qgpu.memdesc<32x32xi8, #s>", "tensor<32x32xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>",
         None, fallback=True),
    Case("i8_a_kwidth8", "sm_120a",
         "!qgpu.memdesc<32x64xi8, #s>", "tensor<32x64xi8, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>\n"
         "#s = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
         None),
    Case("bf16_b_trans", "sm_90",
         "!qgpu.memdesc<32x32xbf16, #s>", "tensor<32x32xbf16, #d>",
         _mma("[1, 1]") + "\n#d = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>\n"
         "#s = #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
         B16_X4_TRANS),
)


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _load(module: ModuleOp) -> LocalLoadOp:
    return next(op for op in module.walk() if isinstance(op, LocalLoadOp))


# ---------------------------------------------------------------------------------------------
# Ground truth: the layout function composed with the shared layout


Where = tuple[int, int]
"""(shared byte offset, nibble): nibble 0/1 of a packed fp4 byte, 0 for whole bytes."""


def _wanted(access: Access, warp: int, lane: int, reg: int, byte: int) -> Where | None:
    """What the register layout asks for at (warp, lane, reg, byte), per the layout functions alone."""
    layout, shared = access.layout, access.shared
    within = byte % layout.elem_bytes
    coords = layout.coords(warp, lane, reg, byte - within)
    if coords is None:
        return None
    if access.nibbles is not None:
        return shared.offset(coords[:2]), coords[2]
    return shared.offset(coords) + within, 0


def _xor_bits(x: int, bases: Sequence[int]) -> int:
    out = 0
    for bit, base in enumerate(bases):
        if x >> bit & 1:
            out ^= base
    return out


def _ldmatrix_delivers(access: Access, form: LdmatrixForm) -> dict[tuple[int, int, int, int], Where]:
    """(warp, lane, our register, byte) → what the matched ldmatrix form puts there.

    Row addresses are computed as ``_emit_ldmatrix`` emits them: the lane bits times
    ``row_bases`` XOR the warp bits times the access's warp bases, then the group's
    constant offset folded in by ``combine`` (an add when the bits cannot collide,
    else an XOR).
    """
    plan = _match_ldmatrix(access, form)
    assert plan is not None, f"{form.ptx} does not match"
    warp_bases = access.offsets.warp_bases
    mask = 0
    for base in (*plan.row_bases, *warp_bases):
        mask |= base
    delivered: dict[tuple[int, int, int, int], Where] = {}
    for warp in range(access.layout.num_warps):
        for group, offset in zip(plan.groups, plan.group_offsets, strict=True):
            def row_address(row_lane: int, warp: int = warp, offset: int = offset) -> int:
                thread = _xor_bits(row_lane, plan.row_bases) ^ _xor_bits(warp, warp_bases)
                return thread + offset if offset & mask == 0 else thread ^ offset

            for lane in range(WARP):
                for i, reg in enumerate(group):
                    for byte in range(4):
                        src = form.source(lane, i, byte)
                        address = row_address(src.row)
                        if form.elt.is_sub_byte:
                            where = (address + (src.index >> 1), src.index & 1)
                        else:
                            where = (address + src.index, 0)
                        delivered[(warp, lane, reg, byte)] = where
    return delivered


WITH_FORM = tuple(c for c in CASES if c.form is not None)


@pytest.mark.parametrize("case", WITH_FORM, ids=lambda c: c.name)
def test_ldmatrix_form_and_fallback_read_the_same_bytes(case: Case) -> None:
    assert case.form is not None
    access = _access(_load(_parse(case.text())))
    delivered = _ldmatrix_delivers(access, case.form)
    layout = access.layout
    compared = 0
    for warp in range(layout.num_warps):
        for lane in range(WARP):
            for reg in range(layout.regs_per_thread):
                for byte in range(4):
                    wanted = _wanted(access, warp, lane, reg, byte)
                    if wanted is None:
                        continue
                    fallback = (access.byte_offset(reg, byte, lane, warp), access.nibble(reg, byte, lane, warp))
                    got = delivered[(warp, lane, reg, byte)]
                    assert fallback == wanted, (warp, lane, reg, byte)
                    assert got == wanted, (warp, lane, reg, byte)
                    compared += 1
    assert compared == layout.num_warps * WARP * layout.regs_per_thread * 4


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pass_picks_the_expected_form_first(case: Case) -> None:
    """The preferred-form search of the pass lands on the form the equivalence above is about."""
    from dialects.ptx.arch import Arch, Feature
    from passes.lower_local_load import PREFERRED_FORMS

    access = _access(_load(_parse(case.text())))
    arch = Arch(case.arch)
    chosen = None
    for form in PREFERRED_FORMS:
        if form.shape is not LdmatrixShape.M8N8 and not arch.supports(Feature.LDMATRIX_SUBBYTE):
            continue
        if _match_ldmatrix(access, form) is not None:
            chosen = form
            break
    assert chosen == case.form


def test_sm90_never_matches_the_sub_byte_form() -> None:
    """Without LDMATRIX_SUBBYTE the fp4 operand must not get an ldmatrix at all (no .b16 form fits it)."""
    case = CASES[0]
    module = _parse(case.text())
    LowerLocalLoadPass(arch="sm_90").apply(Context(), module)
    names = [op.name for op in module.walk()]
    assert "ptx.ldmatrix" not in names
    assert "ptx.ld_shared" in names


@pytest.mark.parametrize("name", ["fp4_b_n_contiguous", "fp4_b_n_contiguous_unpadded"])
def test_n_contiguous_fp4_operand_is_read_byte_by_byte(name: str) -> None:
    """The N-contiguous fp4 cases are there for the byte-wise fp4Unpacked fallback (a register's two packed
    bytes are a row apart, so neither the sub-byte ldmatrix nor the 16-bit + prmt path applies): one
    ``ld.shared.b8`` per register byte, even with the sub-byte ldmatrix allowed. Should the layouts
    change so that another path takes them, this says the byte path lost its test."""
    case = next(c for c in CASES if c.name == name)
    access = _access(_load(_parse(case.text())))
    for use_ldmatrix in (True, False):
        loads = [op for op in _lowered(case, use_ldmatrix).walk() if op.name == "ptx.ld_shared"]
        assert [str(op.results[0].type) for op in loads] == ["i8"] * (4 * access.layout.regs_per_thread)


# ---------------------------------------------------------------------------------------------
# The emitted IR, executed


class Lockstep:
    """Executes the straight-line body of a lowered function for the 32 lanes of each warp.

    Values are lists of 32 Python ints (bit patterns of the op's integer width);
    ``ptx.ldmatrix`` gathers row addresses across the warp as the hardware does.
    """

    def __init__(self, memory: bytes, base: int = 0):
        self.memory = memory
        self.base = base

    def run(self, func: FuncOp, warp: int) -> list[list[int]]:
        env: dict[SSAValue, list[int]] = {}
        result: list[list[int]] | None = None
        for op in func.body.block.ops:
            if op.name == "func.return":
                cast = op.operands[0].owner
                assert isinstance(cast, UnrealizedConversionCastOp)
                result = [env[v] for v in cast.inputs]
                break
            self._step(op, env, warp)
        assert result is not None
        return result

    def _step(self, op: Operation, env: dict[SSAValue, list[int]], warp: int) -> None:
        name = op.name
        lanes = range(WARP)
        if name == "builtin.unrealized_conversion_cast":
            if isinstance(op.results[0].type, TensorType):
                return  # the registers re-assembled into the tensor: read at func.return
            env[op.results[0]] = [self.base] * WARP
            return
        if name == "ptx.special_reg":
            assert str(op.properties["reg"]).endswith("tid.x>"), op
            env[op.results[0]] = [warp * WARP + lane for lane in lanes]
            return
        if name == "arith.constant":
            attr = op.properties["value"]
            assert isinstance(attr, IntegerAttr)
            env[op.results[0]] = [self._wrap(op.results[0], attr.value.data)] * WARP
            return
        if name == "ptx.ld_shared":
            width = self._width(op.results[0]) // 8
            env[op.results[0]] = [int.from_bytes(self.memory[a:a + width], "little") for a in env[op.operands[0]]]
            return
        if name == "ptx.prmt":
            a, b, c = (env[v] for v in op.operands)
            env[op.results[0]] = [_prmt(a[t], b[t], c[t]) for t in lanes]
            return
        if name == "ptx.ldmatrix":
            self._ldmatrix(op, env)
            return
        binary: dict[str, Callable[[int, int], int]] = {
            "arith.addi": lambda x, y: x + y, "arith.muli": lambda x, y: x * y,
            "arith.andi": lambda x, y: x & y, "arith.ori": lambda x, y: x | y,
            "arith.xori": lambda x, y: x ^ y, "arith.shli": lambda x, y: x << y,
            "arith.shrui": lambda x, y: x >> y,
        }
        if name in binary:
            x, y = env[op.operands[0]], env[op.operands[1]]
            env[op.results[0]] = [self._wrap(op.results[0], binary[name](x[t], y[t])) for t in lanes]
            return
        if name == "arith.extui":
            env[op.results[0]] = list(env[op.operands[0]])
            return
        raise AssertionError(f"the interpreter does not know {name}; extend it")

    def _ldmatrix(self, op: Operation, env: dict[SSAValue, list[int]]) -> None:
        shape = LdmatrixShape(str(op.properties["shape"]).split(" ")[-1].rstrip(">"))
        num = op.properties["num"]
        assert isinstance(num, IntegerAttr)
        elt = LdmatrixElt(str(op.properties["elt"]).split(" ")[-1].rstrip(">"))
        assert elt is not LdmatrixElt.B8X16_B6X16_P32, "the interpreter unpacks 4-bit values only"
        form = LdmatrixForm(shape, num.value.data, "trans" in op.properties, elt)
        rows = env[op.operands[0]]
        for i, result in enumerate(op.results):
            values = []
            for lane in range(WARP):
                word = 0
                for byte in range(4):
                    src = form.source(lane, i, byte)
                    if elt.is_sub_byte:
                        packed = self.memory[rows[src.row] + (src.index >> 1)]
                        value = (packed >> (4 * (src.index & 1))) & 0xF
                    else:
                        value = self.memory[rows[src.row] + src.index]
                    word |= value << (8 * byte)
                values.append(word)
            env[result] = values

    @staticmethod
    def _width(value: SSAValue) -> int:
        t = value.type
        assert isinstance(t, IntegerType), t
        return t.width.data

    def _wrap(self, value: SSAValue, x: int) -> int:
        return x & ((1 << self._width(value)) - 1)


def _prmt(a: int, b: int, selector: int) -> int:
    """``prmt.b32`` default mode: byte i of the result is byte sel_i of {b, a} (bit 3: replicate its sign)."""
    source = (a & 0xFFFFFFFF) | (b & 0xFFFFFFFF) << 32
    out = 0
    for i in range(4):
        sel = selector >> (4 * i) & 0xF
        byte = source >> (8 * (sel & 7)) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def _lowered(case: Case, use_ldmatrix: bool) -> FuncOp:
    module = _parse(case.text())
    LowerLocalLoadPass(arch=case.arch, ldmatrix=use_ldmatrix).apply(Context(), module)
    func = next(op for op in module.walk() if isinstance(op, FuncOp))
    ldmatrix_ops = [op for op in func.walk() if op.name == "ptx.ldmatrix"]
    assert bool(ldmatrix_ops) == (use_ldmatrix and case.form is not None)
    return func


def _expected_byte(access: Access, memory: bytes, warp: int, lane: int, reg: int, byte: int) -> int | None:
    wanted = _wanted(access, warp, lane, reg, byte)
    if wanted is None:
        return None
    offset, nibble = wanted
    return memory[offset] >> (4 * nibble) & (0xF if access.nibbles is not None else 0xFF)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_emitted_fallback_reads_what_the_layout_asks(case: Case) -> None:
    """``ldmatrix=false``: every register byte the scalar loads assemble is the byte (or the
    nibble, as ``0000xxxx``) the layout function composed with the shared layout names."""
    access = _access(_load(_parse(case.text())))
    rng = random.Random("fallback-" + case.name)
    memory = bytes(rng.randrange(256) for _ in range(access.shared.allocation_bytes))
    fallback = _lowered(case, False)
    layout = access.layout
    for warp in range(layout.num_warps):
        regs = Lockstep(memory).run(fallback, warp)
        assert len(regs) == layout.regs_per_thread
        for reg in range(layout.regs_per_thread):
            for lane in range(WARP):
                for byte in range(4):
                    expect = _expected_byte(access, memory, warp, lane, reg, byte)
                    if expect is not None:
                        assert regs[reg][lane] >> (8 * byte) & 0xFF == expect, (warp, lane, reg, byte)


@pytest.mark.parametrize("case", WITH_FORM, ids=lambda c: c.name)
def test_emitted_ldmatrix_and_fallback_give_identical_registers(case: Case) -> None:
    access = _access(_load(_parse(case.text())))
    rng = random.Random(case.name)
    memory = bytes(rng.randrange(256) for _ in range(access.shared.allocation_bytes))
    with_ldmatrix, fallback = _lowered(case, True), _lowered(case, False)
    layout = access.layout
    for warp in range(layout.num_warps):
        fast = Lockstep(memory).run(with_ldmatrix, warp)
        slow = Lockstep(memory).run(fallback, warp)
        assert len(fast) == len(slow) == layout.regs_per_thread
        for reg in range(layout.regs_per_thread):
            for lane in range(WARP):
                assert fast[reg][lane] == slow[reg][lane], (warp, lane, reg, hex(fast[reg][lane]),
                                                            hex(slow[reg][lane]))
                for byte in range(4):
                    expect = _expected_byte(access, memory, warp, lane, reg, byte)
                    if expect is not None:
                        assert fast[reg][lane] >> (8 * byte) & 0xFF == expect, (warp, lane, reg, byte)
