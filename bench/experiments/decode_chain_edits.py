"""Experiment: a shorter q4_K scale decoding in the one-token goal kernel — text edits of its PTX as qdot c830313f
emitted it (``ptx_variants.GOAL_PTX_C830313``), measuring sticks, not qdot output.

    python -m bench.experiments.decode_chain_edits --prepare                 # here: the kernels into the cache
    python -m bench.experiments.decode_chain_edits EDIT [--reps R]           # on the GPU machine, with that cache

Runs 308–310 found the decoding 18–20 % of the kernel at the goal row, and it sits on the step's critical path:
every thread decodes its row's 16 fields between the tile's barrier and the decoded scales' barrier, so no warp of
the program starts its mma before the slowest thread's chain is done. Each field as compiled is an unpack (``and`` /
``bfe`` / shifts), ``cvt.rn.f32.u32`` (SASS ``I2FP``), a ``mul.rn.f32`` by d or dmin, and for the odd sub-blocks'
scales a second ``mul.rn.f32`` by 1/16 (their nibbles are used unshifted, 16 × q). The edits:

* ``magic``: each 6-bit value v (v < 2²³) becomes the float 2²³ + v by ``or.b32 v, 0x4B000000``, and its product
  ``fma.rn.f32 (2²³ + v), d, −2²³·d`` — the exact value v·d rounded once, the bits of ``mul.rn.f32 d, v``; −2²³·d
  is computed once per header (d from fp16: scaling it by a power of two is exact; one difference: v = 0 with
  d < 0 gives +0 where the product gives −0, the sign of an exact zero). The K step's SASS (``bench.sass_census``,
  sm_90) has 380 instructions against 378: its 16 ``I2FP`` gone, 15 ``LOP3`` more (ptxas merges one ``or`` into
  its unpacking), FFMA for FMUL.
* ``magic+d16``: also the 1/16 folded into d (d/16 and −2²³·d/16 once per header, both exact), which removes the
  four second multiplies: the result is round(v·d/16) = round(v·d)/16, the same bits (no fp32 subnormal: d ≥ 2⁻²⁴
  as an fp16, so v·d/16 ≥ 2⁻²⁸ or 0). 378 SASS instructions per K step.
* ``header-once``: the block header read once per thread and step. As compiled, the scale and the min fields are
  two ``qgpu.local_load`` ops, each lowered with its own ``ld.shared.v4.b32`` of the same 16 bytes, the second after
  the first's decoded stores (which LLVM cannot prove do not alias it). The edit makes the second load register
  moves; run 310's PTX edit of the previous compiler's kernel read it once and was 1.2–2.2 % faster at the goal row,
  run 311's compiler form (twice) 0.967–0.981 × there.
* ``header-once+magic+d16``: both.
* ``pad-48``: the decoded scales' rows 48 bytes apart instead of 32 (the scale part at 23040, the min part at 26112,
  2048 more bytes of shared memory, given to the launch). Run 306 counted the decoded scales' 16-byte stores at twice
  their ideal wavefronts: thread t writes row t, and eight rows 32 bytes apart cover 256 bytes, so a quarter-warp's
  stores fall on each bank twice; 48 bytes apart, rows t and t + 4 no longer share banks. Those excess wavefronts are
  6 % of the kernel's, with the L1/TEX unit its busiest (80 %). The fold's reads (rows g and g + 8 per lane group)
  keep their 16-byte loads. The edit remaps every address of the two parts (``[%r20+…]`` stores, ``[%r21+…]`` loads)
  and the four row strides that build them. At 7 programs per SM (the goal row) the 2 KB more still fit (7 × 30 208
  bytes), at 8 (32768 × 8192) they do not.
* ``swizzle-halves``: the same conflict removed without more memory: the two 16-byte halves of row r swapped where
  bit 2 of r is set (a writer's lane bit 2, a reader's lane bit 4: the reads' rows g, g + 8, 32 + g, 40 + g share
  it), so a quarter-warp's eight rows 32 bytes apart fill the 128 bytes once. Each side gets two base registers (its
  base ± 16 · swap), one per half.

Timed beside the kernel as compiled by ``ptx_variants.run_ab`` at the four decode shapes (every row checked against
``compiler.numerics`` first). Run 313 (an H100, two repetitions, kernel alone): ``magic+d16`` 1.000–1.013 ×,
``header-once`` 0.997–1.012 × — neither measurable; the compiler took the first (for its 0.985–0.995 × on the
repacked prefill kernel, where the header is read field by field) and not the second. Run 314 (an H100):
``swizzle-halves`` 0.957–0.963 × at the goal row, 0.982–0.998 × elsewhere; ``pad-48`` 0.946–0.968 × there,
0.953–0.980 × at 4096² and 3584² (at 32768 × 8192 a different grid). The compiler took the swizzle, which costs no
memory (``block_dots._decode_once``; run 315: 0.933–0.952 ×). Each edit refuses PTX without what it changes (the goal
kernel's 16 conversions and two scale factors; its two header loads; the decoded scales' row strides, base registers
and 68 addresses).
"""

from __future__ import annotations

import re
import struct

import bench.mmq as bm
from bench.experiments.ptx_variants import (GOAL_PTX_C830313, goal_kernel_ab, not_the_goal_kernel,
                                            stored_goal_kernel)

COMMAND = "python -m bench.experiments.decode_chain_edits"
DECODE_SHAPES = [(1, n, k) for n, k in bm.DECODE_SHAPES]
MAGIC = 0x4B000000
"""The bits of 2²³ as an fp32: OR-ing an integer v < 2²³ into its mantissa gives the float 2²³ + v."""
SIXTEENTH = "0f3D800000"

_CONVERT = re.compile(r"^\tcvt\.rn\.f32\.u32 \t(%r\d+), (%r\d+);$", re.M)
_FACTOR = re.compile(r"^\tcvt\.f32\.f16 \t(%r\d+), %rs\d+;$", re.M)
_HEADER = re.compile(r"^\tld\.shared\.v4\.b32 \t\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}, \[(%r\d+)\];$", re.M)
_REGS = re.compile(r"^\t\.reg \.b32 \t%r<\d+>;$", re.M)


def _f32(value: float) -> str:
    return "0f" + struct.pack(">f", value).hex().upper()


def _uses(ptx: str, register: str) -> list[str]:
    return re.findall(rf"^.*{re.escape(register)}(?!\d).*$", ptx, re.M)


def magic(ptx: str, fold_sixteenth: bool = False) -> str:
    """``ptx`` with the scale decoding's 16 conversions replaced as the module docstring says."""
    converts = _CONVERT.findall(ptx)
    if len(converts) != 16 or len(_REGS.findall(ptx)) != 1:
        raise not_the_goal_kernel("decode_chain_edits", f"{len(converts)} cvt.rn.f32.u32")
    defined = {m.group(1): m.group(0) for m in _FACTOR.finditer(ptx)}  # d and dmin widened from fp16
    factors: dict[str, int] = {}
    for value, packed in converts:
        products = re.findall(rf"^\tmul\.rn\.f32 \t(%r\d+), (%r\d+), {re.escape(value)};$", ptx, re.M)
        if len(products) != 1 or len(_uses(ptx, value)) != 2 or products[0][1] not in defined:
            raise not_the_goal_kernel("decode_chain_edits", f"the one product of {value} by d or dmin")
        (product, factor), = products
        i = factors.setdefault(factor, len(factors))
        result, times, plus = product, factor, f"%qm_nd{i}"
        sixteenths = re.findall(rf"^\tmul\.rn\.f32 \t(%r\d+), {re.escape(product)}, {SIXTEENTH};$", ptx, re.M)
        if fold_sixteenth and sixteenths and len(_uses(ptx, product)) == 2:
            result, times, plus = sixteenths[0], f"%qm_s{i}", f"%qm_ns{i}"
            ptx = ptx.replace(f"\tmul.rn.f32 \t{result}, {product}, {SIXTEENTH};\n", "", 1)
        ptx = ptx.replace(f"\tcvt.rn.f32.u32 \t{value}, {packed};", f"\tor.b32 \t{value}, {packed}, {MAGIC};", 1)
        ptx = ptx.replace(f"\tmul.rn.f32 \t{product}, {factor}, {value};",
                          f"\tfma.rn.f32 \t{result}, {value}, {times}, {plus};", 1)
    if len(factors) != 2:
        raise not_the_goal_kernel("decode_chain_edits", f"scale factors {sorted(factors)}")
    for factor, i in factors.items():
        extra = [f"\tmul.rn.f32 \t%qm_nd{i}, {factor}, {_f32(-2.0 ** 23)};"]
        if fold_sixteenth:
            extra += [f"\tmul.rn.f32 \t%qm_s{i}, {factor}, {SIXTEENTH};",
                      f"\tmul.rn.f32 \t%qm_ns{i}, {factor}, {_f32(-2.0 ** 19)};"]
        ptx = ptx.replace(defined[factor], "\n".join([defined[factor], *extra]), 1)
    declaration = _REGS.search(ptx).group(0)
    return ptx.replace(declaration, f"{declaration}\n\t.reg .b32 \t%qm_nd<2>;\n\t.reg .b32 \t%qm_s<2>;\n"
                       "\t.reg .b32 \t%qm_ns<2>;", 1)


def header_once(ptx: str) -> str:
    """``ptx`` with the second of the step's two loads of the same header made moves from the first's registers."""
    loads = list(_HEADER.finditer(ptx))
    pairs = [(a, b) for i, a in enumerate(loads) for b in loads[i + 1:] if a.group(5) == b.group(5)]
    if len(pairs) != 1:
        raise not_the_goal_kernel("decode_chain_edits", f"{len(pairs)} pairs of header loads from one address")
    (first, second), = pairs
    moves = "".join(f"\tmov.b32 \t{second.group(i)}, {first.group(i)};\n" for i in range(1, 5))
    return ptx.replace(second.group(0) + "\n", moves, 1)


DECODED_AT, DECODED_ROWS, ROW_BYTES, PADDED_ROW_BYTES = 23040, 64, 32, 48
"""The decode-once buffer of the goal kernel: two parts (d·sc, then dmin·m) of 64 rows of eight f32."""
_ROW_STRIDES = {  # row offsets: a warp's 16 rows read, lane group g's row g, a warp's 32 rows written, a lane's row
    "\tshl.b32 \t%r61, %r3, 9;\n": f"\tmul.lo.s32 \t%r61, %r3, {16 * PADDED_ROW_BYTES};\n",
    "\tshl.b32 \t%r62, %r4, 5;\n": f"\tmul.lo.s32 \t%r62, %r4, {PADDED_ROW_BYTES};\n",
    "\tshl.b32 \t%r63, %r3, 10;\n": f"\tmul.lo.s32 \t%r63, %r3, {32 * PADDED_ROW_BYTES};\n",
    "\tshl.b32 \t%r64, %r2, 5;\n": f"\tmul.lo.s32 \t%r64, %r2, {PADDED_ROW_BYTES};\n"}
_DECODED_ADDRESS = re.compile(r"\[(%r2[01])\+(\d+)\]")


def _decoded_addresses(ptx: str) -> None:
    """Refuse PTX whose decoded-scale addresses are not the goal kernel's 68 (4 stores off ``%r20``, 64 loads off
    ``%r21``), each inside the two parts."""
    addresses = _DECODED_ADDRESS.findall(ptx)
    if sorted({register for register, _ in addresses}) != ["%r20", "%r21"] or len(addresses) != 68 \
            or not all(0 <= int(offset) - DECODED_AT < 2 * DECODED_ROWS * ROW_BYTES for _, offset in addresses):
        raise not_the_goal_kernel("decode_chain_edits", f"{len(addresses)} decoded-scale addresses")


def padded_rows(ptx: str) -> str:
    """``ptx`` with the decoded scales' rows ``PADDED_ROW_BYTES`` apart (see ``pad-48`` in the module docstring)."""
    _decoded_addresses(ptx)
    for old in _ROW_STRIDES:
        if ptx.count(old) != 1:
            raise not_the_goal_kernel("decode_chain_edits", old.strip())

    def moved(match: re.Match) -> str:
        part, rest = divmod(int(match.group(2)) - DECODED_AT, DECODED_ROWS * ROW_BYTES)
        row, byte = divmod(rest, ROW_BYTES)
        at = DECODED_AT + part * DECODED_ROWS * PADDED_ROW_BYTES + row * PADDED_ROW_BYTES + byte
        return f"[{match.group(1)}+{at}]"

    for old, new in _ROW_STRIDES.items():
        ptx = ptx.replace(old, new, 1)
    return _DECODED_ADDRESS.sub(moved, ptx)


_BASES = {"%r20": ("\tadd.s32 \t%r20, %r65, %r63;\n", 2, "%qsw"),   # writer: row t, swap = bit 2 of tid
          "%r21": ("\tadd.s32 \t%r21, %r66, %r61;\n", 4, "%qsr")}   # reader: rows of g = tid / 4, bit 4 of tid


def swizzled_halves(ptx: str) -> str:
    """``ptx`` with each decoded-scale row's 16-byte halves swapped where bit 2 of the row is set (``swizzle-halves``
    in the module docstring)."""
    _decoded_addresses(ptx)
    for line, _bit, _name in _BASES.values():
        if ptx.count(line) != 1:
            raise not_the_goal_kernel("decode_chain_edits", line.strip())
    for base, (line, bit, name) in _BASES.items():
        bases = (f"\tbfe.u32 \t{name}0, %r1, {bit}, 1;\n\tshl.b32 \t{name}0, {name}0, 4;\n"
                 f"\tadd.s32 \t{name}1, {base}, {name}0;\n\tsub.s32 \t{name}2, {base}, {name}0;\n")
        ptx = ptx.replace(line, line + bases, 1)

    def swapped(match: re.Match) -> str:
        half = (int(match.group(2)) - DECODED_AT) % ROW_BYTES // 16
        return f"[{_BASES[match.group(1)][2]}{1 + half}+{match.group(2)}]"

    ptx = _DECODED_ADDRESS.sub(swapped, ptx)
    declaration = _REGS.search(ptx).group(0)
    return ptx.replace(declaration, f"{declaration}\n\t.reg .b32 \t%qsw<3>;\n\t.reg .b32 \t%qsr<3>;", 1)


PADDING_BYTES = 2 * DECODED_ROWS * (PADDED_ROW_BYTES - ROW_BYTES)
"""The shared memory ``pad-48`` adds past the kernel's own 27 136 bytes (the launch is given it)."""


def goal_kernel() -> list:
    """The goal kernel's row with ``GOAL_PTX_C830313`` (and the quantize kernels compiled)."""
    return stored_goal_kernel(GOAL_PTX_C830313)


compile_all = goal_kernel
"""The goal kernel and the quantize kernels, compiled (``python -m bench.prepare`` and the tests call it)."""
EDITS = {"magic": (magic, DECODE_SHAPES),
         "magic+d16": (lambda ptx: magic(ptx, fold_sixteenth=True), DECODE_SHAPES),
         "header-once": (header_once, DECODE_SHAPES),
         "header-once+magic+d16": (lambda ptx: magic(header_once(ptx), fold_sixteenth=True), DECODE_SHAPES),
         "pad-48": (padded_rows, DECODE_SHAPES, PADDING_BYTES),
         "swizzle-halves": (swizzled_halves, DECODE_SHAPES)}


if __name__ == "__main__":
    goal_kernel_ab(__doc__.split("\n\n")[0], COMMAND, EDITS, kernels=goal_kernel)
