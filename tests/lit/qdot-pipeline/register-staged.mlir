// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=auto},qdot-optimize-dot-operands,qdot-pipeline{num-stages=2}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=auto},qdot-optimize-dot-operands,qdot-pipeline{num-stages=1}' | filecheck %s --check-prefix=SYNC
// A register → shared buffer of a pipelined K loop (here the q4_K decode kernel's decoded
// scales and the two f16 fold operands) is written and read within one iteration; the readers
// of its previous contents are the previous iteration's, which every thread has left behind at
// the barrier of the async_wait at the top of this one. qdot-pipeline marks such buffers
// qdot.readers_synced, so their stores get no barrier in front (qdot-to-llvm; the barrier count
// is checked in qdot-to-llvm/q4k-decode-barriers.mlir). The ring buffers, filled by async
// copies, are not register-staged and carry nothing. Without pipelining (num-stages=1) there is
// no such barrier, and nothing is marked.

// CHECK-LABEL: func.func @small_m_splitk
// CHECK:       qgpu.local_alloc : () -> !qgpu.memdesc<2x16x1x!qdot.block<q4_K>
// CHECK-NOT:   qdot.readers_synced
// CHECK:       scf.for
// CHECK-NEXT:  qgpu.async_wait {pending = 0}
// CHECK:       qgpu.local_alloc %{{.*}} {qdot.readers_synced} : (tensor<16x8xf32
// CHECK:       qgpu.mma {{.*}} lhs = u8 rhs = s8
// CHECK:       qgpu.local_alloc %{{.*}} {qdot.readers_synced} : (tensor<16x16xf16
// CHECK-NEXT:  qgpu.block_part
// CHECK-NEXT:  qgpu.local_load
// CHECK-NEXT:  qgpu.local_alloc %{{.*}} {qdot.readers_synced} : (tensor<8x16xf16
// CHECK:       qgpu.mma {{.*}} lhs = fp16 rhs = fp16

// SYNC-LABEL:  func.func @small_m_splitk
// SYNC-NOT:    qdot.readers_synced
// SYNC:        scf.for
// SYNC-NOT:    qgpu.async_wait
// SYNC:        qgpu.local_alloc %{{.*}} : (tensor<16x8xf32
// SYNC:        qgpu.local_alloc %{{.*}} : (tensor<16x16xf16
// SYNC:        qgpu.local_alloc %{{.*}} : (tensor<8x16xf16
// SYNC-NOT:    qdot.readers_synced
func.func @small_m_splitk(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
                          %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %pid = qdot.program_id x
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
