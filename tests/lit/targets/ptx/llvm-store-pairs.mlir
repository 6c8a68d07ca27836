// RUN: qdot-translate %s --target llvm --arch sm_90 | filecheck %s
// The LLVM IR of an epilogue whose f32 pairs are chosen at run time (N's parity unknown): each
// pair's first single store and its 8-byte store name one address, converted to a global
// pointer once (inttoptr + addrspacecast, per basic block), and the 8-byte store takes the two
// words its pack was built from, not the pack's vector taken apart again: fewer lines for LLVM
// to parse and optimise (the MX example's IR 3084 -> 2618 lines), the same PTX after its CSE.

// CHECK-LABEL: define ptx_kernel void @store_pairs
// CHECK:       %[[GEN:gen[.0-9]*]] = inttoptr i64 %{{[^ ]+}} to ptr
// CHECK-NEXT:  %[[G:gptr[.0-9]*]] = addrspacecast ptr %[[GEN]] to ptr addrspace(1)
// CHECK:       st.global.b32 [$0], $1;{{.*}}(ptr addrspace(1) %[[G]], i32
// CHECK-NOT:   inttoptr
// CHECK-NOT:   extractelement
// CHECK:       st.global.v2.b32 [$0], {$1, $2};{{.*}}(ptr addrspace(1) %[[G]], i32 %[[W0:[^,]+]], i32 %[[W1:[^,]+]], i32
// CHECK:       ret void
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @store_pairs(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%c0, %c0], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}
