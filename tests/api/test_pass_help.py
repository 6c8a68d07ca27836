"""The tools' --help describes every pass, and building the parser for a compile loads none of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compiler import registry
from compiler.cli import pass_help

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize("name", list(registry.PASSES))
def test_every_pass_has_a_summary(name: str) -> None:
    text = pass_help.summary(name)
    assert text and not text.startswith(name) and "Pass(" not in text, text


def test_options_are_spelt_as_pipelines_take_them() -> None:
    # an integer option's range, as check_option_values holds it to
    assert pass_help.options("qdot-pipeline") == ["num-stages=3 (1..16)", "guard-copies=true"]
    assert pass_help.options("agx-hints-and-waits") == ["hints=false", "waits=all (all|needed)"]
    assert pass_help.options("qdot-lower-mma") == []


def test_a_compile_does_not_load_passes_to_describe_them() -> None:
    """The help text imports every pass module; only --help may pay for that."""
    code = ("import sys\n"
            "from compiler.cli import opt, translate\n"
            "opt.make_arg_parser().parse_args(['k.mlir', '-p', 'cse'])\n"
            "translate.make_arg_parser().parse_args(['k.mlir'])\n"
            "loaded = sorted(m for m in sys.modules if m.startswith('passes.'))\n"
            "assert not loaded, loaded\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
