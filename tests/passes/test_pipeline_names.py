"""``compiler.pipelines`` keeps the CLI's choices without importing the passes (a cold
``qdot-translate --help`` stays cheap); these tests keep those lists equal to the passes' own."""

from __future__ import annotations

from compiler.pipelines import PTX_ARCHES, STRATEGIES
from dialects.ptx.arch import Arch
from passes.support.strategy import STRATEGY_NAMES


def test_strategies_are_the_strategy_table_s() -> None:
    assert STRATEGIES == STRATEGY_NAMES


def test_every_pipeline_arch_is_a_ptx_target() -> None:
    assert [Arch.parse(name).value for name in PTX_ARCHES] == list(PTX_ARCHES)
