"""A fixed batch of the malformed-input fuzz (tests/api/input_fuzz.py): damaged examples and
lit inputs through qdot-translate give diagnostics, never internal errors or invalid pass
output. The long runs are `python -m tests.api.input_fuzz --seconds N`; this keeps the suite
from losing what they found."""

from __future__ import annotations

import random

import pytest

from tests.api import input_fuzz


def test_seed_inputs_cover_the_examples_and_lit():
    seeds = input_fuzz.seed_inputs()
    sources = {seed.source for seed in seeds}
    assert "examples/q4k_mmq.mlir" in sources
    assert any(source.startswith("tests/lit/qdot-to-llvm/") for source in sources)
    lower_mma = [seed for seed in seeds if seed.source.startswith("tests/lit/qdot-lower-mma/")]
    assert lower_mma and all(any("qdot-lower-mma" in p for p in seed.pipelines) for seed in lower_mma)


def test_mutations_change_the_text():
    rng = random.Random(0)
    text = "%a = arith.addi %b, %c : i32\n%d = arith.muli %a, %a : i32\n"
    changed = sum(input_fuzz.mutate(text, rng) != text for _ in range(50))
    assert changed >= 40


def test_a_crash_is_a_failure(tmp_path, monkeypatch):
    def crash(argv):  # noqa: ARG001
        raise IndexError("out of range")

    monkeypatch.setattr(input_fuzz.translate, "run", crash)
    path = tmp_path / "x.mlir"
    path.write_text("func.func @f() {\n  func.return\n}\n")
    outcome, report = input_fuzz.run_case(path, ("--target", "mlir"), 5.0)
    assert outcome == "fail" and report.startswith("IndexError at test_input_fuzz.py")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_damaged_inputs_give_diagnostics(seed, tmp_path):
    failures, done, _ = input_fuzz.fuzz(seed, cases=80, seconds=None, workdir=tmp_path)
    assert done == 80
    assert not failures, "\n\n".join(f.report for f in failures.values())


def test_bench_cases_plan_the_damaged_kernel(tmp_path, monkeypatch):
    """qdot-bench's cases give every index parameter of the kernel's signature a value (here %m, %n and %k, one
    with an attribute after it), and a crash in qdot-bench is a failure as in the other tools."""
    text = ("func.func @k(%a: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})\n"
            "    attributes {qdot.kernel} {\n  func.return\n}\n")
    argvs = [input_fuzz.bench_argv(text, random.Random(seed)) for seed in range(40)]
    shapes = [dict(pair.split("=") for pair in argv[argv.index("--shape") + 1].split(",")) for argv in argvs]
    assert all(argv[0] == "qdot-bench" and "--grid" in argv for argv in argvs)
    assert sum(set(shape) == {"m", "n", "k"} for shape in shapes) >= 25  # one in four damaged: a name out or in
    emulated = [argv for argv in argvs if "--emulate" in argv]
    assert 5 <= len(emulated) <= 25  # one in three runs a CTA or two on the emulator, never a whole grid
    assert all(argv[argv.index("--ctas") + 1] in ("0", "0,-1") for argv in emulated)

    def crash(argv):  # noqa: ARG001
        raise KeyError("plan")

    monkeypatch.setattr(input_fuzz.bench, "run", crash)
    path = tmp_path / "x.mlir"
    path.write_text(text)
    outcome, report = input_fuzz.run_case(path, argvs[0], 5.0)
    assert outcome == "fail" and report.startswith("KeyError at test_input_fuzz.py")
