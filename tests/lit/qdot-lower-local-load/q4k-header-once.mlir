// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sc = #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 1}>
#mn = #qgpu.block_part<{format = "q4_K", part = "min", blocks = 1, valueDim = 1}>

// q4_K `scale` then `min` of the same blocks (a decode kernel's K step): both come from the block's 16-byte header,
// which the first load reads (rows g and g + 8 of lane g: two vector loads) and the second uses again — it would
// otherwise read the same 16 bytes after the first's results were stored, which LLVM cannot move past. dmin is
// the high half of word 0, d the low half.
// CHECK-LABEL: func.func @q4k_scale_then_min
// CHECK:       %[[H:.*]] = ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NEXT:  %[[W0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = ptx.unpack %[[H]]
// CHECK:       %[[H8:.*]] = ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK:       to tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NOT:   ptx.ld_shared
// CHECK:       %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %{{.*}} = arith.shrui %[[W0]], %[[C16]] : i32
// CHECK-NOT:   ptx.ld_shared
// CHECK:       func.return
func.func @q4k_scale_then_min(%m: !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh>) -> (tensor<16x8xf32, #sa>, tensor<16x8xf32, #sa>) {
  %v = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x8xf32, #sc>
  %s = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #sc> -> tensor<16x8xf32, #sa>
  %w = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x8xf32, #mn>
  %n = qgpu.local_load %w : !qgpu.memdesc<16x8xf32, #mn> -> tensor<16x8xf32, #sa>
  func.return %s, %n : tensor<16x8xf32, #sa>, tensor<16x8xf32, #sa>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sc = #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 1}>
#mn = #qgpu.block_part<{format = "q4_K", part = "min", blocks = 1, valueDim = 1}>

// A wait for copies between the two loads may change the buffer: the second reads the header again.
// CHECK-LABEL: func.func @q4k_wait_between
// CHECK-COUNT-2: ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK:       qgpu.async_wait
// CHECK-COUNT-2: ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NOT:   ptx.ld_shared
func.func @q4k_wait_between(%m: !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh>) -> (tensor<16x8xf32, #sa>, tensor<16x8xf32, #sa>) {
  %v = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x8xf32, #sc>
  %s = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #sc> -> tensor<16x8xf32, #sa>
  qgpu.async_wait {pending = 0}
  %w = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x8xf32, #mn>
  %n = qgpu.local_load %w : !qgpu.memdesc<16x8xf32, #mn> -> tensor<16x8xf32, #sa>
  func.return %s, %n : tensor<16x8xf32, #sa>, tensor<16x8xf32, #sa>
}
