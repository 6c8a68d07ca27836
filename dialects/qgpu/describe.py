"""``qdot-opt --print-layout``: a readable table of every layout a module uses.

For every distinct distributed tensor type and ``!qgpu.memdesc`` type, in order
of first appearance (results and block arguments, walking the module in
order), it prints a header, then

* distributed tensors: one line per register of every thread,
  ``warp 0 lane 5 reg 1: (9, 4) (9, 5) (9, 6) (9, 7)`` (one entry per element the
  register holds; ``-`` for an unused slot), and for 2-D tensors of at most
  ``GRID_LIMIT`` × ``GRID_LIMIT`` cells a grid whose cell ``T5:1.2`` names the lowest
  owner (lane 5, register 1, byte 2; ``W1T5:1.2`` for warp 1) and ``+n`` the number
  of further copies; fp4Unpacked grids have one column per fp4 value;
* buffers: per row (per stage 0; stages repeat every ``buffer_bytes``), runs of
  consecutive elements and the byte offset their run starts at, padding listed.

Everything comes from ``layouts``; a type whose encoding does not fit says so.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation

from dialects.qgpu.block_parts import BlockPartLayout
from dialects.qgpu.encodings import WARP_SIZE
from dialects.qgpu.errors import LayoutError
from dialects.qgpu.layouts import DistributedLayout, DotOperandLayout, distributed_layout, has_distributed_encoding
from dialects.qgpu.shared_layout import SharedLayout, shared_layout
from dialects.qgpu.types import MemDescType

GRID_LIMIT = 64


def _types_in_order(module: Operation) -> list[Attribute]:
    seen: list[Attribute] = []

    def note(t: Attribute) -> None:
        if (has_distributed_encoding(t) or isinstance(t, MemDescType)) and t not in seen:
            seen.append(t)

    for op in module.walk():
        for operand in op.operands:
            note(operand.type)
        for result in op.results:
            note(result.type)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    note(arg.type)
    return seen


def _coords_text(coords: Sequence[int] | None) -> str:
    return "-" if coords is None else "(" + ", ".join(str(c) for c in coords) + ")"


def _distributed_lines(layout: DistributedLayout) -> Iterator[str]:
    yield (f"  {layout.num_warps} warp(s) x {WARP_SIZE} lanes x {layout.regs_per_thread} register(s); "
           f"{layout.elem_bits}-bit values, {layout.elements_per_register} per register")
    if isinstance(layout, DotOperandLayout) and layout.fp4_unpacked:
        yield "  coordinates (row, packed column, nibble) for A, (packed row, column, nibble) for B"
    positions = range(0, 4, layout.elem_bytes)
    for warp in range(layout.num_warps):
        for lane in range(WARP_SIZE):
            for reg in range(layout.regs_per_thread):
                cells = " ".join(_coords_text(layout.coords(warp, lane, reg, byte)) for byte in positions)
                yield f"  warp {warp} lane {lane} reg {reg}: {cells}"
    yield from _grid_lines(layout)


def _grid_lines(layout: DistributedLayout) -> Iterator[str]:
    if len(layout.shape) != 2:
        return
    unpacked = isinstance(layout, DotOperandLayout) and layout.fp4_unpacked
    rows, cols = layout.shape
    if unpacked and isinstance(layout, DotOperandLayout):
        rows, cols = (rows, cols * 2) if layout.is_a else (rows * 2, cols)
    if rows > GRID_LIMIT or cols > GRID_LIMIT:
        return
    cells: list[list[str]] = []
    for r in range(rows):
        line = []
        for c in range(cols):
            if unpacked and isinstance(layout, DotOperandLayout):
                coords = (r, c // 2, c % 2) if layout.is_a else (r // 2, c, r % 2)
            else:
                coords = (r, c)
            owners = layout.owners(coords)
            first = owners[0]
            text = f"W{first.warp}" if first.warp else ""
            text += f"T{first.lane}:{first.reg}.{first.byte}"
            if len(owners) > 1:
                text += f"+{len(owners) - 1}"
            line.append(text)
        cells.append(line)
    width = max(len(cell) for line in cells for cell in line)
    label = max(len(str(rows - 1)), 3)
    what = "columns are fp4 values (packed element c, nibble h -> 2c+h)" if unpacked else "row \\ column"
    if unpacked and isinstance(layout, DotOperandLayout) and not layout.is_a:
        what = "rows are fp4 values (packed element r, nibble h -> 2r+h)"
    yield f"  grid ({what}; cell = lowest owner W<warp>T<lane>:<reg>.<byte>, +n = further copies):"
    yield "  " + " " * label + " " + " ".join(str(c).rjust(width) for c in range(cols))
    for r, line in enumerate(cells):
        yield "  " + str(r).rjust(label) + " " + " ".join(cell.rjust(width) for cell in line)


def _runs_text(offsets: list[int], elem_bytes: int) -> str:
    """``[first..last]@offset`` for each run of consecutive elements in one row's byte offsets."""
    runs, start = [], 0
    for column in range(1, len(offsets) + 1):
        if column == len(offsets) or offsets[column] != offsets[column - 1] + elem_bytes:
            last = column - 1
            runs.append(f"[{start}..{last}]@{offsets[start]}" if start != last else f"[{start}]@{offsets[start]}")
            start = column
    return " ".join(runs)


def _row_offsets(layout: SharedLayout, row_coords: list[int]) -> list[int]:
    offsets = []
    for column in range(layout.row_elements):
        coords = list(row_coords)
        coords[layout.contiguous_dim] = column
        offsets.append(layout.offset(coords))
    return offsets


def _shared_lines(layout: SharedLayout) -> Iterator[str]:
    stages = f"{layout.num_stages} stage(s) of " if layout.stage_rank else ""
    yield (f"  {stages}{layout.num_rows} row(s) x {layout.row_bytes} bytes = {layout.buffer_bytes} bytes"
           f"{' per stage' if layout.stage_rank else ''}; allocation {layout.allocation_bytes} bytes")
    yield (f"  contiguous dim {layout.contiguous_dim}, rows along dim(s) {list(layout.row_dims)}; swizzle unit "
           f"{layout.swizzle_bytes} bytes, perPhase {layout.per_phase}, maxPhase {layout.max_phase}"
           f"{'; fp4Padded: bytes 8..15 of every 16 are padding' if layout.fp4_padded else ''}"
           f"{f'; rowPad: the last {layout.row_pad} bytes of every row are padding' if layout.row_pad else ''}")
    for row in range(layout.num_rows):
        coords = [0] * len(layout.shape)
        rest = row
        for d in layout.row_dims:
            rest, coords[d] = divmod(rest, layout.shape[d])
        runs = _runs_text(_row_offsets(layout, coords), layout.elem_bytes)
        where = ", ".join(f"d{d}={coords[d]}" for d in layout.row_dims) or "row 0"
        yield f"  row {row} ({where}): {runs}"


def _block_part_lines(layout: BlockPartLayout) -> Iterator[str]:
    """A ``#qgpu.block_part`` view: which bytes of its parent's blocks each row's values are."""
    spec = layout.spec
    value_dim = layout.value_dim if spec.raw else 1
    rows, values = layout.shape[1 - value_dim], layout.shape[value_dim]
    stages = f" (stage 0; stages repeat every {layout.buffer_bytes} bytes)" if layout.stage_rank else ""
    yield (f"  view of part '{layout.part}' of {layout.format.value} blocks ({layout.block_bytes} bytes each) "
           f"from block {layout.first} of each row: {rows} row(s) x {values} value(s), rows "
           f"{layout.row_bytes} bytes apart{stages}; the parent buffer owns the bytes")
    if layout.broadcast:
        yield "  broadcast: every row reads the parent's row 0"
    if not spec.raw:
        yield (f"  {spec.values_per_block} value(s) per block, computed from the block's bytes when loaded "
               f"(no byte offsets)")
        return
    for row in range(rows):
        offsets = []
        for value in range(values):
            coords = [0, 0]
            coords[1 - value_dim], coords[value_dim] = row, value
            offsets.append(layout.offset(coords))
        yield f"  row {row}: {_runs_text(offsets, layout.elem_bytes)}"


def describe_type(t: Attribute) -> str:
    lines = [f"{t}:"]
    try:
        if isinstance(t, MemDescType):
            layout = shared_layout(t)
            lines.extend(_block_part_lines(layout) if isinstance(layout, BlockPartLayout) else _shared_lines(layout))
        else:
            assert isinstance(t, TensorType)
            lines.extend(_distributed_lines(distributed_layout(t)))
    except LayoutError as err:
        lines.append(f"  error: {err}")
    return "\n".join(lines) + "\n"


def describe_module_layouts(module: ModuleOp | Operation) -> str:
    types = _types_in_order(module)
    if not types:
        return "// no distributed tensor or shared-memory types in this module\n"
    return "\n".join(describe_type(t) for t in types)
