// REQUIRES: ptxas, cuobjdump
// --target sass: the machine code ptxas makes of the PTX, as cuobjdump prints it; with
// --verify-ptx the ptxas -v report comes on stderr too. Without the tools, a tool error.
// RUN: qdot-translate %S/../../../examples/int8_gemm.mlir --target sass | filecheck %s
// RUN: qdot-translate %S/../../../examples/int8_gemm.mlir --target sass --arch sm_120a --verify-ptx 2>&1 | filecheck %s --check-prefix=SM120
// RUN: env QDOT_PTXAS=/nonexistent not qdot-translate %S/../../../examples/int8_gemm.mlir --target sass 2>&1 | filecheck %s --check-prefix=NO-PTXAS

// CHECK:      code for sm_90
// CHECK:      Function : gemm_i8_i8_noscale_128x128x64_w8
// CHECK:      LDGSTS
// CHECK:      IMMA.16832.S8.S8
// CHECK:      EXIT

// SM120:      ptxas info    : Compiling entry function 'gemm_i8_i8_noscale_128x128x64_w8' for 'sm_120a'
// SM120:      code for sm_120a
// SM120:      IMMA.16832.S8.S8

// NO-PTXAS:     qdot-translate: error: ptxas not found
// NO-PTXAS-NOT: internal error
