// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.ld_shared .* : i8$' %t | filecheck %s --check-prefix=BYTES
// RUN: grep -c 'arith.extsi .* : i8 to i32$' %t | filecheck %s --check-prefix=BYTES
// BYTES: {{^32$}}
// Loads from views of raw q6_K blocks in shared memory (block_q6_K: ql[128] at byte 0, qh[64] at
// 128, int8 scales[16] at 192, fp16 d at 208; 210 bytes per block). The decisions this file pins:
// * `ql` (and `qh` alike) is read with scalar ld.shared: a block starts 210 bytes after the previous
//   one, 2-aligned only, so each register is two 16-bit loads, zero-extended and or-ed (as q4_0's
//   18-byte blocks, q4_0-block-parts.mlir), never single bytes;
// * `sc` (i32 per 16 values, the mma's integer factor) is the int8 scale itself: one signed byte load
//   (`ld_shared : i8`) at 192 + its index and a sign extension (extsi) per value — 16 per column, a
//   thread's two accumulator columns 2t, 2t + 1: 32 in all;
// * `d4` (the per-32 scale) is the block's fp16 d at byte 208, widened exactly and divided by 4
//   (× 0.25, exact), for each of the 8 32-value blocks of a column: the upcast's s8 values are
//   4 · (code − 32).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#ql = #qgpu.block_part<{format = "q6_K", part = "ql", blocks = 1, valueDim = 0}>
#sc = #qgpu.block_part<{format = "q6_K", part = "sc", blocks = 1, valueDim = 0}>
#d = #qgpu.block_part<{format = "q6_K", part = "d4", blocks = 1, valueDim = 0}>

// q6_K as the rhs (the prefill kernel's W), one super-block per column, columns 210 bytes apart.
// CHECK-LABEL: func.func @q6_K_parts
// CHECK:       %[[QL:.*]] = builtin.unrealized_conversion_cast %qlv : {{.*}} to i32
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[QL]], %{{.*}} : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[A0H:.*]] = arith.addi %[[A0]], %[[C2]] : i32
// CHECK-NEXT:  %[[H0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[Z0:.*]] = arith.extui %[[H0]] : i16 to i32
// CHECK-NEXT:  %[[H1:.*]] = ptx.ld_shared %[[A0H]] : i16
// CHECK-NEXT:  %[[Z1:.*]] = arith.extui %[[H1]] : i16 to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.shli %[[Z1]], %[[C16]] : i32
// CHECK-NEXT:  arith.ori %[[Z0]], %[[S1]] : i32
// CHECK-NOT:   ptx.ld_shared {{.*}} : i32
// CHECK:       %[[SC:.*]] = builtin.unrealized_conversion_cast %scv : {{.*}} to i32
// CHECK:       %[[C192:.*]] = arith.constant 192 : i32
// CHECK-NEXT:  %[[B0:.*]] = arith.addi %{{.*}}, %[[C192]] : i32
// CHECK-NEXT:  %[[V0:.*]] = ptx.ld_shared %[[B0]] : i8
// CHECK-NEXT:  arith.extsi %[[V0]] : i8 to i32
// CHECK:       arith.constant 193 : i32
// CHECK:       arith.constant 207 : i32
// CHECK-NEXT:  arith.addi
// CHECK-NEXT:  ptx.ld_shared %{{.*}} : i8
// CHECK-NEXT:  arith.extsi
// CHECK:       %[[D:.*]] = builtin.unrealized_conversion_cast %dv : {{.*}} to i32
// CHECK:       %[[C208:.*]] = arith.constant 208 : i32
// CHECK-NEXT:  %[[DA:.*]] = arith.addi %{{.*}}, %[[C208]] : i32
// CHECK-NEXT:  %[[DH:.*]] = ptx.ld_shared %[[DA]] : i16
// CHECK-NEXT:  %[[DF:.*]] = arith.bitcast %[[DH]] : i16 to f16
// CHECK-NEXT:  %[[DW:.*]] = arith.extf %[[DF]] : f16 to f32
// CHECK-NEXT:  %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:  arith.mulf %[[DW]], %[[QUARTER]] : f32
func.func @q6_K_parts(%m: !qgpu.memdesc<1x8x!qdot.block<q6_K>, #sh>) -> (tensor<128x8xi8, #b>, tensor<8x16xi32, #sb>, tensor<8x8xf32, #sb>) {
  %qlv = qgpu.block_part %m {part = "ql"} : !qgpu.memdesc<1x8x!qdot.block<q6_K>, #sh> -> !qgpu.memdesc<128x8xi8, #ql>
  %ql = qgpu.local_load %qlv : !qgpu.memdesc<128x8xi8, #ql> -> tensor<128x8xi8, #b>
  %scv = qgpu.block_part %m {part = "sc"} : !qgpu.memdesc<1x8x!qdot.block<q6_K>, #sh> -> !qgpu.memdesc<8x16xi32, #sc>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<8x16xi32, #sc> -> tensor<8x16xi32, #sb>
  %dv = qgpu.block_part %m {part = "d4"} : !qgpu.memdesc<1x8x!qdot.block<q6_K>, #sh> -> !qgpu.memdesc<8x8xf32, #d>
  %d = qgpu.local_load %dv : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  func.return %ql, %sc, %d : tensor<128x8xi8, #b>, tensor<8x16xi32, #sb>, tensor<8x8xf32, #sb>
}
