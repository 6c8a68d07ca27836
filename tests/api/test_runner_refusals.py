"""``LoadedKernel.launch`` refuses a launch that would go wrong before it reaches the driver.

tests/gpu/test_gemm_gpu.py and test_mmq_gpu.py check these refusals on a GPU, so on the CPU machine (where they
skip) nothing held them; they are all host-side checks, run here against a stand-in CuPy whose "device arrays"
carry only an address and a kernel function that fails the test if it is ever called.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from targets.ptx import runner
from targets.ptx.kernel_info import KernelInfo
from targets.ptx.runner import LoadedKernel


class DeviceArray:
    """What the runner reads of a CuPy array: its type and ``data.ptr``."""

    def __init__(self, ptr: int) -> None:
        self.data = SimpleNamespace(ptr=ptr)


def _never_launched(*args: object, **kwargs: object) -> None:
    raise AssertionError("the kernel was launched")


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> LoadedKernel:
    """(y, x, n): two pointers and an i32 compiled for n a multiple of 8; 4 KB of shared memory, no grid wait."""
    monkeypatch.setattr(runner, "require_cupy", lambda: SimpleNamespace(ndarray=DeviceArray))
    info = KernelInfo("k", 2, 4096, ("ptr", "ptr", "i32"), arg_divisibility=(1, 1, 8))
    return LoadedKernel(info, function=_never_launched, block=(64, 1, 1))


def test_a_view_that_does_not_start_16_byte_aligned_is_refused(kernel: LoadedKernel) -> None:
    with pytest.raises(ValueError, match=r"^argument 1 of 'k' must start at a multiple of 16 bytes \(its loads and "
                                         r"stores are vectors\); it starts at 0x1004$"):
        kernel.launch(DeviceArray(0x1000), DeviceArray(0x1004), 64, grid=1)


def test_a_size_the_kernel_assumes_divisible_is_refused(kernel: LoadedKernel) -> None:
    with pytest.raises(ValueError, match=r"^argument 2 of 'k' must be a multiple of 8 \(the kernel was compiled "
                                         r"with qdot.divisibility = 8\), got 130$"):
        kernel.launch(DeviceArray(0x1000), DeviceArray(0x2000), 130, grid=1)


def test_a_host_array_or_a_wrong_count_of_arguments_is_a_type_error(kernel: LoadedKernel) -> None:
    import numpy as np

    with pytest.raises(TypeError, match=r"^argument 0 of 'k' must be a device array$"):
        kernel.launch(np.zeros(64, np.float32), DeviceArray(0x2000), 64, grid=1)
    with pytest.raises(TypeError, match=r"^kernel 'k' takes 3 arguments \(ptr, ptr, i32\), got 2$"):
        kernel.launch(DeviceArray(0x1000), 64, grid=1)


def test_less_shared_memory_than_the_kernel_needs_is_refused(kernel: LoadedKernel) -> None:
    with pytest.raises(ValueError, match=r"^kernel 'k' needs 4096 B of shared memory per CTA; a launch with 1024 B "
                                         r"would overrun it$"):
        kernel.launch(DeviceArray(0x1000), DeviceArray(0x2000), 64, grid=1, shared_bytes=1024)


def test_a_programmatic_launch_of_a_kernel_that_does_not_wait_is_refused(kernel: LoadedKernel) -> None:
    with pytest.raises(ValueError, match=r"^kernel 'k' does not wait for the previous grid \(qdot.wait_previous_grid"
                                         r"\), so a programmatic launch could race that kernel$"):
        kernel.launch(DeviceArray(0x1000), DeviceArray(0x2000), 64, grid=1, programmatic=True)


def test_a_well_formed_launch_reaches_the_function(kernel: LoadedKernel) -> None:
    """The control: the same stand-ins, nothing wrong, and the function is called as CuPy's RawKernel is."""
    import numpy as np

    calls = []
    kernel.function = lambda grid, block, args, **kw: calls.append((grid, block, args, kw))
    y, x = DeviceArray(0x1000), DeviceArray(0x2010)
    kernel.launch(y, x, 64, grid=(3, 2), sync=False)
    ((grid, block, args, kw),) = calls
    assert (grid, block, kw) == ((3, 2, 1), (64, 1, 1), {"shared_mem": 4096, "stream": None})
    assert args[:2] == (y, x) and args[2] == 64 and type(args[2]) is np.int32
