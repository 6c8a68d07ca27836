"""The GPU machine has CuPy but no xDSL and no llvmlite: what runs there must import without them.

`bench/run_gpu.sh` runs the benchmarks and `tests/gpu` from a kernel cache filled on the CPU
machine; the templates (to name kernels and compute grids), the runner, the kernel metadata and
the harnesses are imported there. An import of a dialect module (which imports xDSL) anywhere on
that path fails only on the GPU machine, after the device time is spent, so it is caught here:
a fresh interpreter in which importing xdsl or llvmlite raises.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

GPU_SIDE = ["bench.mmq", "bench.mx_gemm", "bench.decode_sweep", "bench.gpu_common", "bench.experiments.mx_variants",
            "bench.experiments.l2_hint_run", "bench.experiments.decode_splits", "bench.experiments.epilogue_cache_hint",
            "bench.experiments.issue_before_wait", "bench.experiments.fewer_barriers", "bench.experiments.ptx_variants",
            "bench.experiments.nibble_ab", "bench.experiments.decode_direct", "bench.experiments.prefill_pdl",
            "bench.experiments.tensor_core_probe", "bench.experiments.emulator_vs_gpu",
            "bench.experiments.fp16_ldmatrix", "bench.experiments.fp16_nvfp4_fold", "compiler.numerics.tensor_core",
            "compiler.templates", "compiler.mmq_template", "compiler.quantize_template", "compiler.kernel_cache",
            "targets.ptx.runner", "targets.ptx.kernel_info", "tests.gpu.gemm_harness", "tests.gpu.mmq_harness",
            "tests.kernel_ir", "tests.wgmma_kernels", "tests.gpu.test_wgmma_forms_gpu", "tests.tensor_core_cases",
            "tests.gpu.test_tensor_core_gpu", "tests.gpu.fidelity_harness", "tests.gpu.test_emulator_fidelity_gpu",
            "tests.gpu.block_pairs_harness", "tests.gpu.test_block_pairs_gpu", "compiler.mmq_choice",
            "bench.experiments.stream_k_fixup", "tests.gpu.test_stream_k_fixup_gpu", "tests.gpu.test_split_k_fixup_gpu",
            "bench.experiments.guarded_copies_ab", "bench.experiments.in_bounds_ab", "tests.gpu.test_sm120_native_gpu",
            "bench.experiments.cluster_reduce", "bench.experiments.wait_bound", "bench.experiments.program_trace",
            "bench.experiments.warp_local_scales", "bench.experiments.padding_rows_once",
            "bench.experiments.decode_phase_edits", "bench.experiments.bulk_weight_copies",
            "bench.experiments.scale_lookahead", "bench.experiments.decode_chain_edits",
            "bench.experiments.compiler_ab", "bench.experiments.token_broadcast",
            "bench.experiments.padded_rows_ab", "bench.experiments.f16_fold_ceiling", "tests.gpu.test_arith_edges_gpu",
            "bench.experiments.red_add_subnormals"]

_BLOCKER = """
import sys
class _NoCompilerPackages:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('xdsl', 'llvmlite'):
            raise ImportError(f'{name} is not installed on the GPU machine')
        return None
sys.meta_path.insert(0, _NoCompilerPackages())
import importlib
for module in sys.argv[1:]:
    importlib.import_module(module)
"""


def test_gpu_side_modules_import_without_xdsl_or_llvmlite() -> None:
    done = subprocess.run([sys.executable, "-c", _BLOCKER, *GPU_SIDE], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


_MISS = _BLOCKER.replace("for module in sys.argv[1:]:\n    importlib.import_module(module)\n", """
from compiler.kernel_cache import get_or_compile
try:
    get_or_compile("func.func @absent() { func.return }", arch="sm_90")
except RuntimeError as err:
    print(err)
""")


def test_a_kernel_missing_from_the_cache_is_said_so_without_the_compiler(tmp_path: Path) -> None:
    """The import of the compiler's diagnostics, outside the guard, made a miss a ModuleNotFoundError for xdsl."""
    done = subprocess.run([sys.executable, "-c", _MISS], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QDOT_KERNEL_CACHE": str(tmp_path), "QDOT_COMPILER_FINGERPRINT": "0" * 16})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("kernel ") and done.stdout.rstrip().endswith(
        f"is not in the cache {tmp_path} and the compiler is unavailable"), done.stdout
