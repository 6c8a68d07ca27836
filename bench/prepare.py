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
from collections.abc import Callable

import pytest

from compiler.kernel_cache import cache_dir, compiler_fingerprint, sources_fingerprint


def main(benches: list[str]) -> int:
    os.environ["QDOT_EMULATE_FOR_GPU"] = "1"  # tests/gpu/test_emulator_fidelity_gpu.py stores what it compares
    code = pytest.main(["-q", "-p", "no:cacheprovider", "tests/gpu"])
    if code not in (0, 5):
        return int(code)
    fingerprint = fill_cache(lambda: [importlib.import_module(f"bench.{name}").compile_all() for name in benches])
    print(f"kernel cache ready: fingerprint {fingerprint}, {len(list(cache_dir().glob('*.ptx')))} kernels")
    return 0


def fill_cache(compile_kernels: Callable[[], object]) -> str:
    """Run ``compile_kernels`` and record in ``FINGERPRINT`` the fingerprint its kernels are cached under.

    The fingerprint is computed once per process, at its first use, so every kernel this process
    compiles carries the one written here even if sources change meanwhile; it is written only
    after compiling returned, so a compile that raised leaves no cache that looks ready. ``SOURCES`` records the
sources' own hash, which the GPU machine (no xDSL, so no toolchain to fingerprint) can compute and compare.
    Experiments that compile an older tree's kernels (``PYTHONPATH=OLD_TREE python
    bench/experiments/….py --prepare``) call it without the GPU suite ``main`` compiles first.
    """
    fingerprint = compiler_fingerprint()
    compile_kernels()
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "FINGERPRINT").write_text(fingerprint + "\n")
    (directory / "SOURCES").write_text(sources_fingerprint() + "\n")  # what bench/run_gpu.sh compares
    return fingerprint


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
