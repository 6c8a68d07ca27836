"""Launch qdot's PTX on an NVIDIA GPU through CuPy.

CuPy loads the PTX (the driver JIT-compiles it for the GPU in hand), the kernel
gets the dynamic shared memory the compiler recorded (raising the 48 KiB default
limit when needed), and every launch is checked. Arguments follow the kernel's
signature as recorded by ``qdot-to-llvm`` in ``qdot.arg_kinds``: device arrays for
pointers (numpy arrays are copied in and, after the launch, back out), Python or
numpy integers and floats for scalars. Packed formats travel as raw bytes:
fp4 two per byte and e8m0/ue4m3 scales as uint8, bf16 as uint16, ggml blocks as
uint8 arrays of whole blocks.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from targets.ptx.kernel_info import KernelInfo


class GpuUnavailable(RuntimeError):
    """CuPy or a CUDA device is missing; GPU tests skip on this."""


def require_cupy() -> Any:
    try:
        import cupy
    except ImportError as err:  # pragma: no cover - depends on the machine
        raise GpuUnavailable("CuPy is not installed (pip install '.[gpu]')") from err
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise GpuUnavailable("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as err:  # pragma: no cover
        raise GpuUnavailable(f"no usable CUDA device: {err}") from err
    return cupy


POINTER_ALIGNMENT = 16
"""Every kernel assumes its arrays start 16-byte aligned (its vector loads and stores do); CuPy
allocations are 256-byte aligned, a view into an array need not be."""
_SCALAR_TYPES = {"i32": np.int32, "i64": np.int64, "index": np.int64, "f32": np.float32}


@dataclass
class LoadedKernel:
    info: KernelInfo
    function: Any
    block: tuple[int, int, int]
    allowed_shared: int = 48 * 1024
    """The dynamic shared memory the function may launch with, raised by ``_allow_shared`` once per size
    (asking the device at every launch would cost more than a decode kernel takes)."""
    _registers: int | None = None

    def launch(self, *args: Any, grid: Sequence[int] | int, stream: Any = None, sync: bool = True,
               programmatic: bool = False, shared_bytes: int | None = None, carveout: int | None = None) -> None:
        """``programmatic``: allow the launch to start before the previous kernel of the stream
        ends (programmatic dependent launch, sm_90+); only for a kernel that waits for it.
        ``shared_bytes``: the dynamic shared memory to launch with, at least the kernel's; by default
        ``spread_for(grid, programmatic)``'s. ``carveout``: the shared-memory configuration this launch prefers,
        in percent of the largest (``compiler.occupancy.carveout_percent``; programmatic launches only, through
        the launch attribute); by default ``spread_for``'s where ``shared_bytes`` is not given, else the
        driver's choice."""
        cupy = require_cupy()
        if programmatic and not self.info.waits_previous_grid:
            raise ValueError(f"kernel '{self.info.name}' does not wait for the previous grid "
                             "(qdot.wait_previous_grid), so a programmatic launch could race that kernel")
        if carveout is not None and not programmatic:
            raise ValueError(f"kernel '{self.info.name}': a shared-memory carve-out is set per launch only with "
                             "programmatic=True (the launch that takes attributes)")
        grid3 = (grid, 1, 1) if isinstance(grid, int) else tuple(grid) + (1,) * (3 - len(grid))
        if shared_bytes is None:
            shared, spread_carveout = self.spread_for(grid3, programmatic)
            carveout = spread_carveout if carveout is None else carveout
        else:
            shared = shared_bytes
        if shared < self.info.shared_bytes:
            raise ValueError(f"kernel '{self.info.name}' needs {self.info.shared_bytes} B of shared memory per CTA; "
                             f"a launch with {shared} B would overrun it")
        if shared > self.allowed_shared:
            _allow_shared(self.function, shared, self.info.name)
            self.allowed_shared = shared
        if len(args) != len(self.info.arg_kinds):
            raise TypeError(
                f"kernel '{self.info.name}' takes {len(self.info.arg_kinds)} arguments "
                f"({', '.join(self.info.arg_kinds)}), got {len(args)}")
        self.info.check_divisibility(args)
        converted: list[Any] = []
        for index, (kind, value) in enumerate(zip(self.info.arg_kinds, args, strict=True)):
            if kind == "ptr":
                if not isinstance(value, cupy.ndarray):
                    raise TypeError(f"argument {index} of '{self.info.name}' must be a device array")
                if value.data.ptr % POINTER_ALIGNMENT:
                    raise ValueError(f"argument {index} of '{self.info.name}' must start at a multiple of "
                                     f"{POINTER_ALIGNMENT} bytes (its loads and stores are vectors); "
                                     f"it starts at 0x{value.data.ptr:x}")
                converted.append(value)
            else:
                converted.append(_SCALAR_TYPES[kind](value))
        if programmatic:
            from targets.ptx.programmatic_launch import launch_programmatic

            handle = (stream or cupy.cuda.get_current_stream()).ptr
            launch_programmatic(self.function.kernel.ptr, grid3, self.block, shared, handle,
                                self.info.arg_kinds, [a.data.ptr if isinstance(a, cupy.ndarray) else a
                                                      for a in converted], self.info.name, carveout=carveout)
        else:
            self.function(grid3, self.block, tuple(converted), shared_mem=shared, stream=stream)
        if sync:
            (stream or cupy.cuda.get_current_stream()).synchronize()

    def shared_bytes_for(self, grid: Sequence[int] | int, programmatic: bool) -> int:
        """The dynamic shared memory ``launch`` gives ``grid`` when not told (``spread_for``'s first part)."""
        return self.spread_for(grid, programmatic)[0]

    def spread_for(self, grid: Sequence[int] | int, programmatic: bool) -> tuple[int, int | None]:
        """(dynamic shared memory, preferred shared-memory carve-out in percent or None) that ``launch`` gives
        ``grid`` when not told: the kernel's own and the driver's choice, except for a programmatic launch
        (``compiler.mmq_grids.spread_launch``). A one-wave grid is padded so that no SM of this GPU takes
        more than ⌈programs / SMs⌉ of its programs: launched early, such a grid with room left on the SMs
        sometimes lands unevenly, and a kernel bound by its instructions per SM then takes up to 20 % longer
        (runs 196–197); capped, none of 44 decode MUL_MATs at the four decode shapes was more than 0.9 % slower,
        and some were up to 18 % faster (run 200). A grid of more than one wave whose programs would put the SM
        in its largest shared-memory configuration (28 KB of L1 on an H200) runs one program per SM fewer under
        a smaller one, for the L1 that frees (runs 219–220: up to 7.6 % faster; where the SM was already in a
        smaller configuration, a program fewer cost 8–12 %, so it is not asked there)."""
        if not programmatic:
            return self.info.shared_bytes, None
        from compiler.mmq_grids import spread_launch
        from compiler.occupancy import carveout_percent

        sms, shared_per_sm, reserved = device_shared()
        programs = grid if isinstance(grid, int) else math.prod(grid)
        shared, config = spread_launch(self.info.shared_bytes, programs, sms, shared_per_sm, reserved,
                                       threads=32 * self.info.num_warps, registers=self.registers)
        return shared, None if config is None else carveout_percent(config, shared_per_sm)

    @property
    def registers(self) -> int:
        """Registers per thread of the loaded function, as the driver allocated them (what ptxas -v
        reports; 0 where the function does not say)."""
        if self._registers is None:
            self._registers = int(getattr(self.function, "num_regs", 0) or 0)
        return self._registers

    @property
    def local_bytes(self) -> int:
        """Local memory per thread of the loaded function (registers ptxas spilled, local arrays), as the
        driver compiled it; 0 where the function does not say. The ptxas on a CPU machine may be another
        version and spill otherwise."""
        return int(getattr(self.function, "local_size_bytes", 0) or 0)

    def resident_programs(self, shared_bytes: int | None = None) -> int:
        """Programs of this kernel the current GPU holds at once, launched with ``shared_bytes`` of dynamic
        shared memory (default: its own): ``compiler.mmq_grids.resident_programs`` with this device's
        shared memory and this function's registers — what ``mmq_grid(..., resident=…)`` takes."""
        from compiler.mmq_grids import resident_programs

        sms, shared_per_sm, reserved = device_shared()
        shared = self.info.shared_bytes if shared_bytes is None else shared_bytes
        return resident_programs(shared, sms, shared_per_sm, reserved, threads=32 * self.info.num_warps,
                                 registers=self.registers)


def device_shared(cupy: Any = None) -> tuple[int, int, int]:
    """(SMs, shared memory per SM, shared memory reserved per program) of the current GPU: what
    ``resident_programs`` and ``spread_shared_bytes`` model residency with."""
    cupy = cupy or require_cupy()
    device = cupy.cuda.Device().id
    if (cupy, device) not in _DEVICE_SHARED:  # asked at every programmatic launch: read once per device
        props = cupy.cuda.runtime.getDeviceProperties(device)
        _DEVICE_SHARED[cupy, device] = (props["multiProcessorCount"], props["sharedMemPerMultiprocessor"],
                                        props.get("reservedSharedMemPerBlock", 1024))
    return _DEVICE_SHARED[cupy, device]


_DEVICE_SHARED: dict[tuple[Any, int], tuple[int, int, int]] = {}


def load(ptx: str, info: KernelInfo) -> LoadedKernel:
    """Load one kernel of a PTX module; the PTX goes through a file because CuPy loads modules by path."""
    cupy = require_cupy()
    handle, path = tempfile.mkstemp(suffix=".ptx", prefix="qdot_")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(ptx)
        module = cupy.RawModule(path=path)
        function = module.get_function(info.name)
    finally:
        os.unlink(path)
    if info.shared_bytes > 48 * 1024:
        _allow_shared(function, info.shared_bytes, info.name)
    return LoadedKernel(info, function, (32 * info.num_warps, 1, 1), max(info.shared_bytes, 48 * 1024))


def _allow_shared(function: Any, shared_bytes: int, name: str) -> None:
    """Let ``function`` launch with ``shared_bytes`` of dynamic shared memory (past 48 KiB it must opt in)."""
    cupy = require_cupy()
    device = cupy.cuda.Device()
    limit = device.attributes["MaxSharedMemoryPerBlockOptin"]
    if shared_bytes > limit:  # the driver's answer would be a bare CUDA_ERROR_INVALID_VALUE
        raise ValueError(f"kernel '{name}' needs {shared_bytes} B of shared memory per CTA; "
                         f"device {device.id} allows at most {limit} B (fewer stages or a smaller tile fit)")
    function.max_dynamic_shared_size_bytes = shared_bytes


def run_with_host_arrays(kernel: LoadedKernel, args: Sequence[Any], grid: Sequence[int] | int) -> None:
    """Copy numpy arrays to the device, launch, and copy every writeable array back in place."""
    cupy = require_cupy()
    device_args: list[Any] = []
    copies: list[tuple[np.ndarray, Any]] = []
    for value in args:
        if isinstance(value, np.ndarray):
            dev = cupy.asarray(np.ascontiguousarray(value).view(np.uint8).reshape(-1))
            device_args.append(dev)
            copies.append((value, dev))
        else:
            device_args.append(value)
    kernel.launch(*device_args, grid=grid)
    for host, dev in copies:
        if host.flags.writeable:  # a read-only array is an input (the launch checks refuse one as an output)
            host.view(np.uint8).reshape(-1)[:] = cupy.asnumpy(dev)
