"""Kernel launches with programmatic stream serialization (Hopper's programmatic dependent launch).

CuPy launches through ``cuLaunchKernel``, which has no launch attributes, so a programmatic
launch goes to the driver's ``cuLaunchKernelEx`` through ctypes with one attribute,
``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1``: the kernel may then start
before the previous kernel of the stream has finished, which is only correct for a kernel
that waits for it (``qdot.wait_previous_grid``: ``griddepcontrol.wait`` first). Stream capture
records such launches as programmatic edges of the CUDA graph.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from typing import Any

CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6
"""``CUlaunchAttributeID`` of the attribute (cuda.h, CUDA 12 and 13)."""
CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 14
"""``CUlaunchAttributeID`` of a launch's preferred shared-memory carve-out, in percent of the largest
configuration (cuda.h, CUDA 12.4 and later; it takes precedence over the function's attribute)."""


class _LaunchAttribute(ctypes.Structure):
    """``CUlaunchAttribute``: an id, padding to 8 bytes, a 64-byte value union."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_ubyte * 64)]


class _LaunchConfig(ctypes.Structure):
    """``CUlaunchConfig``."""

    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_bytes", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(_LaunchAttribute)),
                ("num_attrs", ctypes.c_uint)]


_C_TYPES = {"ptr": ctypes.c_void_p, "i32": ctypes.c_int32, "i64": ctypes.c_int64, "index": ctypes.c_int64,
            "f32": ctypes.c_float}


@functools.cache
def _driver() -> Any:
    driver = ctypes.CDLL("libcuda.so.1")
    driver.cuLaunchKernelEx.restype = ctypes.c_int
    driver.cuLaunchKernelEx.argtypes = [ctypes.POINTER(_LaunchConfig), ctypes.c_void_p,
                                        ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
    driver.cuGetErrorString.restype = ctypes.c_int
    driver.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    return driver


def launch_programmatic(function: int, grid: Sequence[int], block: Sequence[int], shared_bytes: int, stream: int,
                        arg_kinds: Sequence[str], args: Sequence[Any], name: str, carveout: int | None = None) -> None:
    """Launch ``function`` (a ``CUfunction`` handle) on ``stream`` (a ``CUstream``, 0 for the
    legacy default) with programmatic stream serialization allowed. ``args`` are already
    checked against ``arg_kinds``: device pointers as integers, scalars as Python numbers.
    ``carveout``: the shared-memory carve-out to prefer for this launch, percent (0–100) of the largest."""
    values = [_C_TYPES[kind](value) for kind, value in zip(arg_kinds, args, strict=True)]
    params = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p)
                                                         for v in values])
    attributes = (_LaunchAttribute * 2)(_LaunchAttribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION),
                                        _LaunchAttribute(CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT))
    attributes[0].value[0] = 1  # programmaticStreamSerializationAllowed, an int at offset 0 (little-endian)
    if carveout is not None:
        if isinstance(carveout, bool) or not isinstance(carveout, int) or not 0 <= carveout <= 100:
            raise ValueError(f"launch of '{name}': a shared-memory carve-out is a percentage (an integer 0-100), "
                             f"got {carveout!r}")
        attributes[1].value[0] = carveout  # sharedMemCarveout, an unsigned int at offset 0
    config = _LaunchConfig((ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block), shared_bytes,
                           ctypes.c_void_p(stream or None), attributes, 1 if carveout is None else 2)
    driver = _driver()
    status = driver.cuLaunchKernelEx(ctypes.byref(config), ctypes.c_void_p(function), params, None)
    if status != 0:
        text = ctypes.c_char_p()
        driver.cuGetErrorString(status, ctypes.byref(text))
        reason = text.value.decode() if text.value else f"CUresult {status}"
        raise RuntimeError(f"programmatic launch of '{name}' failed: {reason}")
