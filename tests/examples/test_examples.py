"""The examples of ``examples/`` stay true to their templates, compile everywhere they claim to, and do not spill.

* Every generated file equals what ``examples/catalog.py`` generates from its template today
  (header and kernel), and the hand-written MX example compiles to the template's PTX.
* Every build (example × target of the catalog) compiles with ptxas verification, ``auto``
  picks the strategy the catalog and README promise, the PTX holds the promised mma, the
  shared memory fits one CTA of the target, and no spill instruction is in its K loop (the
  examples use spill-free tiles; bench/ measures the faster tiles that spill a little; a value
  ptxas parks in local memory across the loop, which ``docs/examples.md`` lists, costs no K step).
* ``docs/examples.md`` is what ``docs/gen_examples_table.py`` writes today.
* Every Python snippet of ``examples/README.md`` runs: here with ``compiler.run`` replaced by
  the PTX emulator (everything else as written: compile, inputs, grid, comparison with
  ``numerics.dot_scaled``), and for real on a GPU when there is one.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import compiler
from compiler.tools import find_ptxas
from examples.catalog import (
    EXAMPLES,
    README,
    SHARED_LIMIT,
    Build,
    Example,
    Origin,
    example,
    recorded_versions,
    render,
    tool_versions,
    with_table,
)
from tests.examples.gpu_exec import exec_on_a_gpu

ROOT = Path(__file__).resolve().parents[2]


def load_docs_script(name: str) -> ModuleType:
    """A ``docs/gen_*.py`` script as a module (docs/ is not a package)."""
    module_name = f"qdot_docs_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


GEN_TABLE = load_docs_script("gen_examples_table")
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="no ptxas (pip install -e '.[dev]')")

BUILDS = [(ex, build) for ex in EXAMPLES for build in ex.builds]


def _build_id(value: Any) -> str:
    if isinstance(value, Example):
        return value.name
    if isinstance(value, Build):
        return value.label.replace(" ", "-")
    return str(value)


@cache
def measured(name: str, arch: str, strategy: str) -> Any:
    """One build's Measurement, compiled once per test session (the page test reuses them all)."""
    ex = example(name)
    build = next(b for b in ex.builds if (b.arch, b.strategy) == (arch, strategy))
    return GEN_TABLE.measure(ex, build)


# --- the files --------------------------------------------------------------------------------

def test_every_example_file_is_in_the_catalog() -> None:
    files = {path.stem for path in (ROOT / "examples").glob("*.mlir")}
    assert files == {ex.name for ex in EXAMPLES}, "add new examples to examples/catalog.py (and remove stale ones)"


@pytest.mark.parametrize("ex", [ex for ex in EXAMPLES if ex.origin is Origin.TEMPLATE], ids=_build_id)
def test_generated_example_equals_its_template(ex: Example) -> None:
    """(quantize_q8_1_mmq.mlir belongs to its template's tests: tests/passes/test_lower_quantize_emulated.py.)"""
    text = ex.path.read_text(encoding="utf-8")
    assert text.endswith(ex.template_text()), \
        f"{ex.relpath} is not {ex.template_call()} any more: run python -m examples.catalog --write"
    assert text == render(ex), f"{ex.relpath}'s header is stale: run python -m examples.catalog --write"


HAND_WRITTEN = [(ex, arch) for ex in EXAMPLES if ex.origin is Origin.HAND_WRITTEN and ex.config is not None
                for arch in ("sm_90", "sm_120a")]


@pytest.mark.parametrize("ex,arch", HAND_WRITTEN, ids=_build_id)
def test_hand_written_example_compiles_like_its_template(ex: Example, arch: str) -> None:
    """A hand-written example with a template configuration (the MX one: GemmConfig()) is that template's
    kernel with readable names: the same PTX but for the kernel's name."""
    mine = compiler.compile(ex.path, arch=arch)
    template = compiler.compile(ex.template_text(), arch=arch)
    renamed = (template.ptx or "").replace(template.kernels[0].name, mine.kernels[0].name)
    assert mine.ptx == renamed, f"{ex.relpath} no longer compiles like {ex.template_call()} on {arch}"


def test_readme_table_is_current() -> None:
    readme = README.read_text(encoding="utf-8")
    assert with_table(readme) == readme, "examples/README.md's table is stale: run python -m examples.catalog --write"


# --- every build ------------------------------------------------------------------------------

@needs_ptxas
@pytest.mark.parametrize("ex,build", BUILDS, ids=_build_id)
def test_build_compiles_with_the_promised_strategy(ex: Example, build: Build) -> None:
    m = measured(ex.name, build.arch, build.strategy)
    assert m.kernel == ex.kernel_name
    assert set(m.strategies) == ({build.runs} if build.runs else set()), \
        f"{ex.name} on {build.label}: qdot-accelerate-matmul chose {sorted(set(m.strategies))}, the catalog " \
        f"and README say {build.runs or 'no dot'}"
    if build.mma:
        assert build.mma in m.mma, f"{ex.name} on {build.label}: no {build.mma} in the PTX (have {list(m.mma)})"
    else:
        assert m.mma == ()


@needs_ptxas
@pytest.mark.parametrize("ex,build", [pytest.param(ex, build, id=f"{ex.name}-{_build_id(build)}")
                                      for ex, build in BUILDS])
def test_build_does_not_spill(ex: Example, build: Build) -> None:
    """No spill traffic in the main loop. A build with spills passes only if they all lie outside
    its K loop (a value parked across the loop: one store before it, one load after), which
    costs nothing per K step; docs/examples.md still lists every spilled byte."""
    m = measured(ex.name, build.arch, build.strategy)
    if not m.spills:
        return
    from bench.sass_census import census, loop_spills
    from compiler.tools import find_tool

    if find_tool("cuobjdump") is None:
        pytest.fail(f"{ex.name} on {build.label} spills ({m.spill_stores} B stores, {m.spill_loads} B loads) and "
                    "cuobjdump is not installed to tell whether inside its K loop")
    kernel = compiler.compile(ex.path, arch=build.arch, strategy=build.strategy, num_stages=ex.num_stages)
    counts, _ = census(kernel.ptx, build.arch)
    in_loop = loop_spills(counts)
    assert not in_loop, (f"{ex.name} on {build.label} spills inside its K loop ({in_loop}): {m.registers} registers, "
                         f"{m.spill_stores} B spill stores, {m.spill_loads} B spill loads per thread")


@needs_ptxas
@pytest.mark.parametrize("ex,build", BUILDS, ids=_build_id)
def test_build_fits_in_shared_memory(ex: Example, build: Build) -> None:
    m = measured(ex.name, build.arch, build.strategy)
    assert m.shared <= SHARED_LIMIT[build.arch], \
        f"{ex.name} on {build.label} needs {m.shared} B of shared memory per CTA; {build.arch} allows " \
        f"{SHARED_LIMIT[build.arch]} B, so it would not launch"


@needs_ptxas
def test_examples_page_is_current() -> None:
    page = (ROOT / "docs" / "examples.md").read_text(encoding="utf-8")
    versions = tool_versions()
    recorded = recorded_versions(page)
    if recorded != versions:
        pytest.skip(f"docs/examples.md was made with {recorded}; this machine has {versions}")
    fresh = GEN_TABLE.render([measured(ex.name, b.arch, b.strategy) for ex, b in BUILDS], versions)
    assert fresh == page, "docs/examples.md is out of date: run python docs/gen_examples_table.py"


# --- the AGX example ---------------------------------------------------------------------------

AGX_BUILDS = [(ex, form) for ex in EXAMPLES for form in ex.agx_forms]


@pytest.mark.parametrize("ex,form", AGX_BUILDS, ids=lambda v: v.name if isinstance(v, Example) else v)
def test_agx_example_runs_on_the_agx_emulator(ex: Example, form: str) -> None:
    """qdot-translate emits it, and the emitted stream computes the dot (integer-valued fp16: exact)."""
    import numpy as np

    from compiler import numerics
    from targets.agx.run import emulate
    from targets.agx.tiles import FULL_PIPELINE, compile_ir

    assert compiler.compile(ex.path, target=form).data  # what `qdot-translate --target <form>` emits
    text = ex.path.read_text(encoding="utf-8")
    signature = next(line for line in text.splitlines() if line.startswith("func.func"))
    shapes = [(int(m), int(n), t) for m, n, t in re.findall(r"tensor<(\d+)x(\d+)x(f16|f32)>", signature)][:3]
    rng = np.random.default_rng(11)
    a, b, acc = (rng.integers(-8, 9, size=(m, n)).astype(np.float16 if t == "f16" else np.float32)
                 for m, n, t in shapes)
    out = emulate(compile_ir(text, FULL_PIPELINE % form), form, [a, b, acc])
    assert np.array_equal(out, numerics.dot_scaled(a, b, acc, lhs="fp16", rhs="fp16"))


# --- the README's snippets --------------------------------------------------------------------

SNIPPETS = re.findall(r"```python\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)


def _snippet_id(snippet: str) -> str:
    """The example file a snippet runs, else the name its first line gives (``# name: …``)."""
    files = re.findall(r"examples/(\w+)\.mlir", snippet)
    named = re.match(r"# ([\w-]+):", snippet)
    return files[-1] if files else named.group(1) if named else snippet.splitlines()[0][:30]


def test_readme_shows_how_to_run_every_dot_example() -> None:
    shown = {_snippet_id(s) for s in SNIPPETS}
    dots = {ex.name for ex in EXAMPLES if any(b.runs for b in ex.builds)}
    assert dots <= shown, f"examples/README.md has no run snippet for {sorted(dots - shown)}"
    for snippet in SNIPPETS:
        assert "compiler.run(" in snippet and "numerics." in snippet and "assert" in snippet, _snippet_id(snippet)


DOC_SNIPPETS = re.findall(r"```python\n(.*?)\n```", (ROOT / "docs" / "numerics.md").read_text(encoding="utf-8"), re.S)


def test_numerics_doc_snippets_are_found() -> None:
    """The page's blocks are found (a changed fence would leave the test below an empty, skipped parameter set),
    and each asserts something (running a block that only computes checks nothing the page says)."""
    assert len(DOC_SNIPPETS) >= 2
    assert all(re.search(r"^\s*assert ", snippet, re.M) for snippet in DOC_SNIPPETS)


@pytest.mark.parametrize("snippet", DOC_SNIPPETS, ids=[f"numerics-{i}" for i in range(len(DOC_SNIPPETS))])
def test_numerics_doc_snippets_run(snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/numerics.md's Python blocks run as written (they assert what the page says)."""
    monkeypatch.chdir(ROOT)
    exec(compile(snippet, "docs/numerics.md", "exec"), {"__name__": "numerics_doc"})  # noqa: S102


SHELL_BLOCKS = [("README.md", "## A worked example"), ("examples/README.md", "## Compile"),
                ("docs/wgmma.md", "# The wgmma path (sm_90a)"), ("docs/tools.md", "## Try it"),
                ("docs/tools.md", "## Which q8_1 × ggml-weights kernel")]


@needs_ptxas
@pytest.mark.parametrize("readme,section", SHELL_BLOCKS, ids=[f for f, _ in SHELL_BLOCKS])
def test_readme_shell_commands_run(readme: str, section: str, tmp_path: Path) -> None:
    """The shell lines of a README section run as written (from a directory that has examples/)."""
    import os
    import subprocess

    text = (ROOT / readme).read_text(encoding="utf-8").split(section, 1)[1]
    block = re.search(r"```sh\n(.*?)\n```", text, re.S)
    assert block is not None, f"{readme} has no sh block under {section}"
    commands = [line for line in block.group(1).splitlines() if line and not line.startswith("#")]
    assert len(commands) >= 3
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    for command in commands:
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env,
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{command}\n{result.stderr}"
        if "grep -o" in command:
            assert result.stdout.strip(), f"{command} printed nothing"


class EmulatedGpu:
    """A stand-in for ``compiler.run``: ``compiler.emulate``, the PTX emulator with the same in-place
    numpy semantics, counting the launches."""

    def __init__(self) -> None:
        self.launches = 0

    def run(self, kernel: Any, *args: Any, grid: Any, name: str | None = None) -> None:
        compiler.emulate(kernel, *args, grid=grid, name=name)
        self.launches += 1


@pytest.mark.parametrize("snippet", SNIPPETS, ids=_snippet_id)
def test_readme_snippet_runs_on_the_emulator(snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gpu = EmulatedGpu()
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(compiler, "run", gpu.run)
    exec(compile(snippet, "examples/README.md", "exec"), {"__name__": "readme_snippet"})  # noqa: S102
    assert gpu.launches >= 1


@pytest.mark.gpu
@pytest.mark.parametrize("snippet", SNIPPETS, ids=_snippet_id)
def test_readme_snippet_runs_on_a_gpu(snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    exec_on_a_gpu(snippet, "examples/README.md", "readme_snippet", monkeypatch)
