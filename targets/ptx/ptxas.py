"""`assemble`: run ptxas on PTX text, the referee of every PTX qdot produces (DESIGN.md §5).

`ptxas -v` reports, per entry function, registers, spills, stack frame and static shared
memory; `PtxasResult` carries them (per kernel, and summed up for the usual single-kernel
module) with the full log and the cubin.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from compiler.tools import ToolUnavailable, find_ptxas, ptxas_not_found
from dialects.ptx.arch import Arch


class PtxasUnavailable(ToolUnavailable):
    """No ptxas on this machine ($QDOT_PTXAS, PATH, or the nvidia-cuda-nvcc wheel)."""


@dataclass(frozen=True)
class KernelResources:
    """What `ptxas -v` reports for one entry function."""

    name: str
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0
    shared_bytes: int = 0


@dataclass(frozen=True)
class PtxasResult:
    """Outcome of one ptxas run.

    The scalar fields summarise all kernels: the maximum of registers, stack frame and
    static shared memory, the sum of spill stores and loads (any spill is worth a look).
    `shared_bytes` is *static* shared memory; the dynamic shared memory a launch asks for
    does not appear in ptxas's report.
    """

    ok: bool
    log: str
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0
    shared_bytes: int = 0
    cubin: bytes | None = None
    kernels: tuple[KernelResources, ...] = ()

    @property
    def errors(self) -> tuple[str, ...]:
        """The log lines that report errors (empty when `ok`)."""
        return tuple(line for line in self.log.splitlines() if re.search(r"\b(error|fatal)\b", line))

    def kernel(self, name: str) -> KernelResources:
        for kernel in self.kernels:
            if kernel.name == name:
                return kernel
        raise KeyError(f"ptxas reported no entry function '{name}' (have: {[k.name for k in self.kernels]})")


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")


def parse_verbose(log: str) -> tuple[KernelResources, ...]:
    """Per-entry resources from a `ptxas -v` log, in the order ptxas reports them."""
    entries: dict[str, dict[str, int]] = {}
    frames: dict[str, tuple[int, int, int]] = {}
    current_entry: str | None = None
    current_properties: str | None = None
    for line in log.splitlines():
        if match := _ENTRY.search(line):
            current_entry = match.group(1)
            entries.setdefault(current_entry, {})
        elif match := _PROPERTIES.search(line):
            current_properties = match.group(1)
        elif (match := _FRAME.search(line)) and current_properties is not None:
            frames[current_properties] = (int(match.group(1)), int(match.group(2)), int(match.group(3)))
        elif (match := _USED.search(line)) and current_entry is not None:
            entries[current_entry]["registers"] = int(match.group(1))
            if smem := _SMEM.search(line):
                entries[current_entry]["shared_bytes"] = int(smem.group(1))
    kernels = []
    for name, used in entries.items():
        stack, stores, loads = frames.get(name, (0, 0, 0))
        kernels.append(KernelResources(name, used.get("registers", 0), stores, loads, stack,
                                       used.get("shared_bytes", 0)))
    return tuple(kernels)


def assemble(ptx: str, arch: Arch | str, verbose: bool = True, timeout_s: float = 300.0) -> PtxasResult:
    """Assemble `ptx` for `arch` (``ptxas -arch=<arch> [-v]``).

    Raises `PtxasUnavailable` when there is no ptxas, or one that cannot run or that claims
    success without writing the cubin (a broken stand-in, not a verdict on the PTX). A rejected
    PTX is not an exception: the result has ``ok=False``, the log holds ptxas's messages (or
    says it gave none) and `cubin` is None.
    """
    binary = find_ptxas()
    if binary is None:
        raise PtxasUnavailable(ptxas_not_found())
    target = Arch.parse(arch) if isinstance(arch, str) else arch
    with tempfile.TemporaryDirectory(prefix="qdot-ptxas-") as scratch:
        source = Path(scratch) / "kernel.ptx"
        output = Path(scratch) / "kernel.cubin"
        source.write_text(ptx, encoding="utf-8")
        command = [binary, f"-arch={target.value}", *(["-v"] if verbose else []), "-o", str(output), str(source)]
        try:
            completed = subprocess.run(command, capture_output=True, encoding="utf-8", errors="replace",
                                       timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return PtxasResult(ok=False, log=f"ptxas did not finish within {timeout_s:g} s")
        except OSError as err:
            raise PtxasUnavailable(f"cannot run ptxas '{binary}': {err}") from None
        log = (completed.stdout + completed.stderr).replace(str(source), "<input>")
        if completed.returncode == 0 and not output.is_file():  # not a refusal of the PTX: a broken ptxas
            raise PtxasUnavailable(f"ptxas '{binary}' exited with status 0 but produced no output file")
        if completed.returncode != 0 and not log.strip():
            log = (f"ptxas was killed by signal {-completed.returncode}" if completed.returncode < 0
                   else f"ptxas exited with status {completed.returncode} and printed no reason")
        ok = completed.returncode == 0
        cubin = output.read_bytes() if ok else None
    kernels = parse_verbose(log)
    return PtxasResult(
        ok=ok,
        log=log,
        registers=max((k.registers for k in kernels), default=0),
        spill_stores=sum(k.spill_stores for k in kernels),
        spill_loads=sum(k.spill_loads for k in kernels),
        stack_frame=max((k.stack_frame for k in kernels), default=0),
        shared_bytes=max((k.shared_bytes for k in kernels), default=0),
        cubin=cubin,
        kernels=kernels,
    )
