// REQUIRES: ptxas
// ptxas assembles the q4_K × q8_1 kernels (mmq-q4k.mlir, split-k-small-m.mlir) for sm_90 and
// sm_80 without error (non-zero exit fails the RUN line) and, per --verify-ptx's resource
// report, the decode kernel without spilling: no local-memory stack frame, no spill stores or
// loads. The prefill one parks one 4-byte value in local memory on sm_90 (ptxas 13.0 stores it
// before its K loop and loads it after: tests/targets/test_template_ptxas.py checks the loop
// has no spill instruction).
// RUN: qdot-translate %S/mmq-q4k.mlir --target ptx --arch sm_90 --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=MMQ
// RUN: qdot-translate %S/mmq-q4k.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -
// RUN: qdot-translate %S/split-k-small-m.mlir --target ptx --arch sm_90 --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=SPLITK
// RUN: qdot-translate %S/split-k-small-m.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -

// MMQ:         Compiling entry function 'mmq_q8_1_q4_K_32x32_w4' for 'sm_90'
// MMQ:         Used {{[0-9]+}} registers
// MMQ-NOT:     error
// SPLITK:      Compiling entry function 'small_m_q8_1_q4_K_16_w1_splitk' for 'sm_90'
// SPLITK:      0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SPLITK-NOT:  error
