// RUN: qdot-opt %s -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// After qdot-optimize-dot-operands a transposed operand is staged untransposed and read
// through qgpu.memdesc_trans. Pipelining that buffer must re-type the view over the stage of
// the ring (a mutable memdesc in, a mutable memdesc out).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#nk = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], fp4Padded = true}>
#kn = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// CHECK-LABEL: func.func @trans_view
// CHECK:       %[[RING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x32x32xi8, {{.*}}fp4Padded = true}>, mutable>
// CHECK:       scf.for
// CHECK:         qgpu.async_commit
// CHECK-NEXT:    %[[STAGE:.*]] = qgpu.memdesc_index %[[RING]][%{{.*}}] : {{.*}} -> !qgpu.memdesc<32x32xi8, {{.*}}, mutable>
// CHECK-NEXT:    %[[VIEW:.*]] = qgpu.memdesc_trans %[[STAGE]] {order = array<i64: 1, 0>} : !qgpu.memdesc<32x32xi8, {{.*}}, mutable> -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [0, 1], fp4Padded = true}>, mutable>
// CHECK-NEXT:    qgpu.local_load %[[VIEW]]
func.func @trans_view(%b_ptr: !qdot.ptr<i8>, %n: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %b_desc = qdot.make_desc %b_ptr, [%n, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %bt = qdot.load %b_desc[%c0, %kk] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %s = qgpu.local_alloc %bt : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #nk>
    %v = qgpu.memdesc_trans %s {order = array<i64: 1, 0>} : !qgpu.memdesc<32x32xi8, #nk> -> !qgpu.memdesc<32x32xi8, #kn>
    %r = qgpu.local_load %v : !qgpu.memdesc<32x32xi8, #kn> -> tensor<32x32xi8, #bu>
    "test.op"(%r) : (tensor<32x32xi8, #bu>) -> ()
  }
  func.return
}
