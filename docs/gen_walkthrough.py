"""Write docs/walkthrough.md: one kernel through every pass, its PTX, and what it measured.

    python docs/gen_walkthrough.py            # rewrite docs/walkthrough.md
    python docs/gen_walkthrough.py --check    # exit 1 if it is out of date

The kernel is ``examples/mx_gemm_e4m3_e2m1.mlir`` on sm_90 (``auto`` picks dequant-bf16
there), the kernel bench/RESULTS.md run 1 measured. The script runs the default pipeline
the way ``qdot-translate --print-ir-after-all`` does, keeps the IR after every pass, and
cuts from it the ops each pass introduced; the prose between the excerpts is written here
and the figures in it (op counts, instruction counts, ptxas's report, the measured row) are
computed, so the page cannot drift from the compiler: tests/examples/test_walkthrough.py
regenerates it and compares. Long operand lists are shortened (``%a, %b, …, %z``) and
layouts are printed as aliases (``#mma``), with their definitions above each excerpt.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the repository's packages importable
    sys.path.insert(0, str(ROOT))

PAGE = ROOT / "docs" / "walkthrough.md"
COMMAND = "python docs/gen_walkthrough.py"
EXAMPLE = "examples/mx_gemm_e4m3_e2m1.mlir"
ARCH = "sm_90"
NATIVE_ARCH = "sm_120a"
RESULTS = ROOT / "bench" / "RESULTS.md"
BLOCK_K = 64
"""K-values per step of the example's kernel (``GemmConfig(block_k=64, num_warps=8)``)."""
MEASURED_RUN = 100
"""The bench/RESULTS.md run whose MX table the page quotes."""
MEASURED_LABEL = "qdot e4m3xe2m1 bf16 128x128x64 w8 [dequant-bf16, 3 stages]"
"""bench/mx_gemm.py's label for ``GemmConfig(block_k=64, num_warps=8)`` (this example's kernel) on sm_90."""
SMALLER_LABEL = "qdot e4m3xe2m1 bf16 256x128x64 w8 [dequant-bf16, 3 stages]"
REFERENCE_LABEL = "triton tl.dot_scaled e4m3xe2m1"


# --- running the pipeline --------------------------------------------------------------------

@dataclass(frozen=True)
class Stage:
    """The module after one pass."""

    name: str
    """The pass as the pipeline spells it, options included."""
    text: str
    ops: Counter[str]
    paths: tuple[str, ...] = ()
    """How each operand of a ``qgpu.mma`` reaches it (``operand_paths``), while there is one."""


def run_pipeline(arch: str) -> tuple[str, list[Stage]]:
    """The pipeline string and the IR after each of its passes (what --print-ir-after-all prints)."""
    from compiler import registry
    from compiler.cli.common import build_pipeline, parse_module, print_module, split_chunks
    from compiler.pipelines import PtxOptions, ptx_pipeline

    spec = ptx_pipeline(PtxOptions(arch=arch))
    names = spec.split(",")
    ctx = registry.make_context()
    module = parse_module(ctx, split_chunks((ROOT / EXAMPLE).read_text(encoding="utf-8"), False)[0], EXAMPLE)
    stages: list[Stage] = []

    def snapshot(_pass: object, mod: object) -> None:
        out = StringIO()
        print_module(mod, out)  # type: ignore[arg-type]
        ops = Counter(op.name for op in mod.walk())  # type: ignore[attr-defined]
        stages.append(Stage(names[len(stages)], out.getvalue(), ops, operand_paths(mod)))

    build_pipeline(registry.pass_factories(), spec, after_pass=snapshot, verify_each=False).apply(ctx, module)
    return spec, stages


_STEP_TEXT = {
    "qdot.load": "global memory",
    "qgpu.local_alloc": "shared memory",
    "qgpu.local_load": "registers",
    "qgpu.memdesc_trans": "a transposed view",
    "qgpu.memdesc_index": "one pipeline stage",
    "qgpu.convert_layout": "registers",
}


def _encoding_kind(value: object) -> str:
    """``#qgpu.shared`` / ``#qgpu.dot_op`` …: the kind of layout a value's type carries."""
    text = str(getattr(value, "type", ""))
    kinds = re.findall(r"#qgpu\.(\w+)<", text)
    return f" (`#qgpu.{kinds[0]}`)" if kinds else ""


def operand_paths(module: object) -> tuple[str, ...]:
    """For each operand of each ``qgpu.mma``, the ops it comes through from ``qdot.load``, e.g.
    ``A: global memory → shared memory (`#qgpu.shared`) → registers (`#qgpu.dot_op`)``. Derived from
    the IR's def-use chains, so the page says what the compiler built, not what it used to build."""
    paths = []
    for op in module.walk():  # type: ignore[attr-defined]
        if op.name != "qgpu.mma":
            continue
        names = ["A", "B", "C", "A scales", "B scales"]
        for name, operand in zip(names, op.operands, strict=False):
            if name == "C":
                continue
            steps: list[str] = []
            value = operand
            while (owner := getattr(value, "owner", None)) is not None and hasattr(owner, "name"):
                if owner.name == "qgpu.upcast":
                    source = owner.attributes.get("from") or owner.properties.get("from")
                    target = owner.attributes.get("to") or owner.properties.get("to")
                    what = f"`qgpu.upcast` {_attr_text(source)} → {_attr_text(target)}"
                    if len(owner.operands) > 1:
                        what += " × scale"
                    steps.append(what + _encoding_kind(value))
                elif owner.name in _STEP_TEXT:
                    steps.append(f"{_STEP_TEXT[owner.name]}{_encoding_kind(value) if owner.name != 'qdot.load' else ''}")
                else:
                    steps.append(f"`{owner.name}`{_encoding_kind(value)}")
                if owner.name == "qdot.load" or not owner.operands:
                    break
                value = owner.operands[0]
            paths.append(f"{name}: " + " → ".join(reversed(steps)) + " → `qgpu.mma`")
    return tuple(paths)


def _attr_text(attr: object) -> str:
    data = getattr(attr, "data", attr)
    return str(getattr(data, "value", data))


def input_stage() -> Stage:
    from compiler import registry
    from compiler.cli.common import parse_module, print_module, split_chunks

    module = parse_module(registry.make_context(),
                          split_chunks((ROOT / EXAMPLE).read_text(encoding="utf-8"), False)[0], EXAMPLE)
    out = StringIO()
    print_module(module, out)
    return Stage("input", out.getvalue(), Counter(op.name for op in module.walk()))


# --- cutting excerpts --------------------------------------------------------------------------

_ATTR = re.compile(r"#qgpu\.(\w+)<\{([^<>{}]*)\}>")
_RUN_SSA = re.compile(r"%[\w#]+(?:, %[\w#]+){5,}")
_RUN_TYPE = re.compile(r"\b(\w+)(?:, \1\b){5,}")


class Aliases:
    """Layout attributes printed once, MLIR-style (``#mma = #qgpu.mma<{...}>``), and by name in the IR."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.definitions: list[str] = []

    def _name(self, kind: str, body: str) -> str:
        base = {"mma": "mma", "shared": "shared", "blocked": "blocked"}.get(kind)
        if base is None:
            side = "a" if "opIdx = 0" in body else "b"
            base = f"{'dot' if kind == 'dot_op' else 'scale'}_{side}"
        taken = {name for name in self.names.values() if re.fullmatch(rf"#{base}\d*", name)}
        return f"#{base}" if not taken and base in ("mma", "dot_a", "dot_b", "scale_a", "scale_b") \
            else f"#{base}{len(taken)}"

    def apply(self, line: str) -> str:
        while match := _ATTR.search(line):
            full = match.group(0)
            if full not in self.names:
                self.names[full] = self._name(match.group(1), match.group(2))
                self.definitions.append(f"{self.names[full]} = {full}")
            line = line.replace(full, self.names[full])
        return line


def shorten(line: str) -> str:
    """Long runs of SSA values or of one type become ``%a, %b, …, %z`` / ``i32, i32, …, i32``."""
    def ssa(match: re.Match[str]) -> str:
        values = match.group(0).split(", ")
        return f"{values[0]}, {values[1]}, …, {values[-1]}"

    line = _RUN_SSA.sub(ssa, line)
    return _RUN_TYPE.sub(lambda m: f"{m.group(1)}, {m.group(1)}, …, {m.group(1)}", line)


Step = tuple[str, int] | tuple[str, int, int]
"""(regex, n[, before]): the next ``n`` lines matching ``regex``, each with ``before`` lines of context
above it (n = 0: every line from the match up to the next step's match)."""


def pick(text: str, steps: list[Step], start: str | None = None) -> list[str]:
    """Lines of ``text`` chosen by ``steps`` in order (from the first line matching ``start``),
    with ``// …`` where lines are skipped. Raises if a step finds nothing: the page would lie."""
    lines = text.splitlines()
    pos = 0
    if start is not None:
        pos = next(i for i, line in enumerate(lines) if re.search(start, line))
    chosen: list[int] = []
    for index, step in enumerate(steps):
        pattern, count = step[0], step[1]
        before = step[2] if len(step) > 2 else 0  # type: ignore[misc]
        if count == 0:  # a range: up to (not including) the next step's first match
            nxt = steps[index + 1][0]
            end = next(i for i in range(pos, len(lines)) if re.search(nxt, lines[i]))
            first = next(i for i in range(pos, end + 1) if re.search(pattern, lines[i]))
            chosen += range(first, end)
            pos = end
            continue
        found = [i for i in range(pos, len(lines)) if re.search(pattern, lines[i])][:count]
        if len(found) < count:
            raise LookupError(f"walkthrough: no line matching {pattern!r} after line {pos}; update the script")
        for i in found:
            chosen += [j for j in range(max(pos, i - before), i + 1) if j not in chosen]
        pos = found[-1] + 1
    out: list[str] = []
    previous = None
    for i in chosen:
        if previous is not None and i != previous + 1:
            indent = re.match(r"\s*", lines[i]).group(0)  # type: ignore[union-attr]
            out.append(f"{indent}// …")
        out.append(lines[i])
        previous = i
    return out


def require(lines: list[str], pieces: tuple[str, ...]) -> None:
    """The prose next to an excerpt names these values; stop if the compiler no longer emits them."""
    for piece in pieces:
        if not any(piece in line for line in lines):
            raise LookupError(f"walkthrough: the excerpt no longer contains {piece!r}; update the prose")


def block(lines: list[str], language: str = "mlir") -> str:
    aliases = Aliases()
    body = [shorten(aliases.apply(line)) for line in lines]
    indent = min((len(line) - len(line.lstrip()) for line in body if line.strip()), default=0)
    body = [line[indent:] for line in body]
    head = aliases.definitions + ([""] if aliases.definitions else [])
    return f"```{language}\n" + "\n".join(head + body) + "\n```"


def changes(before: Counter[str], after: Counter[str]) -> str:
    """``qgpu.local_load 4 → 0, ptx.ldmatrix 0 → 8``: op counts that a pass changed, arith summed up."""
    def grouped(counts: Counter[str]) -> Counter[str]:
        out: Counter[str] = Counter()
        for name, n in counts.items():
            out["arith.*" if name.startswith("arith.") else name] += n
        return out

    b, a = grouped(before), grouped(after)
    names = sorted(set(b) | set(a), key=lambda name: (name == "arith.*", name))
    diffs = [f"`{name}` {b[name]} → {a[name]}" for name in names if b[name] != a[name]]
    return ", ".join(diffs) if diffs else "none: the module is unchanged"


# --- ptx and ptxas -----------------------------------------------------------------------------

def ptx_histogram(ptx: str) -> Counter[str]:
    body = ptx[ptx.index("{", ptx.index(".entry")):]
    return Counter(m.group(1) for m in re.finditer(r"^\s+(?:@!?%p\d+\s+)?([a-z][\w.:]*)", body, re.M))


PTX_FAMILIES = (
    ("mma.sync", "tensor-core multiply-accumulate (from `qgpu.mma`)"),
    ("ldmatrix", "shared memory → mma fragments, a warp at a time"),
    ("ld.shared", "shared-memory reads where ldmatrix does not fit (lower-local-load's fallback)"),
    ("st.shared", "register → shared-memory writes (`qgpu.local_alloc` of a register tensor)"),
    ("cp.async.cg", "global → shared copies of 16 B (pipelined `qgpu.async_copy`)"),
    ("cp.async.ca", "global → shared copies of 4 B (the scale rows)"),
    ("prmt", "byte permutes: placing bytes, fp4 table lookups (upcasts)"),
    ("mul.rn.bf16x2", "bf16 multiplies: exponent rebias and scale (upcasts)"),
    ("fma.rn.bf16x2", "bf16 fused multiply-adds (upcasts)"),
    ("cvt.rn", "float conversions (upcasts)"),
    ("bar.sync", "CTA barriers"),
)
"""The PTX instruction families the walkthrough counts, with what they do in these kernels."""


def first_ptx_lines(ptx: str, prefixes: tuple[str, ...]) -> list[str]:
    out = []
    for prefix in prefixes:
        line = next((ln.strip() for ln in ptx.splitlines() if ln.strip().startswith(prefix)), None)
        if line is None:
            raise LookupError(f"walkthrough: no PTX instruction starting with {prefix!r}; update the script")
        out.append(line)
    return out


# --- bench/RESULTS.md --------------------------------------------------------------------------

@dataclass(frozen=True)
class MeasuredRow:
    run: str
    """The run's heading, e.g. ``Run 1 — 2026-11-30, MX GEMMs (...)``."""
    table: str
    header: str
    row: str
    smaller: str
    """A larger tile of the same run (256 × 128 × 64 on 8 warps)."""
    reference: str


def measured_row() -> MeasuredRow:
    text = RESULTS.read_text(encoding="utf-8")
    run = re.search(rf"^## (Runs? (?:\d+(?: and |–))?{MEASURED_RUN}\b.*)$", text, re.M)
    table = re.search(rf"^### (bench/results/\S*_run{MEASURED_RUN}[_.]\S*)$", text, re.M)
    if run is None or table is None:
        raise LookupError(f"bench/RESULTS.md has no run {MEASURED_RUN} section or table")
    rows = text[table.end():].split("\n### ")[0].splitlines()
    header = next(line for line in rows if line.startswith("| kernel"))
    row = next((line for line in rows if line.startswith(f"| {MEASURED_LABEL} |")), None)
    smaller = next((line for line in rows if line.startswith(f"| {SMALLER_LABEL} |")), None)
    reference = next((line for line in rows if line.startswith(f"| {REFERENCE_LABEL}")), None)
    if row is None or smaller is None or reference is None:
        raise LookupError(f"bench/RESULTS.md run {MEASURED_RUN} lacks a row '{MEASURED_LABEL}', '{SMALLER_LABEL}' or "
                          f"'{REFERENCE_LABEL}'")
    return MeasuredRow(run.group(1), table.group(1), header, row, smaller, reference)


# --- the page ----------------------------------------------------------------------------------

def _stage(stages: list[Stage], prefix: str) -> tuple[Stage, Stage]:
    """(the module before the pass whose name starts with ``prefix``, the module after it)."""
    for index, stage in enumerate(stages):
        if stage.name.startswith(prefix):
            return (stages[index - 1] if index else input_stage()), stage
    raise LookupError(f"walkthrough: the pipeline has no pass {prefix}")


def _local_load_table(after: str) -> tuple[str, int, int]:
    """Per shared buffer read in the K loop: the register layout it is read into and the instructions
    that read it (each read starts at the cast of its memdesc to an address and ends at the cast of
    its registers back to a tensor)."""
    lines = after.splitlines()
    rows = ["| buffer (shared) | read into | instructions |", "|---|---|---|"]
    start = re.compile(r"unrealized_conversion_cast %\w+ : !qgpu\.memdesc<(\w+)")
    end = re.compile(r"unrealized_conversion_cast .* to tensor<[^,]+, #qgpu\.(\w+)<\{([^>]*)")
    total_ld = total_ldm = 0
    i = 0
    while i < len(lines):
        if m := start.search(lines[i]):
            j = next((j for j in range(i, len(lines)) if end.search(lines[j])), None)
            if j is None:
                break
            segment = lines[i:j]
            ldm = Counter(re.search(r"ptx\.ldmatrix (.*) %\w+$", ln).group(1)  # type: ignore[union-attr]
                          for ln in segment if "ptx.ldmatrix" in ln)
            lds = sum("ptx.ld_shared" in ln for ln in segment)
            if ldm or lds:
                total_ld, total_ldm = total_ld + lds, total_ldm + sum(ldm.values())
                kind, body = end.search(lines[j]).groups()  # type: ignore[union-attr]
                side = re.search(r"opIdx = (\d)", body)
                into = f"`#qgpu.{kind}`" + (f" ({'A' if side.group(1) == '0' else 'B'})" if side else "")
                how = [f"{n} × `ldmatrix {form}`" for form, n in sorted(ldm.items())]
                how += [f"{lds} × `ld.shared`"] if lds else []
                rows.append(f"| `{m.group(1)}` | {into} | {', '.join(how)} |")
            i = j
        i += 1
    return "\n".join(rows), total_ldm, total_ld


def diff_block(before: str, after: str, limit: int = 24) -> str:
    """The lines a pass removed (-) and added (+), layouts aliased, at most ``limit`` of them."""
    import difflib

    changed = [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    shown = changed[:limit] + ([f" // … {len(changed) - limit} more changed lines"] if len(changed) > limit else [])
    aliases = Aliases()
    body = [line[0] + shorten(aliases.apply(line[1:])) for line in shown]
    return "```diff\n" + "\n".join([*(f" {d}" for d in aliases.definitions), *body]) + "\n```"


def render(versions: str) -> str:
    """The page; ``versions`` (``examples.catalog.tool_versions()``) is recorded in it."""
    import compiler
    from targets.ptx.ptxas import assemble

    spec, stages = run_pipeline(ARCH)
    _, native = run_pipeline(NATIVE_ARCH)
    kernel = compiler.compile(ROOT / EXAMPLE, arch=ARCH)
    native_kernel = compiler.compile(ROOT / EXAMPLE, arch=NATIVE_ARCH)
    ptx = kernel.ptx or ""
    report = assemble(ptx, ARCH)
    native_report = assemble(native_kernel.ptx or "", NATIVE_ARCH)
    measured = measured_row()
    info = kernel.kernels[0]
    out: list[str] = []
    add = out.append

    add("# One kernel through every pass")
    add("")
    add(f"<!-- Generated by `{COMMAND}`; do not edit. -->")
    add(f"<!-- tools: {versions} -->")
    add("")
    add(f"This page follows [`{EXAMPLE}`](../{EXAMPLE}) — C = (A · 2^SA) × (B · 2^SB) with A in e4m3,")
    add("B in e2m1 (two values per byte along K), one ue8m0 scale per 32 K-values on each side, an f32")
    add(f"accumulator, one 128×128 tile of C per program of 8 warps and {BLOCK_K} K-values per step — from the input IR to")
    add(f"PTX for {ARCH} (an H100 / H200), and to what it measured there. The excerpts and figures are cut")
    add(f"from the compiler's own output by `{COMMAND}`, which regenerates this page;")
    add("`tests/examples/test_walkthrough.py` fails when the page no longer matches the compiler (with the")
    add(f"tools it was made with: {versions}).")
    add("In the excerpts `// …` marks skipped lines, `%a, %b, …, %z` a shortened operand list, and")
    add("layouts are printed once as aliases (`#mma = #qgpu.mma<{...}>`) above the IR that uses them.")
    add("")
    add("## The commands")
    add("")
    add("```sh")
    add(f"qdot-translate {EXAMPLE} --arch {ARCH} --print-pipeline")
    add(f"# {spec}")
    add(f"qdot-translate {EXAMPLE} --arch {ARCH} --print-ir-after-all -o kernel.ptx 2> after-each-pass.mlir")
    add(f"qdot-opt {EXAMPLE} -p 'qdot-lower-quantize,qdot-accelerate-matmul{{arch={ARCH} strategy=auto}}'")
    add(f"qdot-translate {EXAMPLE} --arch {ARCH} --verify-ptx -o kernel.ptx  # ptxas -v report on stderr")
    add(f"qdot-translate {EXAMPLE} --arch {ARCH} --print-ir-before=qdot-lower-mma --print-ir-after=qdot-lower-mma "
        "-o kernel.ptx 2> lower-mma.mlir")
    add(f"qdot-translate {EXAMPLE} --arch {ARCH} --timing -o kernel.ptx  # where the compile time goes")
    add(f"qdot-translate {EXAMPLE} --arch {ARCH} --remarks -o kernel.ptx  # each pass's decisions, at their ops")
    add("```")
    add("")
    add("`--print-pipeline` prints the pass pipeline `qdot-translate` runs; any prefix of it can be given to")
    add("`qdot-opt -p` to stop after that pass, and `--print-ir-after-all` prints the module after every")
    add(f"pass ({sum(len(s.text.splitlines()) for s in stages)} lines of IR for this kernel, besides a header "
        "per pass). The sections below go "
        "through that output pass by pass. To look at one pass, `--print-ir-before=PASS` and "
        "`--print-ir-after=PASS` print only around it (`--print-ir-after-change` only where a pass changed "
        "the IR, `--print-ir-after-failure` the IR a failing pass left), and `--timing` reports the time "
        "of parsing, of each pass, of the verifier and of emitting the PTX; both tools take these options, "
        "as MLIR's take their `-mlir-` forms. From Python, `compiler.compile(source, trace=True).trace` "
        "holds the same for each pass: its name, the IR after it and its time.")
    add("")
    add("`--remarks` lists what each pass decided, at the op it decided for, with the reason — the")
    add("summary of the sections below, one line per decision (`compiler.compile(..., remarks=True).remarks`")
    add("from Python):")
    add("")
    add("```")
    out.extend(line.replace(f"{ROOT}/", "") for line in compiler.compile(ROOT / EXAMPLE, arch=ARCH,
                                                                          remarks=True).remarks)
    add("```")
    add("")

    # input
    first = input_stage()
    add("## The input")
    add("")
    add("The K loop loads one tile of each operand and its scales through block descriptors and hands them")
    add("to `qdot.dot_scaled`, which says *what* is multiplied (formats, scales, accumulator) and nothing")
    add("about how:")
    add("")
    add(block(pick(first.text, [(r"scf\.for", 1), (r"qdot\.load %a_desc", 0), (r"scf\.yield", 1)])))
    add("")

    section = 0

    def heading(stage: Stage) -> None:
        nonlocal section
        section += 1
        add(f"## {section}. `{stage.name}`")
        add("")

    # 1. lower-quantize
    before, after = _stage(stages, "qdot-lower-quantize")
    heading(after)
    add("Turns `qdot.quantize` (f32 → q8_1 blocks, the activation quantizer of the q4_K examples) into")
    if before.text == after.text:
        add("per-thread code. This kernel has none: the module comes out unchanged.")
    else:
        add(f"per-thread code. Op counts: {changes(before.ops, after.ops)}.")
    add("")

    # 2. accelerate-matmul
    before, after = _stage(stages, "qdot-accelerate-matmul")
    strategies = sorted({m.group(1) for m in re.finditer(r'qdot\.strategy = "([\w-]+)"', after.text)})
    heading(after)
    add("The decision of the pipeline: which tensor-core instruction runs the dot and what each operand")
    add(f"becomes on the way there. On {ARCH} the `auto` strategy picks **{', '.join(strategies)}**. It tries the")
    add("strategies fastest first (`passes/support/strategy.py`): `native` needs the block-scaled fp8/fp4")
    add("`mma.sync` of sm_120a; `promote-fp8` is not taken because sm_90's fp8 `mma.sync` is emulated by")
    add("ptxas with f16 HMMA; on Hopper `dequant-bf16` comes next, ahead of `promote-int8`, which measured")
    add("slower there for the pairs both run (and needs values that are integers after a shift, which e4m3")
    add("values are not). So both operands become bf16 and the bf16 `mma.sync` runs the product; the ue8m0 scales are")
    add("folded into the converted values (a power of two: exact while the product stays in bf16's range).")
    add("The dot is replaced by explicit data movement and conversion, and the accumulator takes the")
    add("`#qgpu.mma` layout of the mma's C fragments through the loop. Each operand's way to `qgpu.mma`")
    add("(from the IR's def-use chains):")
    add("")
    for path in after.paths:
        add(f"- {path}")
    add("")
    add(f"Op counts: {changes(before.ops, after.ops)}.")
    add("")
    add(block(pick(after.text, [(r"arith\.constant dense", 1), (r"qgpu\.local_alloc", 0), (r"scf\.yield", 1)])))
    add("")

    # 3. optimize-dot-operands
    before, after = _stage(stages, "qdot-optimize-dot-operands")
    heading(after)
    add("Fuses transposes (`qgpu.memdesc_trans`) into the shared-memory allocations they read and carries")
    add("`fp4Padded` across them, so that later passes see one buffer in the layout its reader wants.")
    if before.text == after.text:
        add("There is nothing of that kind in this kernel: the module is unchanged.")
    else:
        add(f"Op count changes: {changes(before.ops, after.ops)}. The lines it changed:")
        add("")
        add(diff_block(before.text, after.text))
    add("")

    # 4. pipeline
    before, after = _stage(stages, "qdot-pipeline")
    heading(after)
    stages_n = re.search(r"num-stages=(\d+)", after.name)
    if stages_n is None:
        raise LookupError("walkthrough: the pipeline pass has no num-stages option; update the script")
    depth = int(stages_n.group(1))
    add(f"Software pipelining: each buffer a `qdot.load` fills becomes a ring of {depth} stages, the loads become")
    add(f"`qgpu.async_copy` (cp.async) into the stage the loop will read {depth - 1} iterations later, a prologue")
    add("fills the first stages, and `qgpu.async_wait` waits for the oldest group of copies before its")
    add("buffers are read. The loop now carries the ring indices next to the accumulator. Op counts:")
    add(f"{changes(before.ops, after.ops)}.")
    synced = after.text.count("{qdot.readers_synced}")
    if synced:
        add(f"The {synced} register → shared buffers of the loop body (the dequantized tiles) are marked")
        add("`qdot.readers_synced`: their previous contents were read in the previous iteration, which every")
        add("thread has finished at the wait's barrier, so their stores need no barrier of their own in front.")
    add("")
    add(block(pick(after.text, [(r"qgpu\.local_alloc : \(\)", 4), (r"qgpu\.memdesc_index", 1),
                                (r"qgpu\.async_copy", 1), (r"qgpu\.async_commit", 1), (r"scf\.for", 1),
                                (r"qgpu\.async_wait", 1), (r"qgpu\.memdesc_index", 1), (r"qgpu\.async_copy", 1),
                                (r"qgpu\.local_load", 1), *([(r"qdot\.readers_synced", 1)] if synced else []),
                                (r"scf\.yield", 1), (r"qgpu\.async_wait", 1)])))
    add("")

    # 5. lower-local-load
    before, after = _stage(stages, "qdot-lower-local-load")
    table, n_ldmatrix, n_ld = _local_load_table(after.text)
    heading(after)
    add("Chooses the instruction that moves each shared buffer into its register layout. Both layouts are")
    add("functions of (lane, register, byte) (`dialects/qgpu/layouts.py`); composing them gives, for every")
    add("byte a thread needs, its shared-memory address, and `ldmatrix` is used only where the bytes it")
    add("delivers are exactly those. Otherwise the pass falls back to `ld.shared` of whole 32-bit words where")
    add("four bytes are contiguous, single bytes where they are not. Here "
        f"{n_ldmatrix} `ldmatrix` and {n_ld} `ld.shared` per thread and step:")
    add("")
    add(table)
    add("")
    add("Each read ends in an `unrealized_conversion_cast` that rebuilds the tensor from its registers,")
    add("for the passes below. Op counts: " + changes(before.ops, after.ops) + ".")
    add("")
    steps: list[Step] = []
    if n_ld:
        steps += [(r"ptx\.ld_shared", 1, 3), (r"unrealized_conversion_cast .* to tensor", 1)]
    if n_ldmatrix:
        steps += [(r"ptx\.ldmatrix", 2, 3), (r"unrealized_conversion_cast .* to tensor", 1)]
    add(block(pick(after.text, steps, start=r"scf\.for")))
    add("")

    # 6. lower-mma
    before, after = _stage(stages, "qdot-lower-mma")
    heading(after)
    mma_n = after.ops["ptx.mma_sync"]
    shape = re.search(r"ptx\.mma_sync (m(\d+)n(\d+)k(\d+))", after.text)
    warps = re.search(r"#qgpu\.mma<\{[^}]*warpsPerCTA = \[(\d+), (\d+)\]", before.text)
    if shape is None or warps is None:
        raise LookupError("walkthrough: no ptx.mma_sync shape or #qgpu.mma warpsPerCTA; update the script")
    im, in_, ik = (int(shape.group(i)) for i in (2, 3, 4))
    wm, wn = 128 // int(warps.group(1)), 128 // int(warps.group(2))
    tiles, ksteps = (wm // im) * (wn // in_), BLOCK_K // ik
    if tiles * ksteps != mma_n:
        raise LookupError(f"walkthrough: {mma_n} mma per step is not {tiles} tiles × {ksteps} k-steps; update the prose")
    add(f"`qgpu.mma` becomes {mma_n} `ptx.mma_sync` per thread and step: each warp's {wm} × {wn} piece of C is")
    add(f"{wm // im} × {wn // in_} tiles of {im} × {in_}, and the {BLOCK_K} K-values of the step are {ksteps} k-steps of the "
        f"{shape.group(1)} mma.")
    add("The operand registers come from the casts the loads left; an A fragment is reused across a row of")
    add("tiles and a B fragment down a column. Op counts: " + changes(before.ops, after.ops) + ".")
    add("")
    add(block(pick(after.text, [(r"ptx\.mma_sync", 2)])))
    add("")

    # 7. to-llvm
    before, after = _stage(stages, "qdot-to-llvm")
    heading(after)
    add("Everything that is left becomes `ptx`, `arith` and `cf` ops the LLVM IR emitter knows: pointers")
    add("become i64 arguments, the function records what the runner needs (`qdot.arg_kinds`,")
    add(f"`qdot.shared_bytes` = {info.shared_bytes}, every shared buffer of the kernel), `scf.for`")
    add("becomes branches, `qgpu.async_copy` becomes guarded `cp.async` (out-of-bounds rows read as zero),")
    add("`qdot.store` becomes bounded `st.global`. The upcasts become the conversion code: e4m3 → bf16 puts")
    add("the e4m3 bits into a bf16 with `prmt` and shifts and multiplies by 2^120 and the ue8m0 scale; e2m1 →")
    add("bf16 looks the four-bit codes up in byte tables with `prmt`. Op counts:")
    add(changes(before.ops, after.ops) + ".")
    add("")
    excerpt = pick(after.text, [(r"func\.func", 1), (r"ptx\.cp_async cg", 1), (r"cf\.cond_br", 1),
                                (r"ptx\.prmt", 0), (r"ptx\.fma_rn_bf16x2", 1),
                                (r"arith\.constant 255 : i32", 0), (r"ptx\.fma_rn_bf16x2", 1), (r"ptx\.st_global", 1)],
                   start=r"func\.func")
    require(excerpt, ("arith.constant 2072017792", "arith.constant -2147450880", "arith.constant 32704"))
    add(block(excerpt))
    add("")
    add("The conversion in the middle is one bf16x2 register of A: `prmt` spreads two e4m3 bytes into the")
    add("two 16-bit halves, the masks and the shift put sign, exponent and mantissa where bf16 has them,")
    add("and the fma multiplies by 2072017792 = 0x7B807B80 (2^120 in both halves, the difference of the")
    add("exponent biases) and adds −0.0 (-2147450880 = 0x80008000), which makes it a multiply: LLVM prints")
    add("`mul.rn.bf16x2`. Then the row's ue8m0 scale (read from shared memory before) is made the bf16")
    add("2^(code − 127) (the code shifted into the exponent field; code 0, 2^−127, is the bf16 subnormal 64")
    add("and code 255 the NaN 32704 = 0x7FC0), and a second multiply applies it.")
    add("")

    # PTX
    histogram = ptx_histogram(ptx)
    add("## The PTX")
    add("")
    add(f"llvmlite's NVPTX backend prints {len(ptx.splitlines())} lines of PTX "
        f"(`qdot-translate {EXAMPLE} --arch {ARCH}`). The instructions that move, convert and multiply the data, "
        "counted in the PTX text (the loop body once, plus the pipeline's prologue and the epilogue):")
    add("")
    add("| instruction | count | what it does here |")
    add("|---|---|---|")
    shown = []
    for prefix, meaning in PTX_FAMILIES:
        for name in sorted(n for n in histogram if n.startswith(prefix)):
            if name not in shown:
                shown.append(name)
                add(f"| `{name}` | {histogram[name]} | {meaning} |")
    add("")
    add("The first of each:")
    add("")
    add("```ptx")
    add("\n".join(first_ptx_lines(ptx, tuple(shown))))
    add("```")
    add("")
    add(f"`ptxas -arch={ARCH} -v` (what `--verify-ptx` runs):")
    add("")
    add("```")
    add("\n".join(line for line in report.log.strip().splitlines() if "Compile time" not in line))
    add("```")
    add("")
    spill = (f"and {report.spill_stores} B of spill stores and {report.spill_loads} B of spill loads per thread"
             if report.spill_stores or report.spill_loads else "and no spills")
    add(f"{report.registers} registers per thread {spill}; with a 128 × 128 tile on 8 warps each thread also "
        "holds 64 f32")
    add("accumulators. `docs/examples.md` has the same figures for every example and target.")
    add("")

    # measured
    add("## Measured")
    add("")
    add(f"From [`bench/RESULTS.md`](../bench/RESULTS.md), **{measured.run}**, table `{measured.table}`")
    add("(one H200; the Triton row is the same run's reference kernel):")
    add("")
    add(measured.header)
    add("|" + "---|" * (measured.header.count("|") - 1))
    add(measured.row)
    add(measured.smaller)
    add(measured.reference)
    add("")
    add("The first row is `compiler.templates.gemm_kernel(GemmConfig(block_k=64, num_warps=8))` on sm_90 with")
    add("3 stages, which compiles to the same PTX as this example (`tests/examples` checks it), measured with the")
    add("compiler of that run; the second is a larger tile of that run (256 × 128 × 64 on 8 warps; the")
    add("example's tile spills on no target).")
    cells = [cell.strip() for cell in measured.row.strip("|").split("|")]
    columns = [cell.strip() for cell in measured.header.strip("|").split("|")]
    then = int(cells[columns.index("smem B")]) if "smem B" in columns and cells[columns.index("smem B")] else None
    if then is not None and then != info.shared_bytes:
        add(f"The kernel measured then used {then} B of shared memory; today's compiler gives it "
            f"{info.shared_bytes} B, so its code")
        add("has changed since (the IR and PTX above are today's), and the row is the last measurement, not a")
        add("measurement of the PTX on this page.")
    else:
        add("The figures on this page come from today's compiler; the row is the last measurement of this kernel.")
    add("With `--arch sm_90a` the same dot runs on `wgmma` instead of `mma.sync` (the dequantized tiles are read")
    add("from shared memory through descriptors): [`docs/wgmma.md`](wgmma.md) follows that path and its figures.")
    add("")

    # native
    before, after = _stage(native, "qdot-accelerate-matmul")
    nstrategies = sorted({m.group(1) for m in re.finditer(r'qdot\.strategy = "([\w-]+)"', after.text)})
    add(f"## The same kernel on {NATIVE_ARCH}")
    add("")
    add(f"`--arch {NATIVE_ARCH}` changes the first decision and everything after it. `auto` picks "
        f"**{', '.join(nstrategies)}**:")
    add("the block-scaled `mma.sync ... kind::mxf8f6f4` multiplies e4m3 by e2m1 and applies both ue8m0 scales")
    add("itself, so there is no upcast. B is staged in `fp4Padded` shared memory (8 bytes of packed fp4, 8 of")
    add("padding) and read into an `fp4Unpacked` register layout (one fp4 value per byte, `0000xxxx`):")
    add("")
    add(block(pick(after.text, [(r"qgpu\.local_alloc %b", 1), (rf"qgpu\.local_load %\w+ : !qgpu\.memdesc<{BLOCK_K // 2}x128xi8", 1),
                                (r"= qgpu\.mma ", 1)])))
    add("")
    before, after = _stage(native, "qdot-lower-mma")
    add("`qdot-lower-local-load` reads that buffer with the fp4 form of `ldmatrix`, and `qdot-lower-mma`")
    add("shifts each byte left by 2 — `0000xxxx` → `00xxxx00`, where the mma expects an fp4 value in an 8-bit")
    add("container — and passes the scales as operands of the mma:")
    add("")
    add(block(pick(after.text, [(r"ptx\.ldmatrix m8n16", 1), (r"arith\.shli %\w+, %\w+ : i32", 1),
                                (r"ptx\.mma_sync", 1)])))
    add("")
    from examples.catalog import SHARED_LIMIT

    native_shared, limit = native_kernel.kernels[0].shared_bytes, SHARED_LIMIT[NATIVE_ARCH]
    fit = "exactly" if native_shared == limit else ("within" if native_shared < limit else "more than")
    add(f"ptxas for {NATIVE_ARCH}: {native_report.registers} registers, {native_report.spill_stores} B spill "
        f"stores; {native_shared} B of shared memory (the padded B tile is twice the packed one), {fit} the")
    add(f"{limit // 1024} KB one CTA may have there. No GPU of this family was available to measure it; the emulator tests")
    add("(`tests/emulator/test_gemm_emulated.py`) run this PTX path's IR on the CPU against `compiler.numerics`.")
    add("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/walkthrough.md is out of date")
    args = parser.parse_args(argv)
    from examples.catalog import tool_versions

    page = render(tool_versions())
    if args.check:
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page:
            sys.stdout.write(f"docs/walkthrough.md is out of date: run {COMMAND}\n")
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    sys.stdout.write(f"wrote {PAGE.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
