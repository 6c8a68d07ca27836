"""The cluster-reduction experiment's PTX rewrite (runs 297–301): its figures rest on ``cluster_patch`` replacing
every atomic addition of the goal kernel and on the rewritten kernel assembling; the GPU runs checked its sums
against ``compiler.numerics``. The emulator has no clusters, so these are checks of the text and of ptxas."""

from __future__ import annotations

import re

import pytest

import bench.mmq as bm
from bench.experiments import cluster_reduce
from compiler.mmq_template import mmq_kernel
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def goal_kernel() -> object:
    return bm.compile_kernels([cluster_reduce.goal_entry()])[0][3]


def _patched(kernel: object, cluster: int, **options: bool) -> tuple[str, int]:
    info = kernel.kernels[0]
    return cluster_reduce.cluster_patch(kernel.ptx, cluster, 32 * info.num_warps, info.shared_bytes, **options)


def test_every_atomic_addition_becomes_a_cluster_sum(goal_kernel: object) -> None:
    adds = goal_kernel.ptx.count("red.global.add.f32")
    assert adds == 8  # the one-token kernel's 64 × 8 accumulator tile, 8 values a thread
    ptx, shared = _patched(goal_kernel, 14)
    assert "red.global.add" not in ptx
    assert ".reqnctapercluster 1, 14, 1\n" in ptx
    assert ptx.count("st.shared.b32 [%qc_buf") == adds
    assert ptx.count("ld.shared::cluster.b32") == adds * 14  # each value from every rank, by one rank
    assert ptx.count("st.global.f32") == adds
    assert ptx.count("barrier.cluster.wait") == 2
    assert shared == -(-goal_kernel.kernels[0].shared_bytes // 16) * 16 + 4 * 64 * adds


def test_rank_zero_form_chains_the_ranks(goal_kernel: object) -> None:
    ptx, _ = _patched(goal_kernel, 8, scatter=False)
    assert ptx.count("mapa.shared::cluster.u32") == 7  # ranks 1 … 7, one after another
    assert ptx.count("ld.shared::cluster.b32") == 8 * 7


def test_reused_shared_memory_waits_for_the_copies_first(goal_kernel: object) -> None:
    ptx, shared = _patched(goal_kernel, 14, reuse=True, late_stores=True)
    assert shared == goal_kernel.kernels[0].shared_bytes
    tail = ptx[ptx.index("cp.async.wait_all"):]
    assert tail.index("bar.sync 0") < tail.index("st.shared.b32 [%qc_buf")
    assert re.search(r"barrier\.cluster\.arrive\.relaxed\.aligned;\n\tbarrier\.cluster\.wait\.aligned;\n"
                     r"(\t@%qc_q\d st\.global\.f32 \[%rd\d+\], %qc_v\d;\n){8}\t\}", tail)


def test_launch_only_and_barriers_only_keep_the_atomics(goal_kernel: object) -> None:
    launch_only, shared = _patched(goal_kernel, 2, reduce=False)
    assert launch_only.count("red.global.add.f32") == 8 and shared == goal_kernel.kernels[0].shared_bytes
    barriers, _ = _patched(goal_kernel, 2, barriers_only=True)
    assert barriers.count("red.global.add.f32") == 8 and barriers.count("barrier.cluster.arrive.release") == 2


def test_a_kernel_without_atomic_additions_is_refused(goal_kernel: object) -> None:
    with pytest.raises(ValueError, match="red.global.add.f32 epilogue"):
        cluster_reduce.cluster_patch(goal_kernel.ptx.replace("red.global.add.f32", "st.global.f32"), 2, 64, 0)


@needs_ptxas
@pytest.mark.parametrize("options", [{}, {"scatter": False}, {"reuse": True, "late_stores": True}, {"reduce": False},
                                     {"barriers_only": True}])
def test_every_form_assembles_for_sm_90(goal_kernel: object, options: dict) -> None:
    ptx, _ = _patched(goal_kernel, 14, **options)
    assert assembled(ptx, spills=True).spill_stores == 0


def test_four_steps_at_once_rewrites_the_quantization_loop_only() -> None:
    label, cfg, _stages = cluster_reduce.goal_entry()
    source = mmq_kernel(cluster_reduce.one_launch_config(bm.kernel_config(label, cfg)))
    wide = cluster_reduce._quantize_four_steps_at_once(source)  # noqa: SLF001
    assert "scf.for %kq = %k_lo to %k_hi step %c4 {" in wide and "tensor<1x1024xf32>" in wide
    assert "tensor<1x256xf32>" not in wide
    assert "scf.for %kk = %k_lo to %k_hi step %c1" in wide  # the K loop keeps its step
    with pytest.raises(ValueError, match="not in the kernel's IR"):
        cluster_reduce._quantize_four_steps_at_once(wide)  # noqa: SLF001
