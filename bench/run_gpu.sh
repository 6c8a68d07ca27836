#!/usr/bin/env bash
# One GPU run: correctness suite, then the named benchmarks. Kernels come from the
# cache in .devrun/kernels (compiled on the CPU machine: `python -m bench.prepare <names>`),
# Triton's reference kernels from .refbench (a copy of ../shared/bench).
set -o pipefail
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 QDOT_KERNEL_CACHE=$PWD/.devrun/kernels
# the kernels were compiled by `python -m bench.prepare` under this fingerprint of the compiler
[ -f .devrun/kernels/FINGERPRINT ] && export QDOT_COMPILER_FINGERPRINT=$(cat .devrun/kernels/FINGERPRINT)
OUT=${OUT:-/tmp/qdot_out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$OUT/gpu.txt"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # no -q: pyproject.toml's addopts has one, and a second (-qq) drops the "N passed" line the run reports
  python -m pytest tests/gpu -p no:cacheprovider -rfEs 2>&1 | tail -60 | tee "$OUT/gpu_tests.log"
fi
for bench in "$@"; do
  python -m "bench.$bench" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_$bench.log"
done
