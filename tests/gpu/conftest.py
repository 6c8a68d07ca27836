from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def gpu() -> Callable[[], Any]:
    """Call it after compiling: returns CuPy, or skips the test cleanly without a GPU."""

    def get() -> Any:
        from targets.ptx.runner import GpuUnavailable, require_cupy

        try:
            return require_cupy()
        except GpuUnavailable as err:
            pytest.skip(f"no GPU: {err}")

    return get
