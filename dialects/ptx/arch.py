"""GPU targets, the PTX ISA versions they need, and which instruction families each accepts.

One table answers "may this instruction be emitted for this target?" for the whole
compiler: the `ptx` ops declare a `Feature` (plus the PTX ISA version their form needs),
`check_arch` (in `dialects.ptx.check`) compares that against the target before LLVM ever
sees the IR. This matters because LLVM 22 *aborts the process* on an intrinsic that the
chosen target cannot select, instead of raising an error (reference/ptx.md §5).

Sources: reference/ptx.md §1 (ptxas 13.0 acceptance tables) and the LLVM 22 (cpu, +ptxNN)
probes in the same document; `a` targets run only on that exact compute capability, `f`
(family) targets on later members of the same family ([ISA] target notes).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, order=True)
class PtxVersion:
    """A PTX ISA version such as 8.7 (`.version 8.7`, LLVM feature `+ptx87`)."""

    major: int
    minor: int

    @staticmethod
    def parse(text: str) -> PtxVersion:
        """Accepts ``8.7``, ``87`` and ``+ptx87``; raises ValueError otherwise."""
        spelled = text.strip().removeprefix("+ptx")
        if "." in spelled:
            major, _, minor = spelled.partition(".")
        elif spelled.isdigit() and len(spelled) == 2:
            major, minor = spelled[0], spelled[1]
        else:
            raise ValueError(f"not a PTX ISA version: '{text}' (expected e.g. 8.7)")
        if not (major.isdigit() and minor.isdigit()) or len(minor) != 1:
            raise ValueError(f"not a PTX ISA version: '{text}' (expected e.g. 8.7)")
        return PtxVersion(int(major), int(minor))

    @property
    def llvm_feature(self) -> str:
        return f"+ptx{self.major}{self.minor}"

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def _v(text: str) -> PtxVersion:
    return PtxVersion.parse(text)


MAX_SHARED_BYTES = {80: 166912, 86: 101376, 89: 101376, 90: 232448, 100: 232448, 120: 101376, 121: 101376}
"""Most shared memory one CTA may use (opt-in, bytes) by compute capability: 163 KB on sm_80,
227 KB on sm_90 and sm_100, 99 KB on sm_86 / sm_89 / sm_120 (CUDA C++ Programming Guide,
"Technical Specifications per Compute Capability"; CUTLASS's per-arch capacities agree).
ptxas does not check the dynamic shared memory a kernel asks for at launch, so qdot-to-llvm
refuses a kernel that needs more, and the examples table reports it."""


class Arch(StrEnum):
    """The targets qdot emits PTX for (the spelling of ptxas `-arch` and PTX `.target`)."""

    SM_80 = "sm_80"
    SM_86 = "sm_86"
    SM_89 = "sm_89"
    SM_90 = "sm_90"
    SM_90A = "sm_90a"
    SM_100A = "sm_100a"
    SM_120 = "sm_120"
    SM_120A = "sm_120a"
    SM_120F = "sm_120f"
    SM_121A = "sm_121a"

    @staticmethod
    def parse(text: str) -> Arch:
        """The Arch for ``sm_90``-style text; ValueError naming the known targets otherwise."""
        try:
            return Arch(text.strip())
        except ValueError:
            known = ", ".join(a.value for a in Arch)
            raise ValueError(f"unknown target '{text}' (known: {known})") from None

    @property
    def capability(self) -> int:
        """Compute capability times ten (sm_120a -> 120)."""
        return int(self.value[3:].rstrip("af"))

    @property
    def max_shared_bytes(self) -> int:
        """The most shared memory one CTA may use on this target (opt-in, bytes)."""
        return MAX_SHARED_BYTES[self.capability]

    @property
    def min_ptx(self) -> PtxVersion:
        """Lowest `.version` that ptxas and LLVM 22 accept for this `.target`."""
        return _TARGET_MIN_PTX[self]

    @property
    def default_ptx(self) -> PtxVersion:
        """The `.version` we emit when none is asked for.

        High enough that every instruction `supports` allows on this target is legal
        (FP8 `mma` with f16 accumulators needs 8.7 even on sm_89), never above 9.0, the
        newest PTX that CUDA 13.0's driver JIT-compiles.
        """
        return _DEFAULT_PTX[self]

    def supports(self, feature: Feature) -> bool:
        return self in _FEATURE_TARGETS[feature].archs


class Feature(StrEnum):
    """Instruction families whose availability differs between our targets."""

    LDMATRIX = "ldmatrix .m8n8 .b16"
    LDMATRIX_SUBBYTE = "ldmatrix .m16n16 / .m8n16"
    MMA_INT8 = "mma.sync with s8/u8/s4/u4"
    MMA_F16_BF16 = "mma.sync with f16/bf16"
    MMA_FP8 = "mma.sync with e4m3/e5m2"
    MMA_F8F6F4 = "mma.sync kind::f8f6f4"
    MMA_BLOCK_SCALE = "mma.sync with block_scale"
    CP_ASYNC = "cp.async"
    CVT_FP8 = "cvt with e4m3x2/e5m2x2"
    CVT_FP6_FP4 = "cvt with e2m1x2/e2m3x2/e3m2x2"
    CVT_F16_BF16 = "cvt between f32 and f16/bf16"
    SHUFFLE = "shfl.sync, prmt, lop3"
    BF16X2_FMA = "fma.rn.bf16x2"
    BF16X2_MUL = "mul.rn.bf16x2"
    WGMMA = "wgmma.mma_async"
    FENCE_PROXY_ASYNC = "fence.proxy.async"
    GRID_DEPENDENCY = "griddepcontrol"


@dataclass(frozen=True)
class _Targets:
    archs: frozenset[Arch]
    phrase: str  # how a diagnostic names the set: "sm_89 or later"


_ALL = frozenset(Arch)
_SM89_UP = frozenset(a for a in Arch if a.capability >= 89)
_SM90_UP = frozenset(a for a in Arch if a.capability >= 90)
# Arch-specific Blackwell features (ptx.md §1): sm_100a and the sm_120 family, never plain sm_120.
_BLACKWELL_SPECIFIC = frozenset({Arch.SM_100A, Arch.SM_120A, Arch.SM_120F, Arch.SM_121A})
# mma.sync with FP6/FP4 or block scaling: only the consumer-Blackwell family (not sm_100a).
_SM120_FAMILY_SPECIFIC = frozenset({Arch.SM_120A, Arch.SM_120F, Arch.SM_121A})

_FEATURE_TARGETS: dict[Feature, _Targets] = {
    Feature.LDMATRIX: _Targets(_ALL, "sm_75 or later"),
    Feature.LDMATRIX_SUBBYTE: _Targets(_BLACKWELL_SPECIFIC, "sm_100a, sm_120a or sm_120f/sm_121a"),
    Feature.MMA_INT8: _Targets(_ALL, "sm_80 or later"),
    Feature.MMA_F16_BF16: _Targets(_ALL, "sm_80 or later"),
    Feature.MMA_FP8: _Targets(_SM89_UP, "sm_89 or later"),
    Feature.MMA_F8F6F4: _Targets(_SM120_FAMILY_SPECIFIC, "sm_120a or sm_120f/sm_121a"),
    Feature.MMA_BLOCK_SCALE: _Targets(_SM120_FAMILY_SPECIFIC, "sm_120a or sm_120f/sm_121a"),
    Feature.CP_ASYNC: _Targets(_ALL, "sm_80 or later"),
    Feature.CVT_FP8: _Targets(_SM89_UP, "sm_89 or later"),
    Feature.CVT_FP6_FP4: _Targets(_BLACKWELL_SPECIFIC, "sm_100a, sm_120a or sm_120f/sm_121a"),
    Feature.CVT_F16_BF16: _Targets(_ALL, "sm_80 or later"),
    Feature.SHUFFLE: _Targets(_ALL, "sm_70 or later"),
    Feature.BF16X2_FMA: _Targets(_ALL, "sm_80 or later"),
    Feature.BF16X2_MUL: _Targets(_SM90_UP, "sm_90 or later"),
    # wgmma is Hopper-specific: sm_90a only, not plain sm_90 and not Blackwell (ptx.md §1)
    Feature.WGMMA: _Targets(frozenset({Arch.SM_90A}), "sm_90a"),
    Feature.FENCE_PROXY_ASYNC: _Targets(_SM90_UP, "sm_90 or later"),
    Feature.GRID_DEPENDENCY: _Targets(_SM90_UP, "sm_90 or later"),
}

_TARGET_MIN_PTX: dict[Arch, PtxVersion] = {
    Arch.SM_80: _v("7.0"),
    Arch.SM_86: _v("7.1"),
    Arch.SM_89: _v("7.8"),
    Arch.SM_90: _v("7.8"),
    Arch.SM_90A: _v("8.0"),
    Arch.SM_100A: _v("8.6"),
    Arch.SM_120: _v("8.7"),
    Arch.SM_120A: _v("8.7"),
    Arch.SM_120F: _v("8.8"),
    Arch.SM_121A: _v("8.8"),
}

_DEFAULT_PTX: dict[Arch, PtxVersion] = {
    Arch.SM_80: _v("7.8"),
    Arch.SM_86: _v("7.8"),
    Arch.SM_89: _v("8.7"),
    Arch.SM_90: _v("8.7"),
    Arch.SM_90A: _v("8.7"),
    Arch.SM_100A: _v("8.7"),
    Arch.SM_120: _v("8.7"),
    Arch.SM_120A: _v("8.7"),
    Arch.SM_120F: _v("8.8"),
    Arch.SM_121A: _v("8.8"),
}

MAX_PTX = _v("9.0")
"""Newest PTX ISA that LLVM 22 knows (`+ptx90`) and CUDA 13.0's driver JIT-compiles."""

LLVM_PTX_VERSIONS: frozenset[PtxVersion] = frozenset(
    [PtxVersion(7, m) for m in range(9)] + [PtxVersion(8, m) for m in range(9)] + [PtxVersion(9, 0)]
)
"""`+ptxNN` features LLVM 22 recognises from 7.0 on (an unknown one is silently ignored)."""


def targets_phrase(feature: Feature) -> str:
    """How a diagnostic names the targets of `feature`, e.g. ``sm_120a or sm_120f/sm_121a``."""
    return _FEATURE_TARGETS[feature].phrase


@dataclass(frozen=True)
class Requirement:
    """What one instruction form needs: an instruction family and a PTX ISA version."""

    feature: Feature
    min_ptx: PtxVersion
    what: str  # the instruction as a diagnostic names it, e.g. "mma kind::f8f6f4"

    def problem(self, arch: Arch, ptx_version: PtxVersion | None = None) -> str | None:
        """None when legal on `arch` (at `ptx_version`), else the reason, for a diagnostic."""
        if not arch.supports(self.feature):
            return f"{self.what} requires {targets_phrase(self.feature)}, got {arch.value}"
        if ptx_version is not None and ptx_version < self.min_ptx:
            return f"{self.what} requires PTX ISA {self.min_ptx} or later, got {ptx_version}"
        return None


def requirement(feature: Feature, min_ptx: str, what: str) -> Requirement:
    return Requirement(feature, _v(min_ptx), what)


def check_ptx_version(arch: Arch, version: PtxVersion) -> str | None:
    """None when LLVM 22 accepts (`arch`, `+ptxNN`), else why not.

    An unaccepted pair is a fatal LLVM error that kills the process (sm_121a with +ptx87),
    so this is checked before any target machine exists.
    """
    if version not in LLVM_PTX_VERSIONS:
        return f"PTX ISA {version} is not one LLVM 22 can emit (7.0 .. 8.8, 9.0)"
    if version > MAX_PTX:
        return f"PTX ISA {version} is newer than {MAX_PTX}, the newest CUDA 13.0 JIT-compiles"
    if version < arch.min_ptx:
        return f"target {arch.value} requires PTX ISA {arch.min_ptx} or later, got {version}"
    return None
