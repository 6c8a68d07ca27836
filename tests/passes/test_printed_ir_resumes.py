"""The IR a tool prints after any pass is a complete input: parsed back, the rest of the pipeline gives the same
artifact as one uninterrupted compile.

This is how a kernel engineer bisects a lowering — ``qdot-opt --print-ir-after=PASS`` (or ``-p`` up to a pass, ``-o``
to a file), edit, resume with the remaining passes — and how a reproducer is cut for a bug report. It holds only if
printing loses nothing a later pass reads: every attribute, the op properties of the custom syntax, the order of
ops, symbol names. Each example (``examples.catalog``) is compiled for each of its builds (and AGX forms) one pass at
a time, through text between every two passes, and compared with ``compiler.compile`` of the file byte for byte.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import compiler
from compiler import registry
from compiler.cli.common import build_pipeline, parse_module, print_module, split_chunks
from compiler.pipelines import PtxOptions, agx_pipeline, ptx_pipeline
from examples.catalog import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
CASES = [(ex.name, build.arch, build.strategy, ex.num_stages, None) for ex in EXAMPLES for build in ex.builds] + \
        [(ex.name, None, None, None, form) for ex in EXAMPLES for form in ex.agx_forms]


def _passes(spec: str) -> list[str]:
    """The passes of a pipeline string, each with its options (commas inside braces are not separators)."""
    return re.findall(r"[\w-]+(?:\{[^}]*\})?", spec)


def _through_text(path: str, spec: str) -> str:
    """The text of the module after every pass of ``spec``, printed and parsed again between any two of them."""
    text = Path(path).read_text(encoding="utf-8")
    for one in _passes(spec):
        ctx = registry.make_context()
        module = parse_module(ctx, split_chunks(text, False)[0], path)
        build_pipeline(registry.pass_factories(), one).apply(ctx, module)
        stream = io.StringIO()
        print_module(module, stream)
        text = stream.getvalue()
    return text


IDS = [f"{c[0]}-{c[1] or c[4]}{'-' + c[2] if c[2] not in (None, 'auto') else ''}" for c in CASES]


@pytest.mark.parametrize(("name", "arch", "strategy", "stages", "form"), CASES, ids=IDS)
def test_each_pass_output_resumes_to_the_same_artifact(name: str, arch: str | None, strategy: str | None,
                                                        stages: int | None, form: str | None) -> None:
    path = str(ROOT / "examples" / f"{name}.mlir")
    if form is not None:
        spec = agx_pipeline(form)
        lowered = _through_text(path, spec)
        resumed = compiler.compile(lowered, target=form, pipeline="")
        whole = compiler.compile(path, target=form)
        assert resumed.artifact.data == whole.artifact.data, f"{path} for {form}"
        return
    spec = ptx_pipeline(PtxOptions(arch=arch, strategy=strategy, num_stages=stages))
    assert len(_passes(spec)) >= 7, spec  # every pass of the default pipeline, each resumed from text
    lowered = _through_text(path, spec)
    resumed = compiler.compile(lowered, arch=arch, pipeline="")
    whole = compiler.compile(path, arch=arch, strategy=strategy, num_stages=stages)
    assert resumed.ptx == whole.ptx, f"{path} for {arch} {strategy}: the PTX through text differs"
