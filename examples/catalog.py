"""Every example kernel of ``examples/``: what it computes, how it is made, where it runs.

One definition of these facts, read by everything that talks about the examples: the
comment headers of the generated ``.mlir`` files (``render``), the table in
``examples/README.md`` (``readme_table``), ``docs/examples.md``
(``docs/gen_examples_table.py``) and ``tests/examples/test_examples.py``, which compiles
every build, runs ptxas on it, and fails when a file drifts from its template.

    python -m examples.catalog --write    # regenerate the generated files and the README table
    python -m examples.catalog --check    # exit status 1, naming the stale files, if one differs

A ``Build`` is one (arch, strategy) the example is meant for, with what ``auto`` picks there
and the mma instruction the PTX must then contain; tests check both, so the table cannot
promise a strategy the compiler no longer chooses.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path

from compiler.format_table import FORMATS
from compiler.mmq_template import K_STEP_VALUES, MmqConfig, mmq_kernel
from compiler.pipelines import PTX_ARCHES
from compiler.quantize_template import QuantizeConfig, quantize_kernel
from compiler.templates import GemmConfig, gemm_kernel
from dialects.ptx.arch import Arch

EXAMPLES_DIR = Path(__file__).resolve().parent
README = EXAMPLES_DIR / "README.md"

SHARED_LIMIT = {arch: Arch(arch).max_shared_bytes for arch in PTX_ARCHES}
"""Most shared memory one CTA may use (opt-in, bytes) per target (``dialects.ptx.arch.MAX_SHARED_BYTES``)."""


class Origin(StrEnum):
    """How an example file comes to be, which decides how tests keep it honest."""

    TEMPLATE = "template"
    """The file is ``header(example)`` followed by the template's text; ``--write`` regenerates it."""
    QUANTIZE_TEMPLATE = "quantize_template"
    """The file is ``quantize_kernel(...)``'s text verbatim (that template writes its own header)."""
    HAND_WRITTEN = "hand-written"
    """Written by hand; with a template configuration it must compile to the same PTX as that template's
    kernel (readable names, same code)."""


@dataclass(frozen=True)
class Build:
    """One target an example is meant for."""

    arch: str
    strategy: str = "auto"
    """What is asked of qdot-accelerate-matmul."""
    runs: str = ""
    """The strategy that runs (what ``auto`` picks); empty for a kernel without a dot."""
    mma: str = ""
    """The PTX spelling of the mma instruction the build's PTX must contain."""

    @property
    def label(self) -> str:
        return self.arch if self.strategy == "auto" else f"{self.arch} {self.strategy}"


_BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
_FP8 = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"
_S8 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
_S8_U8 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"
"""q8_1 activations × q4_K weights upcast in place (unsigned, a high nibble as 16 · q)."""
_U8_S8 = "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"
"""The decode kernel's order: q4_K weights (unsigned) × q8_1 activations."""
_MXF8F6F4 = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0"
_MXF4NVF4 = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
_WGMMA_BF16 = "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"


@dataclass(frozen=True)
class Example:
    """One ``examples/*.mlir`` file: what it computes, how it is made, and the targets it is meant for."""

    name: str
    """The file stem: ``examples/<name>.mlir``."""
    title: str
    formats: str
    config: GemmConfig | MmqConfig | QuantizeConfig | None
    """The template configuration that writes (or, hand-written, matches) the kernel; None: no template."""
    origin: Origin
    builds: tuple[Build, ...]
    """The PTX targets the example is meant for."""
    agx_forms: tuple[str, ...] = ()
    """The AGX forms it is meant for (``agx3b``, ``agx3c``)."""
    num_stages: int = 3
    """The global → shared pipeline depth the example is compiled with (``--num-stages``)."""
    measured: str = ""
    """Where bench/RESULTS.md reports this kernel, if it does."""
    note: str = ""

    @property
    def path(self) -> Path:
        return EXAMPLES_DIR / f"{self.name}.mlir"

    @property
    def relpath(self) -> str:
        return f"examples/{self.name}.mlir"

    @property
    def kernel_name(self) -> str:
        match = re.search(r"func\.func @(\w+)", self.path.read_text(encoding="utf-8"))
        if match is None:
            raise ValueError(f"{self.relpath} has no func.func")
        return match.group(1)

    @property
    def threads(self) -> int:
        return 32 * (self.config.num_warps if self.config is not None else 1)

    def template_text(self) -> str:
        """What the template writes for this example's configuration."""
        cfg = self.config
        if cfg is None:
            raise ValueError(f"{self.relpath} has no template")
        if isinstance(cfg, GemmConfig):
            return gemm_kernel(cfg)
        if isinstance(cfg, MmqConfig):
            return mmq_kernel(cfg)
        return quantize_kernel(**_fields_of(cfg, quantize_kernel))

    def template_call(self) -> str:
        """The Python call that writes this kernel, with only the fields that differ from the defaults."""
        cfg = self.config
        if cfg is None:
            return ""
        if isinstance(cfg, QuantizeConfig):
            return f"quantize_kernel({cfg.fmt!r})"
        default = type(cfg)()
        args = ", ".join(f"{f.name}={getattr(cfg, f.name)!r}" for f in fields(cfg)
                         if getattr(cfg, f.name) != getattr(default, f.name))
        function = "gemm_kernel" if isinstance(cfg, GemmConfig) else "mmq_kernel"
        return f"{function}({type(cfg).__name__}({args}))"

    def compile_command(self, build: Build) -> str:
        strategy = "" if build.strategy == "auto" else f" --strategy {build.strategy}"
        stages = "" if self.num_stages == 3 else f" --num-stages {self.num_stages}"
        return f"qdot-translate {self.relpath} --target ptx --arch {build.arch}{strategy}{stages} --verify-ptx"


def _fields_of(cfg: QuantizeConfig, function: Callable[..., object]) -> dict[str, object]:
    """The fields of ``cfg`` that ``function`` takes as keyword arguments (the quantize template
    takes the config's fields one by one, not the config)."""
    wanted = inspect.signature(function).parameters
    return {f.name: getattr(cfg, f.name) for f in fields(cfg) if f.name in wanted}


EXAMPLES: tuple[Example, ...] = (
    Example(
        name="mx_gemm_e4m3_e2m1",
        title="MX GEMM, mixed fp8 × fp4",
        formats="e4m3 × e2m1, ue8m0 per 32 (MXFP8 × MXFP4)",
        config=GemmConfig(block_k=64, num_warps=8),
        origin=Origin.HAND_WRITTEN,
        builds=(Build("sm_120a", runs="native", mma=_MXF8F6F4),
                Build("sm_89", runs="promote-fp8", mma=_FP8),
                Build("sm_90", runs="dequant-bf16", mma=_BF16),
                Build("sm_90a", runs="dequant-bf16", mma=_WGMMA_BF16),
                Build("sm_90", "promote-fp8", runs="promote-fp8", mma=_FP8),
                Build("sm_80", runs="dequant-bf16", mma=_BF16)),
        measured="run 100 (`qdot e4m3xe2m1 bf16 128x128x64 w8`, sm_90, dequant-bf16)",
        note="a spill-free tile on every target (128×128 on 8 warps, 64 K-values per step): 209 TFLOP/s at "
             "8192³ on sm_90, where the fastest `mma.sync` tiles measured (128×256×64 and 256×128×64, "
             "`bench/mx_gemm.py`) reach 232–245; on sm_90a the same plan runs on wgmma (`docs/wgmma.md`; 427 TFLOP/s "
             "for the 128×256×64 tile with N a multiple of 8). sm_90 promote-fp8 runs the fp8 mma that ptxas emulates with f16 HMMA on "
             "sm_90; `auto` prefers dequant-bf16 there",
    ),
    Example(
        name="mx_gemm_e4m3_e2m1_promoted",
        title="MX GEMM, mixed fp8 × fp4, sum promoted to f32 each K step",
        formats="e4m3 × e2m1, ue8m0 per 32 (MXFP8 × MXFP4)",
        config=GemmConfig(block_k=64, num_warps=8, promote=True),
        origin=Origin.TEMPLATE,
        builds=(Build("sm_90a", runs="dequant-bf16", mma=_WGMMA_BF16),
                Build("sm_90", runs="dequant-bf16", mma=_BF16)),
        measured="run 137 (`qdot wgmma e4m3xe2m1 bf16 128x128x64 w8 promote`, sm_90a)",
        note="each K step's dot starts from zero (`%zero`) and `arith.addf` adds it to the loop's sum, so the "
             "tensor core's truncation toward zero stays within one step: 4e-7 relative error at K = 32768 instead "
             "of 3.3e-5 (`docs/numerics.md`), at 0.69–0.81 × the speed of the same tile chained",
    ),
    Example(
        name="nvfp4_gemm_e2m1",
        title="NVFP4 GEMM, fp4 × fp4",
        formats="e2m1 × e2m1, ue4m3 per 16 (NVFP4)",
        config=GemmConfig(lhs="e2m1", rhs="e2m1", lhs_scale="ue4m3", rhs_scale="ue4m3", block_k=64, num_warps=8),
        origin=Origin.TEMPLATE,
        builds=(Build("sm_120a", runs="native", mma=_MXF4NVF4),
                Build("sm_90", runs="dequant-bf16", mma=_BF16),
                Build("sm_90a", runs="dequant-bf16", mma=_WGMMA_BF16),
                Build("sm_80", runs="dequant-bf16", mma=_BF16)),
        note="16-value scale groups are finer than the 32-wide k tile of the fp8 and s8 mma, so "
             "promote-fp8 and promote-int8 refuse NVFP4 and `auto` falls back to dequant-bf16 before sm_120a",
    ),
    Example(
        name="int8_gemm",
        title="int8 GEMM",
        formats="i8 × i8 → i32, no scales",
        config=GemmConfig(lhs="i8", rhs="i8", lhs_scale=None, rhs_scale=None, block_k=64, num_warps=8),
        origin=Origin.TEMPLATE,
        builds=(Build("sm_120a", runs="promote-int8", mma=_S8),
                Build("sm_90", runs="promote-int8", mma=_S8),
                Build("sm_80", runs="promote-int8", mma=_S8)),
    ),
    Example(
        name="quantize_q8_1_mmq",
        title="Activation quantization f32 → q8_1_mmq",
        formats="f32 → q8_1_mmq blocks (ggml)",
        config=QuantizeConfig(),
        origin=Origin.QUANTIZE_TEMPLATE,
        builds=(Build("sm_120a"), Build("sm_90"), Build("sm_80")),
        measured="run 3 (the `quantize µs` column)",
        note="the first half of llama.cpp's MUL_MAT: it writes the X operand of the q4_K and q4_0 kernels",
    ),
    Example(
        name="q4k_mmq",
        title="q4_K × q8_1 prefill (MMQ)",
        formats="q8_1_mmq × q4_K → f32 (ggml blocks)",
        config=MmqConfig(block_m=64, block_n=128, num_warps=8),
        origin=Origin.TEMPLATE,
        builds=(Build("sm_90", runs="promote-int8", mma=_S8_U8),),
        measured="run 100 (`qdot mmq 64x128 w8`, M = 512)",
        note="a spill-free tile, 0.88–0.98 × llama.cpp; the tile `choose_mmq` takes for M > 64 (64×128 on 4 "
             "warps, two CTAs per SM) runs 1.22–1.39 × llama.cpp's MUL_MAT in ggml's weight order, 1.34–1.49 × "
             "with the weights repacked (bench/RESULTS.md, runs 264–265), but spills (a known problem: "
             "tests/lit/targets/ptx/mmq-default-spills.mlir, an expected failure). Its 3-stage pipeline needs "
             "118 KB of shared memory, more than one CTA may have on sm_120a (99 KB: the 3-stage build is refused "
             "there); pass "
             "`--num-stages 2` (no spills) or generate a smaller tile, e.g. "
             "`mmq_kernel(MmqConfig(block_m=64, block_n=64))`",
    ),
    Example(
        name="q4_0_mmq",
        title="q4_0 × q8_1 prefill (MMQ)",
        formats="q8_1_mmq × q4_0 → f32 (ggml blocks)",
        config=MmqConfig(block_m=64, block_n=128, num_warps=8, weights="q4_0"),
        origin=Origin.TEMPLATE,
        builds=(Build("sm_90", runs="promote-int8", mma=_S8),
                Build("sm_80", runs="promote-int8", mma=_S8)),
        note="`q4k_mmq`'s tile with q4_0 weights (`MmqConfig(weights=\"q4_0\")`): eight 18-byte blocks per "
             "256-value K step, their nibbles made s8 as 16 · (code − 8) at use and scaled by d / 16, an "
             "s8 × s8 mma and no dmin fold. The GPU tests and bench/RESULTS.md (runs 152–155) run the template's "
             "64×128 4-warp tile with q4_0 weights; this 8-warp one runs in its README snippet, on the CPU "
             "emulator and on the H200 (run 156). Its 3-stage pipeline needs 112 KB of shared "
             "memory, more than one CTA may have on sm_120a (99 KB); there, pass `--num-stages 2` (76 KB, no "
             "spills) or generate a smaller tile, e.g. `mmq_kernel(MmqConfig(block_m=64, block_n=64, "
             "weights=\"q4_0\"))` (83 KB at 3 stages, no spills)",
    ),
    Example(
        name="q4k_decode",
        title="q4_K × q8_1 decode, weights read once, split-K",
        formats="q4_K × q8_1_mmq → f32, M ≤ 8 tokens",
        config=MmqConfig(small_m=True, block_n=64, num_warps=2, split_k=True),
        origin=Origin.TEMPLATE,
        builds=(Build("sm_120a", runs="promote-int8", mma=_U8_S8),
                Build("sm_90", runs="promote-int8", mma=_U8_S8),
                Build("sm_80", runs="promote-int8", mma=_U8_S8)),
        num_stages=2,
        measured="run 100 (`qdot small_m 64 w2 splitk s2`, M = 1 … 8)",
    ),
    Example(
        name="agx_tile_fp16",
        title="AGX dot tile (Apple GPU)",
        formats="fp16 × fp16 → f32, one 8×16×16 simdgroup tile",
        config=None,
        origin=Origin.HAND_WRITTEN,
        builds=(),
        agx_forms=("agx3b", "agx3c"),
        note="the AGX target emits the mma8 instruction stream and fragment map of a tile, not a shader "
             "(docs/agx.md); no PTX build",
    ),
)


def example(name: str) -> Example:
    for candidate in EXAMPLES:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no example '{name}' (have: {', '.join(e.name for e in EXAMPLES)})")


# --- headers of the generated files ------------------------------------------------------------

_GEMM_ELEMENT = {"e4m3": "e4m3 codes", "e5m2": "e5m2 codes", "e2m3": "e2m3 codes (one per byte)",
                 "e3m2": "e3m2 codes (one per byte)", "bf16": "bf16 (uint16 bits)", "fp16": "fp16",
                 "i8": "int8", "e2m1": "e2m1, two per byte along K, low nibble first (numerics.pack_fp4)"}
_SCALE_TEXT = {"ue8m0": ("K/32", "ue8m0 codes, one per 32 K-values: 2^(code - 127)"),
               "ue4m3": ("K/16", "ue4m3 codes (unsigned e4m3), one per 16 K-values")}


def _gemm_header(ex: Example, cfg: GemmConfig) -> list[str]:
    def operand(fmt: str) -> str:
        return "K/2" if fmt == "e2m1" else "K"

    rhs_text = "coded as A" if cfg.rhs == cfg.lhs else _GEMM_ELEMENT[cfg.rhs]
    rows = [("%a_ptr", "A", f"[M, {operand(cfg.lhs)}]", _GEMM_ELEMENT[cfg.lhs]),
            ("%b_ptr", "Bᵀ", f"[N, {operand(cfg.rhs)}]", f"{rhs_text}; B [K, N] is stored transposed (K contiguous)")]
    for ptr, name, kind, side in (("%sa_ptr", "SA", cfg.lhs_scale, "M"), ("%sb_ptr", "SB", cfg.rhs_scale, "N")):
        if kind:
            blocks, text = _SCALE_TEXT[kind]
            rows.append((ptr, name, f"[{side}, {blocks}]", text))
    rows.append(("%c_ptr", "C", "[M, N]", f"{cfg.acc_type}, written"))
    scaled = " with block scales" if cfg.lhs_scale or cfg.rhs_scale else ""
    math = "C = (A · SA) × (B · SB)" if scaled else "C = A × B"
    lines = [f"{ex.title}: {ex.formats}.",
             f"  {math}, C [M, N] {cfg.acc_type}; all arrays row-major, passed as device pointers:"]
    lines += [f"    {ptr:8s} {name:3s} {shape:12s} {text}" for ptr, name, shape, text in rows]
    lines.append(f"    %m, %n, %k   index; K a multiple of {cfg.k_divisibility} (qdot.divisibility)")
    lines.append(f"  One program computes a {cfg.block_m}×{cfg.block_n} tile of C, {cfg.block_k} K-values per "
                 f"step; grid = (ceil(M/{cfg.block_m}) · ceil(N/{cfg.block_n}), 1, 1)")
    lines.append(f"  (compiler.templates.grid), {ex.threads} threads ({cfg.num_warps} warps), dynamic shared "
                 "memory = kernels[0].shared_bytes.")
    return lines


def _mmq_header(ex: Example, cfg: MmqConfig) -> list[str]:
    weights = FORMATS[cfg.weights]
    assert weights.block_values is not None
    per_step = K_STEP_VALUES // weights.block_values  # weight blocks per K step
    w_shape = f"[N, K/{weights.block_values}]"
    step = (f"one {cfg.weights} super-block" if per_step == 1 else
            f"{_COUNT_WORDS[per_step]} {cfg.weights} blocks")
    k_note = step if per_step == 1 else f"{step}, one K step"
    lines = [f"{ex.title}: {ex.formats}.",
             "  Y [M, N] f32 = X · Wᵀ as ggml_mul_mat computes it; all arrays row-major, device pointers:",
             "    %x_ptr   X  [M, K/128] block_q8_1_mmq (144 B each; examples/quantize_q8_1_mmq.mlir writes them)",
             f"    %w_ptr   W  {w_shape:10s} block_{cfg.weights} ({weights.block_bytes} B each, ggml's layout)",
             "    %y_ptr   Y  [M, N]     f32, written" + (" (added into: zero it first)" if cfg.split_k else ""),
             f"    %m, %n, %k   index; K a multiple of {K_STEP_VALUES} ({k_note})"]
    if cfg.small_m:
        lines += ["  M ≤ 8 tokens: the weights are the mma's M side and all tokens one n tile, so every",
                  "  weight byte is read from memory once whatever M is.",
                  f"  grid = (ceil(N/{cfg.block_n}), S, 1) (compiler.mmq_template.mmq_grid), {ex.threads} threads "
                  f"({cfg.num_warps} warps),",
                  "  dynamic shared memory = kernels[0].shared_bytes."]
        if cfg.split_k:
            lines += ["  Split-K: the S = split_factor(ceil(N/%d), K) programs of a row tile each take 1/S of K"
                      % cfg.block_n,
                      "  and add their partial sums into Y (red.global.add.f32)."]
    else:
        lines += [f"  One program computes a {cfg.block_m}×{cfg.block_n} tile of Y, {step} "
                  f"({K_STEP_VALUES} K-values) per step;",
                  f"  grid = (ceil(M/{cfg.block_m}) · ceil(N/{cfg.block_n}), 1, 1) (compiler.mmq_template.mmq_grid), "
                  f"{ex.threads} threads ({cfg.num_warps} warps),",
                  "  dynamic shared memory = kernels[0].shared_bytes."]
    return lines


_COUNT_WORDS = {2: "two", 4: "four", 8: "eight"}


def header(ex: Example) -> str:
    """The comment block that opens a generated example."""
    cfg = ex.config
    lines = _gemm_header(ex, cfg) if isinstance(cfg, GemmConfig) else _mmq_header(ex, cfg)  # type: ignore[arg-type]
    lines.append("")
    lines.append("Compile (strategy `auto` picks per arch; registers, spills and shared memory: docs/examples.md):")
    width = max(len(ex.compile_command(b)) for b in ex.builds)
    for build in ex.builds:
        lines.append(f"  {ex.compile_command(build):{width}s}   # {build.runs}")
    lines.append("")
    module = "compiler/templates.py" if isinstance(cfg, GemmConfig) else "compiler/mmq_template.py"
    lines.append(f"Generated by `python -m examples.catalog --write` from {module}:")
    lines.append(f"  {ex.template_call()}")
    lines.append("tests/examples/test_examples.py fails when this file and the template differ.")
    return "".join(f"// {line}".rstrip() + "\n" for line in lines)


def render(ex: Example) -> str | None:
    """The text the example's file must hold, or None for a hand-written example."""
    if ex.origin is Origin.TEMPLATE:
        return header(ex) + ex.template_text()
    if ex.origin is Origin.QUANTIZE_TEMPLATE:
        return ex.template_text()
    return None


# --- the README table ---------------------------------------------------------------------------

TABLE_BEGIN = "<!-- BEGIN GENERATED: examples-table (python -m examples.catalog --write) -->"
TABLE_END = "<!-- END GENERATED: examples-table -->"


def readme_table() -> str:
    lines = ["| example | formats | target: strategy `auto` picks (mma) | launch | measured |",
             "|---|---|---|---|---|"]
    for ex in EXAMPLES:
        targets = "<br>".join(
            [f"{build.arch}" + (f" `--strategy {build.strategy}`" if build.strategy != "auto" else "")
             + (f": {build.runs} ({short_mma(build.mma)})" if build.runs else ": no dot") for build in ex.builds]
            + [f"{form}: `agx.mma8` stream" for form in ex.agx_forms])
        lines.append(f"| [`{ex.name}.mlir`]({ex.name}.mlir)<br>{ex.title} | {ex.formats} | {targets} | "
                     f"{_launch(ex)} | {ex.measured or '—'} |")
    return "\n".join(lines)


def short_mma(mma: str) -> str:
    """``kind::mxf4nvf4 m16n8k64`` / ``bf16 m16n8k16`` / ``wgmma bf16 m64n128k16``: the family and shape
    of an mma spelling."""
    parts = mma.split(".")
    if parts[0] == "wgmma":
        shape = next(p for p in parts if p.startswith("m64n"))
        return f"wgmma {parts[parts.index(shape) + 2]} {shape}"
    shape = next(p for p in parts if p.startswith("m16n8k"))
    kind = next((p for p in parts if p.startswith("kind::")), None)
    a, b = parts[parts.index("col") + 2], parts[parts.index("col") + 3]
    return f"{kind or (a if a == b else f'{a} × {b}')} {shape}"


def _launch(ex: Example) -> str:
    cfg = ex.config
    threads = f"{ex.threads} threads"
    if cfg is None:
        return "one simdgroup (32 threads), a tile of a shader"
    if isinstance(cfg, GemmConfig):
        return f"⌈M/{cfg.block_m}⌉·⌈N/{cfg.block_n}⌉ programs, {threads}"
    if isinstance(cfg, MmqConfig):
        if cfg.small_m:
            return f"(⌈N/{cfg.block_n}⌉, K splits) programs, {threads}; Y zeroed first"
        return f"⌈M/{cfg.block_m}⌉·⌈N/{cfg.block_n}⌉ programs, {threads}"
    return f"`quantize_grid(M, K)` programs, {threads}"


def with_table(readme: str) -> str:
    """``readme`` with its generated table replaced by the current one."""
    start, end = readme.find(TABLE_BEGIN), readme.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"{README} has no '{TABLE_BEGIN}' … '{TABLE_END}' block")
    return readme[:start] + TABLE_BEGIN + "\n" + readme_table() + "\n" + readme[end:]


# --- the tools generated figures depend on ------------------------------------------------------

def tool_versions() -> str:
    """``ptxas 13.0.88, LLVM 22.1.0 (llvmlite 0.50.0)``: what PTX text and ptxas's figures depend on, so the
    generated pages (docs/examples.md, docs/walkthrough.md) record it and tests compare only like with like."""
    import subprocess

    import llvmlite
    import llvmlite.binding as llvm

    from compiler.tools import find_ptxas

    binary = find_ptxas()
    ptxas = "none"
    if binary is not None:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False).stdout
        match = re.search(r"\bV(\d+\.\d+\.\d+)", out)
        ptxas = match.group(1) if match else "unknown"
    llvm_version = ".".join(str(v) for v in llvm.llvm_version_info)
    return f"ptxas {ptxas}, LLVM {llvm_version} (llvmlite {llvmlite.__version__})"


TOOLS_COMMENT = re.compile(r"<!-- tools: (.*?) -->")


def recorded_versions(page: str) -> str | None:
    """The versions a generated page records in its ``<!-- tools: ... -->`` comment."""
    match = TOOLS_COMMENT.search(page)
    return match.group(1) if match else None


# --- command line -------------------------------------------------------------------------------

def stale() -> list[tuple[str, str]]:
    """(file, how to regenerate it) for every file that differs from what the catalog generates."""
    out = []
    for ex in EXAMPLES:
        text = render(ex)
        if text is not None and (not ex.path.exists() or ex.path.read_text(encoding="utf-8") != text):
            fix = ("python -m examples.catalog --write" if ex.origin is Origin.TEMPLATE else
                   f"write {ex.template_call()} into it (compiler/quantize_template.py owns this file)")
            out.append((ex.relpath, fix))
    readme = README.read_text(encoding="utf-8")
    if with_table(readme) != readme:
        out.append(("examples/README.md", "python -m examples.catalog --write"))
    return out


def write() -> list[str]:
    """Regenerate the template examples and the README table; returns what changed.
    Files of other origins are never written (the quantize example belongs to its template's tests)."""
    changed = []
    for ex in EXAMPLES:
        text = render(ex)
        if ex.origin is Origin.TEMPLATE and text is not None and (
                not ex.path.exists() or ex.path.read_text(encoding="utf-8") != text):
            ex.path.write_text(text, encoding="utf-8")
            changed.append(ex.relpath)
    readme = README.read_text(encoding="utf-8")
    if with_table(readme) != readme:
        README.write_text(with_table(readme), encoding="utf-8")
        changed.append("examples/README.md")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.catalog", description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="regenerate the generated examples and README table")
    group.add_argument("--check", action="store_true", help="exit 1 if a generated file is out of date")
    args = parser.parse_args(argv)
    if args.write:
        for path in write():
            sys.stdout.write(f"wrote {path}\n")
        return 0
    out_of_date = stale()
    for path, fix in out_of_date:
        sys.stdout.write(f"out of date: {path} (to fix: {fix})\n")
    return 1 if out_of_date else 0


if __name__ == "__main__":
    sys.exit(main())
