// qgpu.upcast from = q3_K: its qs bytes (four 2-bit fields per byte) make four times as many s8 values,
// with the top bit of each from the hmask bytes (the high operand: an eighth of the result's K, as q5_K's
// qh); kWidth 4 on every side. The round trip and the shapes it accepts.
// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
// CHECK-LABEL: func.func @q3_K_sides
// CHECK:       qgpu.upcast %{{.*}} high %{{.*}} from = q3_K to = s8 : tensor<16x64xi8, {{.*}}> high tensor<16x32xi8, {{.*}}> -> tensor<16x256xi8, {{.*}}>
// CHECK:       qgpu.upcast %{{.*}} high %{{.*}} from = q3_K to = s8 : tensor<64x8xi8, {{.*}}> high tensor<32x8xi8, {{.*}}> -> tensor<256x8xi8, {{.*}}>
func.func @q3_K_sides(%qa: tensor<16x64xi8, #a>, %ha: tensor<16x32xi8, #a>, %qb: tensor<64x8xi8, #b>, %hb: tensor<32x8xi8, #b>) {
  %ua = qgpu.upcast %qa high %ha from = q3_K to = s8 : tensor<16x64xi8, #a> high tensor<16x32xi8, #a> -> tensor<16x256xi8, #a>
  %ub = qgpu.upcast %qb high %hb from = q3_K to = s8 : tensor<64x8xi8, #b> high tensor<32x8xi8, #b> -> tensor<256x8xi8, #b>
  func.return
}
