// RUN: qdot-opt %s -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// Two loads with different layouts, the first one being the function's first op: both
// must be lowered, each with its own per-thread row offsets built at the entry.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// CHECK-LABEL: func.func @two_loads
// CHECK-NOT:   qgpu.local_load
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK:       ptx.ld_shared %{{.*}} : i8
// CHECK-NOT:   qgpu.local_load
func.func @two_loads(%ma: !qgpu.memdesc<32x64xi8, #sa>, %mb: !qgpu.memdesc<64x32xi8, #sb>) -> (tensor<32x64xi8, #a>, tensor<64x32xi8, #b>) {
  %a = qgpu.local_load %ma : !qgpu.memdesc<32x64xi8, #sa> -> tensor<32x64xi8, #a>
  %b = qgpu.local_load %mb : !qgpu.memdesc<64x32xi8, #sb> -> tensor<64x32xi8, #b>
  func.return %a, %b : tensor<32x64xi8, #a>, tensor<64x32xi8, #b>
}
