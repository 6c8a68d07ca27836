from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def gpu() -> Callable[[], Any]:
    """Call it after compiling: returns CuPy, or skips the test cleanly without a GPU — unless QDOT_REQUIRE_GPU=1
    (bench/run_gpu.sh, on the machine that has one), where a missing GPU or CuPy fails the test: a suite of skips
    there would pass having run nothing."""

    def get() -> Any:
        from targets.ptx.runner import GpuUnavailable, require_cupy

        try:
            return require_cupy()
        except GpuUnavailable as err:
            if os.environ.get("QDOT_REQUIRE_GPU") == "1":
                pytest.fail(f"QDOT_REQUIRE_GPU=1 but no GPU: {err}")
            pytest.skip(f"no GPU: {err}")

    return get
