// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_121a strategy=native}' | filecheck %s
// RUN: qdot-opt %s --split-input-file \
// RUN:   -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native},qdot-lower-local-load{arch=sm_120a}' \
// RUN:   | filecheck %s --check-prefix=LOAD
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' --remarks \
// RUN:   -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// strategy=native on the sm_120a family: fp8/fp6/fp4 operands reach the tensor core as they
// are. One case per operand pairing and scale kind.
//
// The fp4 operands here are function arguments, whose order in memory is not known: they are
// staged K-contiguous (B = [K/2, N]: order = [0, 1]), the only order the fp4 ldmatrix
// (.m8n16 .b8x16.b4x16_p64) reads, as Triton's SM120 path keeps the packed K axis contiguous
// (allowTranspose = false). B used to take its last dimension, N, and fell back to single-byte
// ld.shared loads (LOAD checks that it no longer does).

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e4m3 × e2m1 with ue8m0 scales: the fp4 operand is staged in fp4Padded shared memory and
// read into an fp4Unpacked dot operand; the scales go to the block-scaled instruction
// (rescale = "hw"), B's scale layout following the B operand columns (operand = true).
// CHECK-LABEL: func.func @e4m3_e2m1_ue8m0
// CHECK:       %[[A:.*]] = qgpu.local_alloc %a : (tensor<32x64xf8E4M3FN>) -> !qgpu.memdesc<32x64xf8E4M3FN, #qgpu.shared<{{[^>]*}}>>
// CHECK:       %[[B:.*]] = qgpu.local_alloc %b : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [0, 1], fp4Padded = true}>>
// CHECK:       %[[SA:.*]] = qgpu.local_alloc %sa
// CHECK:       %[[SB:.*]] = qgpu.local_alloc %sb
// CHECK:       %[[AR:.*]] = qgpu.local_load %[[A]] : {{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %[[B]] : {{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 2, fp4Unpacked = true}>>
// CHECK:       %[[SAR:.*]] = qgpu.local_load %[[SA]] : {{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK:       %[[SBR:.*]] = qgpu.local_load %[[SB]] : {{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK:       %[[C:.*]] = qgpu.convert_layout %acc : {{.*}} -> tensor<32x32xf32, [[MMA]]>
// CHECK:       %[[D:.*]] = qgpu.mma %[[AR]], %[[BR]], %[[C]] scale %[[SAR]], %[[SBR]] lhs = e4m3 rhs = e2m1 {qdot.strategy = "native", rescale = "hw"}
// CHECK-SAME:  -> tensor<32x32xf32, [[MMA]]>
// CHECK:       qgpu.convert_layout %[[D]] : tensor<32x32xf32, [[MMA]]> -> tensor<32x32xf32, #qgpu.blocked
// CHECK-NOT:   qgpu.upcast
// CHECK-NOT:   qdot.dot_scaled
// The K-contiguous fp4Padded B is read by the fp4 ldmatrix, A's by the 8-bit one: no byte loads.
// REMARK: native.mlir:[[# @LINE + 9]]:3: remark: qdot-accelerate-matmul: lhs e4m3: no conversion, read as it is; rhs e2m1: staged fp4Padded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma), K-contiguous: its order in memory is not known, so the stores from registers take the one the fp4 ldmatrix reads{{$}}
// LOAD-LABEL:   func.func @e4m3_e2m1_ue8m0
// LOAD-NOT:     ptx.ld_shared
// LOAD-COUNT-4: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// LOAD-NOT:     ptx.ld_shared
// LOAD:         func.return
func.func @e4m3_e2m1_ue8m0(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>,
                           %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// Unscaled e4m3 × e2m1: the same fp4Padded → fp4Unpacked staging, no scales, no rescale
// attribute (plain kind::f8f6f4).
// CHECK-LABEL: func.func @e4m3_e2m1_unscaled
// CHECK:       %[[B:.*]] = qgpu.local_alloc %b : {{.*}}order = [0, 1], fp4Padded = true}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %[[B]] : {{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}fp4Unpacked = true}>>
// CHECK:       qgpu.mma %{{[^ ,]+}}, %[[BR]], %{{[^ ,]+}} lhs = e4m3 rhs = e2m1 {qdot.strategy = "native"} :
// CHECK-NOT:   rescale
// CHECK-NOT:   qgpu.dot_scale
// LOAD-LABEL:   func.func @e4m3_e2m1_unscaled
// LOAD-NOT:     ptx.ld_shared
// LOAD-COUNT-4: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// LOAD-NOT:     ptx.ld_shared
// LOAD:         func.return
func.func @e4m3_e2m1_unscaled(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// The other operand order, e2m1 × e4m3: now A is the fp4Padded / fp4Unpacked operand and B
// stays a plain 8-bit operand.
// CHECK-LABEL: func.func @e2m1_e4m3
// CHECK:       %[[A:.*]] = qgpu.local_alloc %a : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, {{.*}}order = [1, 0], fp4Padded = true}>>
// CHECK:       %[[B:.*]] = qgpu.local_alloc %b : (tensor<64x32xf8E4M3FN>) -> !qgpu.memdesc<64x32xf8E4M3FN, #qgpu.shared<{{[^>]*}}order = [1, 0]}>>
// CHECK:       %[[AR:.*]] = qgpu.local_load %[[A]] : {{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 2, fp4Unpacked = true}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %[[B]] : {{.*}} -> tensor<64x32xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{[^ ,]+}} lhs = e2m1 rhs = e4m3 {qdot.strategy = "native"} :
func.func @e2m1_e4m3(%a: tensor<32x32xi8>, %b: tensor<64x32xf8E4M3FN>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m1 rhs = e4m3 : tensor<32x32xi8> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// MXFP4 × MXFP4 (e2m1 × e2m1 with ue8m0): both operands stay packed for kind::mxf4 — no
// fp4Padded staging, no fp4Unpacked operand — and the scales go to the instruction.
// CHECK-LABEL: func.func @mxf4
// CHECK-NOT:   fp4Padded
// CHECK:       %[[AR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       %[[SAR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK:       %[[SBR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} scale %[[SAR]], %[[SBR]] lhs = e2m1 rhs = e2m1 {qdot.strategy = "native", rescale = "hw"}
// CHECK-NOT:   fp4Unpacked
func.func @mxf4(%a: tensor<32x32xi8>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// NVFP4 (e2m1 × e2m1 with ue4m3 scales per 16 values): packed operands, the four scales of
// each 64-value K step go to the instruction (kind::mxf4nvf4 scale_vec::4X).
// CHECK-LABEL: func.func @nvfp4
// CHECK-NOT:   fp4Padded
// CHECK:       %[[SAR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x4xf8E4M3FN, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]]}>>
// CHECK:       %[[SBR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x4xf8E4M3FN, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %[[SAR]], %[[SBR]] lhs = e2m1 rhs = e2m1 {qdot.strategy = "native", rescale = "hw"}
// CHECK-SAME:  tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>, tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
func.func @nvfp4(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x4xf8E4M3FN>,
                 %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<32x32xi8>, tensor<32x4xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// Unscaled e2m1 × e2m1 cannot use the packed mxf4 kinds (they are block-scaled only): both
// operands take the fp4Padded → fp4Unpacked route into kind::f8f6f4.
// CHECK-LABEL: func.func @e2m1_e2m1_unscaled
// CHECK:       qgpu.local_alloc %a : {{.*}}order = [1, 0], fp4Padded = true}>>
// CHECK:       qgpu.local_alloc %b : {{.*}}order = [0, 1], fp4Padded = true}>>
// CHECK:       %[[AR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}fp4Unpacked = true}>>
// CHECK:       %[[BR:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}fp4Unpacked = true}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{[^ ,]+}} lhs = e2m1 rhs = e2m1 {qdot.strategy = "native"} :
// Both operands by the fp4 ldmatrix, 4 each.
// LOAD-LABEL:   func.func @e2m1_e2m1_unscaled
// LOAD-NOT:     ptx.ld_shared
// LOAD-COUNT-8: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// LOAD-NOT:     ptx.ld_shared
// LOAD:         func.return
func.func @e2m1_e2m1_unscaled(%a: tensor<32x32xi8>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m1 rhs = e2m1 : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// fp6 × fp8 (e2m3 × e5m2): 8-bit containers for both, kind::f8f6f4, no staging tricks.
// CHECK-LABEL: func.func @e2m3_e5m2
// CHECK-NOT:   fp4Padded
// CHECK:       qgpu.mma %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} lhs = e2m3 rhs = e5m2 {qdot.strategy = "native"} :
// CHECK-SAME:  tensor<32x64xf6E2M3FN, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 4}>>, tensor<64x32xf8E5M2, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 4}>>
func.func @e2m3_e5m2(%a: tensor<32x64xf6E2M3FN>, %b: tensor<64x32xf8E5M2>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e2m3 rhs = e5m2 : tensor<32x64xf6E2M3FN> * tensor<64x32xf8E5M2> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
