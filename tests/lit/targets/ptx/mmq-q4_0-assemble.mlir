// REQUIRES: ptxas
// ptxas assembles the q4_0 MMQ kernels (mmq-q4_0.mlir, split-k-small-m-q4_0.mlir) for sm_90 and
// sm_80 without error (a non-zero exit fails the RUN line) and, per --verify-ptx's resource
// report, without spilling: no local-memory stack frame, no spill stores or loads. The nibble
// upcast costs registers of its own (two s8 registers per source register), so this is the
// check that it fits beside the accumulators.
// RUN: qdot-translate %S/mmq-q4_0.mlir --target ptx --arch sm_90 --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=MMQ
// RUN: qdot-translate %S/mmq-q4_0.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -
// RUN: qdot-translate %S/split-k-small-m-q4_0.mlir --target ptx --arch sm_90 --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=SPLITK
// RUN: qdot-translate %S/split-k-small-m-q4_0.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -

// MMQ:         Compiling entry function 'mmq_q8_1_q4_0_32x32_w4' for 'sm_90'
// MMQ:         0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// MMQ-NOT:     error
// SPLITK:      Compiling entry function 'small_m_q8_1_q4_0_16_w1_splitk' for 'sm_90'
// SPLITK:      0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SPLITK-NOT:  error
