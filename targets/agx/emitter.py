"""From a lowered, allocated module to the AGX output: MMA bytes and the fragment map.

``emit(module, form, fmt)`` prints, for every function holding an ``agx``
tile, the MMA instruction stream (``hex``: one instruction per line; ``bin``:
the raw bytes; ``asm``: canonical assembly) and, as comment lines in ``hex``
and ``asm``, the map of which register holds which 8x8 fragment of which
operand. Loads and stores are not encoded (their encodings are unknown): the
map is what a shader author wires the stream to. Same input, same bytes.

Nothing else is emitted, so nothing else is accepted: an op of a tile function
that is not a fragment load, an MMA, the one ``agx.store_tile`` or the
``func.return`` of its result, a function of the module that holds no tile,
and any other op of the module are each refused with a diagnostic at the op
(``check_tile_return`` and ``not_in_tile`` are shared with qdot-to-agx, which
refuses the same before lowering), never dropped in silence.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from compiler.diagnostics import emit_error
from dialects.agx.ops import DequantFragOp, LoadFragOp, Mma8Op, StoreTileOp, form_of
from dialects.agx.types import FragType
from dialects.qdot.formats import scale_kind_of
from targets.agx.asm import format_mma8, register_text
from targets.agx.assumptions import ASSUMPTIONS
from targets.agx.errors import EncodingError
from targets.agx.fields import Form
from targets.agx.forms import FORMS, form_named
from targets.agx.mma8 import ElemType, encode_mma8
from targets.agx.program import FragmentLoad, FragmentSource, FragmentStore, Operand, TileProgram

FORMATS = ("hex", "bin", "asm")

_PLAIN_FORMATS = {Float16Type(): "fp16", Float32Type(): "fp32", BFloat16Type(): "bf16"}

_TILE_ONLY = ("the AGX target emits the MMA instruction stream of one dot tile per function and its fragment map "
              "(the operands' loads, the MMAs, the result's store), nothing else (docs/agx.md)")


def not_in_tile(why: str) -> str:
    """The diagnostic, at the op, for an op the AGX target does not lower: ``why`` says what a tile holds."""
    return f"is not part of an AGX dot tile: {why}; {_TILE_ONLY}"


def _value_text(value: SSAValue, index: int) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"operand {index}"


def check_tile_return(op: ReturnOp, result: SSAValue) -> None:
    """A tile function returns its tile's result (the dot's, or ``agx.store_tile``'s) once, or nothing:
    the stream leaves D in registers and nothing else, so any other returned value would be lost."""
    values = list(op.arguments)
    if not values or (len(values) == 1 and values[0] is result):
        return
    other = next(((i, v) for i, v in enumerate(values) if v is not result), None)
    what = _value_text(other[1], other[0]) if other is not None else "the tile's result more than once"
    emit_error(op, f"returns {what}: a tile function returns its dot's result once, or nothing; {_TILE_ONLY}")


def _argument(func: FuncOp, value: SSAValue, op: Operation, what: str) -> int:
    if not isinstance(value, BlockArgument) or value.block is not func.body.blocks[0]:
        emit_error(op, f"{what} must be an argument of @{func.sym_name.data}, the tile's inputs")
    return value.index


def _register(op: Operation, value: SSAValue, what: str) -> int:
    assert isinstance(value.type, FragType)
    if value.type.reg is None:
        emit_error(op, f"{what} fragment has no register; run agx-allocate-registers before emitting")
    return value.type.reg


def _load(func: FuncOp, op: LoadFragOp | DequantFragOp, before: int) -> FragmentLoad:
    assert isinstance(op.result.type, FragType)
    arg = _argument(func, op.source, op, "the fragment source")
    register = _register(op, op.result, "the loaded")
    if op.slot is None:  # asynchronous: without a slot no MMA waits for it, and the stream reads it too early
        emit_error(op, "the fragment load has no scoreboard slot, so no mma8 waits for it; run agx-hints-and-waits "
                       "before emitting")
    slot = op.slot.data
    if isinstance(op, LoadFragOp):
        assert isinstance(op.source.type, TensorType)
        fmt = _PLAIN_FORMATS[op.source.type.get_element_type()]
        source = FragmentSource(Operand(op.operand.data), arg, op.row.data, op.col.data, fmt)
    else:
        scale_arg = _argument(func, op.scale, op, "the scale") if op.scale is not None else None
        scale_format = None
        if op.scale is not None:
            assert isinstance(op.scale.type, TensorType)
            kind = scale_kind_of(op.scale.type.get_element_type())
            scale_format = str(kind) if kind is not None else None
        source = FragmentSource(Operand(op.operand.data), arg, op.row.data, op.col.data, str(op.fmt),
                                scale_arg, op.is_k_packed, True, scale_format)
    return FragmentLoad(register, op.result.type.elem_type, source, slot, before)


def tile_program(func: FuncOp, form: str) -> tuple[TileProgram, list[Mma8Op]]:
    """The program of one lowered function, and its MMA ops in stream order."""
    lowered_for = form_of(func)
    if lowered_for is not None and lowered_for != form:
        emit_error(func, f"the tile was lowered for {lowered_for}; emit it for {lowered_for} "
                         f"or lower it with qdot-to-agx{{form={form}}}")
    loads: list[FragmentLoad] = []
    stores: list[FragmentStore] = []
    mmas: list[Mma8Op] = []
    shape: tuple[int, int] | None = None
    store: StoreTileOp | None = None
    for op in func.walk():
        if op.parent_block() is not func.body.blocks[0] and isinstance(
                op, LoadFragOp | DequantFragOp | Mma8Op | StoreTileOp):
            emit_error(op, "the AGX emitter handles straight-line tiles; this op is inside a nested region")
        if isinstance(op, LoadFragOp | DequantFragOp):
            loads.append(_load(func, op, len(mmas)))
        elif isinstance(op, Mma8Op):
            for what, value in (("A", op.a), ("B", op.b), ("C", op.c), ("D", op.result)):
                if value is not None:
                    _register(op, value, what)
            mmas.append(op)
        elif isinstance(op, StoreTileOp):
            if shape is not None:
                emit_error(op, "one tile per function: a second agx.store_tile")
            assert isinstance(op.result.type, TensorType)
            rows, cols = op.result.type.get_shape()
            shape = (rows, cols)
            store = op
            for index, value in enumerate(op.fragments):
                row, col = op.block_of(index)
                stores.append(FragmentStore(_register(op, value, f"stored fragment {index}"), row, col))
    if shape is None or store is None:
        emit_error(func, "the function has agx.mma8 ops but no agx.store_tile")
    _check_tile_ops(func, store)
    blocks = (shape[0] // 8) * (shape[1] // 8)
    k = 8 * len(mmas) // blocks if blocks else 0
    program = TileProgram(
        function=func.sym_name.data,
        form=form,
        m=shape[0],
        n=shape[1],
        k=k,
        instructions=tuple(op.descriptor() for op in mmas),
        loads=tuple(loads),
        stores=tuple(stores),
    )
    return program, mmas


def _check_tile_ops(func: FuncOp, store: StoreTileOp) -> None:
    """Every op of a tile function is one the emitter turns into the stream or the map."""
    entry = func.body.blocks[0]
    for block in func.body.blocks:
        for op in block.ops:
            if block is entry and isinstance(op, LoadFragOp | DequantFragOp | Mma8Op | StoreTileOp):
                continue
            if block is entry and isinstance(op, ReturnOp):
                check_tile_return(op, store.result)
                continue
            emit_error(op, not_in_tile("a lowered tile function holds agx.load_frag, agx.dequant_frag, "
                                       "agx.mma8, one agx.store_tile and the func.return of its result"))


def _check_module(module: ModuleOp, tiles: list[FuncOp]) -> None:
    """Every function of the module is a tile, and the module holds nothing but functions."""
    for op in module.body.ops:
        if isinstance(op, ModuleOp):
            _check_module(op, tiles)
        elif isinstance(op, FuncOp):
            if not any(op is tile for tile in tiles):
                why = "it holds no lowered dot (no agx.mma8), and every function of the module must be a tile"
                emit_error(op, f"@{op.sym_name.data} {not_in_tile(why)}")
        else:
            emit_error(op, not_in_tile("the module holds tile functions only"))


def _tile_functions(module: ModuleOp) -> list[FuncOp]:
    return [op for op in module.walk() if isinstance(op, FuncOp)
            and any(isinstance(inner, Mma8Op) for inner in op.walk())]


def tile_programs(module: ModuleOp, form: str) -> list[tuple[TileProgram, bytes]]:
    """Every tile of ``module`` with its encoded stream (diagnostics on refusal)."""
    form = form_named(form).name
    found: list[tuple[TileProgram, bytes]] = []
    functions = _tile_functions(module)
    if functions:
        _check_module(module, functions)
    for func in functions:
        program, mmas = tile_program(func, form)
        stream = bytearray()
        for op, desc in zip(mmas, program.instructions, strict=True):
            try:
                stream += encode_mma8(desc, form)
            except EncodingError as err:
                emit_error(op, f"cannot encode for {form}: {err}")
        found.append((program, bytes(stream)))
    return found


def _source_text(source: FragmentSource, arg_names: list[str]) -> str:
    text = f"{arg_names[source.arg]} ({source.format}"
    if source.scale_arg is not None:
        text += f", scale {arg_names[source.scale_arg]} {source.scale_format}"
    if not source.k_pack:
        text += ", k_pack = false"
    return text + ")"


def map_lines(program: TileProgram, arg_names: list[str]) -> list[str]:
    """The fragment map as comment lines (without the comment marker)."""
    form = FORMS[program.form]
    lines = [
        f"func @{program.function}: D[{program.m}x{program.n}] += A[{program.m}x{program.k}] * "
        f"B[{program.k}x{program.n}] on one simdgroup, {len(program.instructions)} mma8 x {form.length} bytes",
        "fragment map (loads and stores are modelled, not encoded; each lane holds 2 elements, Metal layout):",
        "  when      register    type  operand  block           source",
    ]
    for load in program.loads:
        source = load.source
        block = f"[{source.row}:{source.row + 8}, {source.col}:{source.col + 8}]"
        slot = f"  slot {load.slot}" if load.slot is not None else ""
        lines.append(f"  before {load.before:<3d}{register_text(load.register, load.elem):<12s}"
                     f"{load.elem:<6s}{source.operand:<9s}{block:<16s}{_source_text(source, arg_names)}{slot}")
    for store in program.stores:
        block = f"[{store.row}:{store.row + 8}, {store.col}:{store.col + 8}]"
        lines.append(f"  end       {register_text(store.register, ElemType.FP32):<12s}fp32  D        {block}")
    return lines


def facts_lines(form: Form) -> list[str]:
    """What in the bytes is fact: the bit positions the seed states, and nothing else. Printed with every
    stream, because the bytes alone look equally certain in every bit while most rest on assumptions."""
    stated = form.stated_bit_count
    if stated:
        facts = f"only the {stated} of {form.bit_count} bit positions the seed states; every other position"
    else:
        facts = f"none; the seed states no {form.name} bit position, so each of the {form.bit_count}"
    return [f"facts: {facts} is a numbered",
            f"assumption ({ASSUMPTIONS[0].id}..{ASSUMPTIONS[-1].id} in docs/agx.md), not checked on hardware"]


def ordering_lines(programs: list[TileProgram], form: Form) -> list[str]:
    """What in this stream rests on the two orderings the seed leaves open: hint bits (which of the seven is which
    hint: A4) and waits on some slots but not all (which bit is which slot: A3). The default pipeline sets neither
    (agx-hints-and-waits{hints=false waits=all}); a stream that does says so beside its bytes."""
    descs = [desc for program in programs for desc in program.instructions]
    hinted = any(desc.d_cache or desc.hints.a or desc.hints.b or desc.hints.c for desc in descs)
    partial = any(desc.wait and len(set(desc.wait)) < form.wait_slots for desc in descs)
    return [f"this stream also rests on {what}" for what, used in (
        ("its register-cache hint bits: which bit is which hint is assumption A4", hinted),
        ("its waits on single slots: which bit is which slot is assumption A3", partial)) if used]


def _arg_names(module: ModuleOp, function: str) -> list[str]:
    for op in module.walk():
        if isinstance(op, FuncOp) and op.sym_name.data == function:
            return [f"%{arg.name_hint}" if arg.name_hint else f"%arg{arg.index}" for arg in op.body.blocks[0].args]
    return []


def emit(module: ModuleOp, form: str = "agx3b", fmt: str = "hex") -> str | bytes:
    """The MMA stream and fragment map of every tile in ``module``.

    ``fmt``: ``hex`` (text: the map as ``//`` comments, then one instruction per
    line), ``asm`` (the same with canonical assembly), ``bin`` (the instruction
    bytes only, tiles back to back).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown AGX output format '{fmt}', expected one of: {', '.join(FORMATS)}")
    form = form_named(form).name
    tiles = tile_programs(module, form)
    if not tiles:
        emit_error(module, "no agx.mma8 to emit; lower the dot with qdot-to-agx first")
    if fmt == "bin":
        return b"".join(stream for _, stream in tiles)
    out = [f"// {form}: the MMA instruction stream of each dot tile and the register map of its fragments,",
           "// not a whole shader (only the matrix instruction has a published encoding; see docs/agx.md)",
           *(f"// {line}" for line in facts_lines(FORMS[form])),
           *(f"// {line}" for line in ordering_lines([program for program, _ in tiles], FORMS[form]))]
    for program, stream in tiles:
        out.append("//")
        out.extend(f"// {line}" for line in map_lines(program, _arg_names(module, program.function)))
        length = FORMS[form].length
        for index, desc in enumerate(program.instructions):
            chunk = stream[index * length:(index + 1) * length]
            out.append(chunk.hex() if fmt == "hex" else format_mma8(desc))
    return "\n".join(out) + "\n"
