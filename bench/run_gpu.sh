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
# the cache serves what bench.prepare compiled: said in the record if this tree's compiler sources are not those
here=$(python -c "from compiler.kernel_cache import sources_fingerprint; print(sources_fingerprint())")
if [ "$here" != "$(cat .devrun/kernels/SOURCES 2>/dev/null)" ]; then
  echo "the kernel cache was filled from other compiler sources ($(cat .devrun/kernels/SOURCES 2>/dev/null \
|| echo unknown)) than this tree's ($here): its PTX may not be what this tree compiles" | tee -a "$OUT/gpu.txt"
  # an old tree's kernels on purpose (an A/B of two compilers): QDOT_ALLOW_OTHER_SOURCES=1, said in the record
  if [ "${QDOT_ALLOW_OTHER_SOURCES:-0}" != 1 ]; then
    echo "stopped: run python -m bench.prepare again" | tee -a "$OUT/gpu.txt"; exit 1
  fi
fi
export QDOT_REQUIRE_GPU=1  # a test that finds no GPU here fails, not skips
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # no -q: pyproject.toml's addopts has one, and a second (-qq) drops the "N passed" line the run reports
  python -m pytest tests/gpu -p no:cacheprovider -rfEs 2>&1 | tail -60 | tee "$OUT/gpu_tests.log"
  # no benchmark of kernels the suite found wrong (pipefail: pytest's status)
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "stopped: the GPU suite failed" | tee -a "$OUT/gpu.txt"; exit 1; }
fi
for bench in "$@"; do
  python -m "bench.$bench" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench_$bench.log"
done
