"""Fill the kernel cache for one GPU run, in one process: ``python -m bench.prepare mmq mx_gemm``.

The GPU machine has no compiler; it finds kernels in ``.devrun/kernels`` by a key that
includes a fingerprint of the compiler's sources. Compiling the GPU tests and the named
benchmarks in one process gives them all one fingerprint (it is computed once per
process) even if sources change meanwhile, and ``FINGERPRINT`` records it for
``bench/run_gpu.sh``, so the run uses exactly the kernels compiled here.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

import pytest

from compiler.kernel_cache import cache_dir, compiler_fingerprint


def main(benches: list[str]) -> int:
    fingerprint = compiler_fingerprint()
    os.environ["QDOT_EMULATE_FOR_GPU"] = "1"  # tests/gpu/test_emulator_fidelity_gpu.py stores what it compares
    code = pytest.main(["-q", "-p", "no:cacheprovider", "tests/gpu"])
    if code not in (0, 5):
        return int(code)
    for name in benches:
        module = importlib.import_module(f"bench.{name}")
        module.compile_all()
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "FINGERPRINT").write_text(fingerprint + "\n")
    print(f"kernel cache ready: fingerprint {fingerprint}, {len(list(directory.glob('*.ptx')))} kernels")
    return 0


def parse_args(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(prog="python -m bench.prepare", description=__doc__.split("\n\n")[0],
                                     epilog="environment: QDOT_KERNEL_CACHE, the cache directory to fill "
                                            "(default .devrun/kernels). It first compiles every kernel of the "
                                            "GPU tests (pytest tests/gpu: they skip without a GPU, after compiling).")
    parser.add_argument("benches", nargs="*", metavar="BENCH",
                        help="modules under bench/ with a compile_all() whose kernels to compile too: mmq, mx_gemm, "
                             "decode_sweep, experiments.emulator_vs_gpu, ...")
    benches = parser.parse_args(argv).benches
    for name in benches:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ImportError as err:
            parser.error(f"no benchmark bench.{name}: {err}")
        if not callable(getattr(module, "compile_all", None)):
            parser.error(f"bench.{name} has no compile_all() to compile its kernels with")
    return benches


if __name__ == "__main__":
    sys.exit(main(parse_args()))
