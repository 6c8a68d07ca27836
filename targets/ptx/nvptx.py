"""`llvm_ir_to_ptx`: LLVM IR text -> PTX text through llvmlite 0.50 (LLVM 22's NVPTX backend).

Three LLVM behaviours shape this module (reference/ptx.md §1, §5; xdsl.md §5):
* an unsupported (cpu, ``+ptxNN``) pair is a fatal `LLVM ERROR` that kills the process
  (sm_121a with +ptx87), so the pair is checked against `dialects.ptx.arch` first;
* an unknown ``llvm.nvvm.*`` name is not an error, it silently becomes an external call
  that only ptxas rejects, so the PTX is checked for such calls;
* `llvm.initialize()` raises in 0.50: targets and asm printers are initialised once, lazily.

Shared-memory pointers are 32-bit (`--nvptx-short-ptr`, what nvcc does): shared offsets are
i32 in our IR, and 64-bit shared addresses would cost a register pair per address.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from dialects.ptx.arch import Arch, PtxVersion, check_ptx_version

TRIPLE = "nvptx64-nvidia-cuda"


class NvptxError(Exception):
    """LLVM rejected the IR, or the request (target, PTX version, optimisation level)."""


def resolve_ptx_version(arch: Arch | str, ptx_version: PtxVersion | str | None = None) -> tuple[Arch, PtxVersion]:
    """The (target, PTX ISA version) to emit, validated; NvptxError naming the problem otherwise."""
    try:
        target = Arch.parse(arch) if isinstance(arch, str) else arch
        if ptx_version is None:
            version = target.default_ptx
        elif isinstance(ptx_version, str):
            version = PtxVersion.parse(ptx_version)
        else:
            version = ptx_version
    except ValueError as err:
        raise NvptxError(str(err)) from None
    if (problem := check_ptx_version(target, version)) is not None:
        raise NvptxError(problem)
    return target, version


@functools.cache
def _llvm() -> Any:
    """llvmlite.binding with the NVPTX target ready; runs once per process."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    llvm.set_option("", "--nvptx-short-ptr")
    return llvm


@functools.cache
def _target_machine(arch: Arch, version: PtxVersion, opt_level: int) -> Any:
    """One target machine per (target, version, level); creating one costs milliseconds."""
    llvm = _llvm()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch.value, features=version.llvm_feature, opt=opt_level)


_EXTERNAL_INTRINSIC = re.compile(r"^\.extern \.func[^\n]*?(llvm[._][\w.$]*)", re.MULTILINE)


Phase = Callable[[str], AbstractContextManager[Any]]
"""A timer of named steps: ``with phase("LLVM parse and verify"): ...``."""


def untimed(_name: str) -> AbstractContextManager[Any]:
    return nullcontext()


def llvm_ir_to_ptx(ir_text: str, arch: Arch | str, ptx_version: PtxVersion | str | None = None,
                   opt_level: int = 3, phase: Phase | None = None) -> str:
    """PTX for `ir_text` on `arch`, at `ptx_version` (default: `Arch.default_ptx`).

    `opt_level` 0-3 selects both the LLVM IR pipeline (`default<O3>`) and the code
    generator's level. The same input gives byte-identical PTX. Raises `NvptxError` for a
    bad target / version / level, IR that LLVM does not parse or verify, or a call to an
    intrinsic LLVM does not know. IR that calls an intrinsic the target cannot select
    still aborts the process inside LLVM: run `dialects.ptx.check_arch` on the module first
    (`emit_llvm_ir` does). `phase(name)`, when given, is a context manager around each step
    (the tools' `--timing`).
    """
    timed = phase or untimed
    target, version = resolve_ptx_version(arch, ptx_version)
    if opt_level not in (0, 1, 2, 3):
        raise NvptxError(f"opt_level must be 0, 1, 2 or 3, got {opt_level}")
    with timed("llvmlite and the NVPTX target machine"):
        llvm = _llvm()
        machine = _target_machine(target, version, opt_level)
    with timed("LLVM parse and verify"):
        try:
            module = llvm.parse_assembly(ir_text)
            module.verify()
        except RuntimeError as err:
            raise NvptxError(f"LLVM rejected the IR: {str(err).strip()}") from None
    module.triple = TRIPLE
    module.data_layout = str(machine.target_data)
    if opt_level > 0:
        with timed(f"LLVM optimisation (O{opt_level})"):
            options = llvm.create_pipeline_tuning_options(speed_level=opt_level)
            builder = llvm.create_pass_builder(machine, options)
            builder.getModulePassManager().run(module, builder)
    with timed("NVPTX code generation"):
        ptx: str = machine.emit_assembly(module)
    if (unknown := _EXTERNAL_INTRINSIC.search(ptx)) is not None:
        raise NvptxError(f"'{unknown.group(1)}' is not an intrinsic LLVM 22 knows; it would become an "
                         "external call that ptxas cannot resolve")
    return ptx
