// REQUIRES: ptxas
// ptxas is the referee: every kernel of this folder, and the MX GEMM example, assembles for
// its targets with no error (ptxas exits non-zero on any error, failing the RUN line).
// RUN: qdot-translate %S/native-f8f6f4.mlir --target ptx --arch sm_120a | %ptxas -arch=sm_120a -o /dev/null -
// RUN: qdot-translate %S/native-f8f6f4.mlir --target ptx --arch sm_90 | %ptxas -arch=sm_90 -o /dev/null -
// RUN: qdot-translate %S/mx-gemm.mlir --target ptx --arch sm_120a | %ptxas -arch=sm_120a -o /dev/null -
// RUN: qdot-translate %S/mx-gemm.mlir --target ptx --arch sm_90 | %ptxas -arch=sm_90 -o /dev/null -
// RUN: qdot-translate %S/mx-gemm.mlir --target ptx --arch sm_89 | %ptxas -arch=sm_89 -o /dev/null -
// RUN: qdot-translate %S/mx-gemm.mlir --target ptx --arch sm_90 --strategy promote-fp8 | %ptxas -arch=sm_90 -o /dev/null -
// RUN: qdot-translate %S/int8.mlir --target ptx --arch sm_80 | %ptxas -arch=sm_80 -o /dev/null -
// RUN: qdot-translate %S/int8.mlir --target ptx --arch sm_90 | %ptxas -arch=sm_90 -o /dev/null -
// RUN: qdot-translate %S/int8.mlir --target ptx --arch sm_120a | %ptxas -arch=sm_120a -o /dev/null -
// RUN: qdot-translate %S/../../../../examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_90 | %ptxas -arch=sm_90 -o /dev/null -
// RUN: qdot-translate %S/../../../../examples/mx_gemm_e4m3_e2m1.mlir --target ptx --arch sm_120a | %ptxas -arch=sm_120a -o /dev/null -
//
// --verify-ptx runs the same ptxas (-v) itself and reports the kernel's resources.
// RUN: qdot-translate %S/native-f8f6f4.mlir --target ptx --arch sm_120a --verify-ptx -o /dev/null 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: sed 's/@NAME/@"_k$1"/' %S/entry-names.mlir | qdot-translate --target ptx | %ptxas -arch=sm_90 -o /dev/null -
// VERIFY:      Compiling entry function 'mixed' for 'sm_120a'
// VERIFY:      0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// VERIFY-NOT:  error
