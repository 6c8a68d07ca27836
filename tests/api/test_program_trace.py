"""The program-trace experiment's PTX edit (run 304) and its summary: thread 0 of each program records its start,
end and SM in the module-global array without changing anything else, and the summary reads that array."""

from __future__ import annotations

import numpy as np
import pytest

from bench.experiments import program_trace
from tests.ptxas_checks import assembled, needs_ptxas


@pytest.fixture(scope="module")
def gemm() -> object:
    return program_trace.compile_all()["gemm"][(64, 2)]


def test_the_trace_is_added_around_the_kernel_body(gemm: object) -> None:
    name = gemm.kernels[0].name
    ptx = program_trace.traced(gemm.ptx, name)
    assert f".global .align 8 .u64 qdot_trace[{program_trace.STRIDE * program_trace.MAX_PROGRAMS}];" in ptx
    assert ptx.index("mov.u64 %qt_t0, %globaltimer;") < ptx.index("griddepcontrol.wait")  # first thing
    assert ptx.index("mov.u64 %qt_t1, %globaltimer;") > ptx.rindex("red.global.add.f32")  # after the last addition
    assert ptx.count("@%qt_first st.global.u64") == 3 and ptx.count("@%qt_stamp st.global.u64") == 3
    loop_top = ptx.index("cp.async.wait_group", ptx.index("griddepcontrol.wait"))
    tiles, scales, end = (ptx.index(f"[%qt_off+{8 * (3 + phase)}]") for phase in range(3))
    assert loop_top < tiles < ptx.index("bar.sync", tiles) < scales < ptx.index("ldmatrix", scales) < end
    assert end < ptx.index("add.u32 %qt_step, %qt_step, 1;") < ptx.index("bra", end)  # before the back edge
    untraced = "\n".join(line for line in ptx.splitlines() if "qt_" not in line and "qdot_trace" not in line)
    assert untraced.split() == gemm.ptx.split()  # nothing else changed
    with pytest.raises(ValueError, match="one entry"):
        program_trace.traced(gemm.ptx, "no_such_kernel")


@needs_ptxas
def test_the_traced_kernel_assembles(gemm: object) -> None:
    assembled(program_trace.traced(gemm.ptx, gemm.kernels[0].name), spills=True)


def test_summary_of_a_known_trace() -> None:
    # four programs on two SMs: starts 0, 1, 2, 3 µs, each running 5 µs but the last 7; two steps each, whose tiles,
    # scales and end come 1, 1.5 and 2 µs (step 0) and 2, 2.5, 3 µs (step 1) after the program's start, the last
    # program's step 1 at 4, 4.5, 5
    trace = np.zeros((4, program_trace.STRIDE), dtype=np.uint64)
    for i, (begin, end, sm) in enumerate([(1000, 6000, 0), (2000, 7000, 1), (3000, 8000, 0), (4000, 11000, 1)]):
        late = 2000 if i == 3 else 0
        trace[i, :9] = [begin, end, sm, begin + 1000, begin + 1500, begin + 2000,
                        begin + 2000 + late, begin + 2500 + late, begin + 3000 + late]
    figures = program_trace.summary(trace)
    assert figures["programs"] == 4 and figures["sms"] == 2 and figures["programs_per_sm"] == [2]
    assert figures["span_us"] == 10.0 and figures["start_last_us"] == 3.0 and figures["run_max_us"] == 7.0
    assert figures["run_median_us"] == 5.0
    assert figures["sm_span_min_us"] == 7.0 and figures["sm_span_max_us"] == 9.0
    assert (figures["step0_tiles_median_us"], figures["step0_scales_median_us"], figures["step0_end_median_us"]) \
        == (1.0, 1.5, 2.0)
    assert figures["step1_tiles_median_us"] == 2.0 and "step2_tiles_median_us" not in figures
    assert figures["after_last_step_median_us"] == 2.0
