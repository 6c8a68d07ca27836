"""Issue rate of the instructions the per-block rescale is made of, on the GPU machine.

    python -m bench.conversion_throughput

The exact per-32-value rescale of the int8 paths turns every s32 mma result into f32
(``cvt.rn.f32.s32``, SASS ``I2FP``) and multiply-adds it into the f32 accumulator. If the
conversion issues at a fraction of the FP32 rate it, not the instruction count, bounds
those kernels. Each kernel here runs 8 independent dependent chains of one instruction per
thread, 64 warps per SM, and reports results per clock per SM (the CUDA programming guide's
unit), measured with CUDA events at the SM clock nvidia-smi reports as the maximum.
"""

from __future__ import annotations

import argparse
import subprocess

from bench.gpu_common import gpu_or_exit, log, record, time_launch

CHAINS = 8
ITERS = 4096

_BODY = {
    "cvt.rn.f32.s32 (I2FP)": 'asm volatile("cvt.rn.f32.s32 %0, %1;" : "=f"(f) : "r"(a[j])); a[j] = __float_as_int(f);',
    "add.f32 (FADD)": 'asm volatile("add.f32 %0, %1, %1;" : "=f"(f) : "f"(__int_as_float(a[j]))); a[j] = __float_as_int(f);',
    "fma.rn.f32 (FFMA)": 'asm volatile("fma.rn.f32 %0, %1, %1, %1;" : "=f"(f) : "f"(__int_as_float(a[j]))); '
                         'a[j] = __float_as_int(f);',
    "add.s32 (IADD3)": 'asm volatile("add.s32 %0, %1, %1;" : "=r"(a[j]) : "r"(a[j]));',
}


def _source(body: str) -> str:
    return (
        'extern "C" __global__ void k(int* out, int iters) {\n'
        f"  int a[{CHAINS}];\n"
        f"  for (int j = 0; j < {CHAINS}; ++j) a[j] = threadIdx.x + j;\n"
        "  float f;\n"
        "  for (int i = 0; i < iters; ++i) {\n"
        "    #pragma unroll\n"
        f"    for (int j = 0; j < {CHAINS}; ++j) {{ {body} }}\n"
        "  }\n"
        "  int x = 0;\n"
        f"  for (int j = 0; j < {CHAINS}; ++j) x ^= a[j];\n"
        "  out[blockIdx.x * blockDim.x + threadIdx.x] = x;\n"
        "}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.conversion_throughput",
                                     description=__doc__.split("\n\n")[0],
                                     epilog="Runs on the GPU machine (CuPy, nvidia-smi); "
                                            "rows go to $OUT/results.jsonl.")
    parser.parse_args()
    cupy = gpu_or_exit("python -m bench.conversion_throughput")

    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    clock_mhz = int(subprocess.run(["nvidia-smi", "--query-gpu=clocks.max.sm", "--format=csv,noheader,nounits"],
                                   capture_output=True, text=True, check=True).stdout.split()[0])
    threads, blocks = 256, sms * 8  # 64 warps per SM
    out = cupy.empty(threads * blocks, dtype=cupy.int32)
    for name, body in _BODY.items():
        kernel = cupy.RawKernel(_source(body), "k")
        us = time_launch(cupy, lambda kernel=kernel: kernel((blocks,), (threads,), (out, cupy.int32(ITERS))))
        per_clock_sm = threads * blocks * ITERS * CHAINS / (us * 1e-6) / (sms * clock_mhz * 1e6)
        record({"what": f"issue rate {name}", "results_per_clock_per_SM": per_clock_sm, "us": us,
                "sm_clock_mhz": clock_mhz, "sms": sms})
        log(f"{name:24s} {per_clock_sm:6.1f} results/clock/SM ({us:.1f} us)")


if __name__ == "__main__":
    main()
