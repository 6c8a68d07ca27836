from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: compiles and emulates a whole GEMM kernel (seconds); runs by default, "
                   "deselect with -m 'not slow'")
