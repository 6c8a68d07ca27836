// REQUIRES: ptxas
// ptxas assembles the q4_K × q8_1 kernels (mmq-q4k.mlir, split-k-small-m.mlir) for sm_90 and
// sm_80 without error (non-zero exit fails the RUN line) and, per --verify-ptx's resource
// report, without spilling: no local-memory stack frame, no spill stores or loads.
// RUN: qdot-translate %S/mmq-q4k.mlir --target ptx --arch sm_90 --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=MMQ
// RUN: qdot-translate %S/mmq-q4k.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -
// RUN: qdot-translate %S/split-k-small-m.mlir --target ptx --arch sm_90 --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=SPLITK
// RUN: qdot-translate %S/split-k-small-m.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -

// MMQ:         Compiling entry function 'mmq_q8_1_q4_K_32x32_w4' for 'sm_90'
// MMQ:         0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// MMQ-NOT:     error
// SPLITK:      Compiling entry function 'small_m_q8_1_q4_K_16_w1_splitk' for 'sm_90'
// SPLITK:      0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SPLITK-NOT:  error
